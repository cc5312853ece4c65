import { ValidationError } from '../domain/errors.js';
import type { SummariseParams } from '../domain/answers/service.js';
import { parseQuery, parseThreshold } from './searchParams.js';

export const LOCALE = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8}){0,3}$/;

export interface SummariseRequest extends SummariseParams {
  stream: boolean;
  format: 'markdown' | 'html';
}

/** Validates summarise's query string; every problem at once as a 422 with field keys. */
export function parseSummariseParams(raw: Record<string, unknown>): SummariseRequest {
  const errors: Record<string, string[]> = {};
  const fail = (field: string, message: string) => void (errors[field] ??= []).push(message);

  const query = parseQuery(raw.query, fail);
  const threshold = parseThreshold(raw.threshold, fail);

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
