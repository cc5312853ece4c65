import { ValidationError } from '../domain/errors.js';
import type { SummariseParams } from '../domain/answers/service.js';

export const LOCALE = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8}){0,3}$/;
const MAX_QUERY = 1_000;

export interface SummariseRequest extends SummariseParams {
  stream: boolean;
  format: 'markdown' | 'html';
}

/** Validates summarise's query string; every problem at once as a 422 with field keys. */
export function parseSummariseParams(raw: Record<string, unknown>): SummariseRequest {
  const errors: Record<string, string[]> = {};
  const fail = (field: string, message: string) => void (errors[field] ??= []).push(message);

  const query = typeof raw.query === 'string' ? raw.query.trim() : '';
  if (raw.query !== undefined && typeof raw.query !== 'string') fail('query', 'The query field must be a string.');
  else if (query === '') fail('query', 'The query field is required.');
  else if (query.length > MAX_QUERY) fail('query', `The query field must not be greater than ${MAX_QUERY} characters.`);

  let threshold = 0.4;
  if (raw.threshold !== undefined) {
    const t = typeof raw.threshold === 'string' && raw.threshold.trim() !== '' ? Number(raw.threshold) : NaN;
    if (!Number.isFinite(t) || t < 0 || t > 1) fail('threshold', 'The threshold field must be a number between 0 and 1.');
    else threshold = t;
  }

  let stream = true;
  if (raw.stream !== undefined) {
    const value = typeof raw.stream === 'string' ? raw.stream.toLowerCase() : undefined;
    if (value === 'true' || value === '1') stream = true;
    else if (value === 'false' || value === '0') stream = false;
    else fail('stream', 'The stream field must be true or false.');
  }

  const format = raw.format ?? 'markdown';
  if (format !== 'markdown' && format !== 'html') fail('format', 'The selected format is invalid; use one of: markdown, html.');

  let locale: string | undefined;
  if (raw.locale !== undefined) {
    if (typeof raw.locale !== 'string' || !LOCALE.test(raw.locale)) fail('locale', 'The locale field must be a language code such as en, de or pt-BR.');
    else locale = raw.locale;
  }

  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return { query, threshold, stream, format: format as 'markdown' | 'html', locale };
}
