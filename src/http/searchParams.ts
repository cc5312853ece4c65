import { ValidationError } from '../domain/errors.js';
import { pageRequest } from '../domain/pagination.js';
import { MAX_FACETS } from '../domain/search/facets.js';
import type { MetaFilter } from '../domain/search/port.js';
import type { Boost, Sort, Strength } from '../domain/search/ranking.js';
import type { SearchParams } from '../domain/search/service.js';

const LIMITS = { query: 1_000, field: 100, value: 500, values: 50, metaKeys: 20, boosts: 3, sorts: 3 } as const;
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w|y)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1e3, m: 6e4, h: 3.6e6, d: 8.64e7, w: 6.048e8, y: 3.1536e10 };

/**
 * Validates the search query string (already parsed by qs, so `boost[0][field]` arrives as
 * an array of objects; a JSON array string is accepted too) into SearchParams. Every
 * problem is reported at once as a 422 with Laravel-style keys (`boost.0.scale`).
 */
export function parseSearchParams(raw: Record<string, unknown>): SearchParams {
  const errors: Record<string, string[]> = {};
  const fail = (field: string, message: string) => void (errors[field] ??= []).push(message);

  const query = parseQuery(raw.query, fail);
  const threshold = parseThreshold(raw.threshold, fail);

  const meta = parseMeta(raw.meta, fail);
  const boosts = list(raw.boost, 'boost', LIMITS.boosts, fail).map((b, i) => parseBoost(b, `boost.${i}`, fail));
  const sorts = list(raw.sort, 'sort', LIMITS.sorts, fail).map((s, i) => parseSort(s, `sort.${i}`, fail));
  if (raw.boost !== undefined && raw.sort !== undefined) {
    fail('boost', 'The boost field cannot be combined with sort.');
    fail('sort', 'The sort field cannot be combined with boost.');
  }

  const explain = parseFlag(raw.explain, 'explain', fail);
  const typos = parseFlag(raw.typo_tolerance, 'typo_tolerance', fail);
  const facets = parseFacets(raw.facets, fail);

  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  const { page, perPage } = pageRequest(raw.page, raw.per_page, 50);
  return {
    query,
    threshold,
    meta,
    boosts: boosts as Boost[],
    sorts: sorts as Sort[],
    page,
    perPage,
    explain: explain === true,
    // A search box sends what is typed: a query not ending in a space ends in the word being typed.
    typing: isTyping(raw.query),
    typos,
    ...(facets && { facets }),
  };
}

/** Whether a query ends in the word being typed (not in a space). */
function isTyping(query: unknown): boolean {
  return typeof query === 'string' && !/\s$/u.test(query);
}

/** An optional `true` / `false` parameter (undefined when absent). */
function parseFlag(value: unknown, name: string, fail: Fail): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true' || value === true) return true;
  if (value === 'false' || value === false) return false;
  fail(name, `The ${name} field must be true or false.`);
  return undefined;
}

export type Fail = (field: string, message: string) => void;

/** The required `query` parameter, trimmed and at most 1,000 characters (search and summarise). */
export function parseQuery(value: unknown, fail: Fail): string {
  const query = typeof value === 'string' ? value.trim() : '';
  if (value !== undefined && typeof value !== 'string') fail('query', 'The query field must be a string.');
  else if (query === '') fail('query', 'The query field is required.');
  else if (query.length > LIMITS.query) fail('query', `The query field must not be greater than ${LIMITS.query} characters.`);
  return query;
}

/** The `threshold` parameter: a number in [0, 1], default 0.4 (search and summarise). */
export function parseThreshold(value: unknown, fail: Fail): number {
  if (value === undefined) return 0.4;
  const t = typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (Number.isFinite(t) && t >= 0 && t <= 1) return t;
  fail('threshold', 'The threshold field must be a number between 0 and 1.');
  return 0.4;
}

/** An array parameter from qs (array, or object with index keys) or a JSON array string. */
function list(value: unknown, name: string, max: number, fail: Fail): Record<string, unknown>[] {
  if (value === undefined) return [];
  let items: unknown = value;
  if (typeof value === 'string') {
    try {
      items = JSON.parse(value);
    } catch {
      fail(name, `The ${name} field must be an array of objects (bracket notation or a JSON array).`);
      return [];
    }
  } else if (value && typeof value === 'object' && !Array.isArray(value)) {
    items = Object.values(value);
  }
  if (!Array.isArray(items)) {
    fail(name, `The ${name} field must be an array of objects.`);
    return [];
  }
  if (items.length > max) {
    fail(name, `The ${name} field must not have more than ${max} items.`);
    return [];
  }
  return items.map((item, i) => {
    if (item && typeof item === 'object' && !Array.isArray(item)) return item as Record<string, unknown>;
    fail(`${name}.${i}`, `The ${name}.${i} field must be an object.`);
    return {};
  });
}

/** The required `field` member of a boost or sort object. */
function field(obj: Record<string, unknown>, path: string, fail: Fail): string {
  const value = obj.field;
  if (typeof value !== 'string' || value.trim() === '') fail(`${path}.field`, `The ${path}.field field is required.`);
  else if (value.length > LIMITS.field) fail(`${path}.field`, `The ${path}.field field must not be greater than ${LIMITS.field} characters.`);
  else return value;
  return '';
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T | undefined, path: string, fail: Fail): T {
  if (value === undefined && fallback !== undefined) return fallback;
  if (value === undefined) fail(path, `The ${path} field is required.`);
  else if (!allowed.includes(value as T)) fail(path, `The selected ${path} is invalid; use one of: ${allowed.join(', ')}.`);
  return (value ?? fallback) as T;
}

function number(value: unknown, path: string, fail: Fail, options: { positive?: boolean } = {}): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (value === undefined) fail(path, `The ${path} field is required.`);
  else if (!Number.isFinite(n)) fail(path, `The ${path} field must be a number.`);
  else if (options.positive && n <= 0) fail(path, `The ${path} field must be greater than 0.`);
  return n;
}

function parseBoost(b: Record<string, unknown>, path: string, fail: Fail): Boost {
  const f = field(b, path, fail);
  const type = oneOf(b.type, ['recency', 'prefer_low', 'prefer_high', 'near_value'] as const, undefined, `${path}.type`, fail);
  const strength = oneOf<Strength>(b.strength, ['low', 'medium', 'high'], 'medium', `${path}.strength`, fail);
  if (!['recency', 'prefer_low', 'prefer_high', 'near_value'].includes(type)) return { type: 'recency', field: f, scaleMs: 1, strength };
  if (type === 'recency') {
    const scale = b.scale ?? '90d';
    const match = typeof scale === 'string' ? DURATION.exec(scale) : null;
    if (!match || Number(match[1]) <= 0) {
      fail(`${path}.scale`, `The ${path}.scale field must be a duration like 12h, 7d or 90d.`);
      return { type, field: f, scaleMs: 1, strength };
    }
    return { type, field: f, scaleMs: Number(match[1]) * UNIT_MS[match[2]!]!, strength };
  }
  const scale = number(b.scale, `${path}.scale`, fail, { positive: true });
  if (type === 'near_value') return { type, field: f, target: number(b.target, `${path}.target`, fail), scale, strength };
  return { type: type as 'prefer_low', field: f, scale, strength };
}

function parseSort(s: Record<string, unknown>, path: string, fail: Fail): Sort {
  return {
    field: field(s, path, fail),
    direction: oneOf(s.direction, ['asc', 'desc'] as const, undefined, `${path}.direction`, fail),
    type: oneOf(s.type, ['date', 'number', 'text'] as const, 'text', `${path}.type`, fail),
  };
}

/**
 * `facets[]=key` (or one `facets=key`) → the meta keys to count values of: each a key as meta
 * filters take them, at most MAX_FACETS once repeats are dropped. Undefined when absent.
 */
function parseFacets(value: unknown, fail: Fail): string[] | undefined {
  if (value === undefined) return undefined;
  const items = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(items)) {
    fail('facets', 'The facets field must be a list of meta keys (facets[]=key).');
    return undefined;
  }
  const keys = new Set<string>();
  items.forEach((key, i) => {
    if (typeof key !== 'string') fail(`facets.${i}`, `The facets.${i} field must be a string.`);
    else if (key === '' || key.length > LIMITS.field) fail(`facets.${i}`, `The facets.${i} field must be a meta key of 1 to ${LIMITS.field} characters.`);
    else keys.add(key);
  });
  if (keys.size > MAX_FACETS) fail('facets', `The facets field must not have more than ${MAX_FACETS} keys.`);
  return [...keys];
}

/** `meta[key]=v`, `meta[key][or][]=…`, `meta[key][and][]=…` → filters (keys ANDed). */
function parseMeta(value: unknown, fail: Fail): MetaFilter[] {
  if (value === undefined) return [];
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    fail('meta', 'The meta field must use the form meta[key]=value.');
    return [];
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > LIMITS.metaKeys) {
    fail('meta', `The meta field must not have more than ${LIMITS.metaKeys} keys.`);
    return [];
  }
  const filters: MetaFilter[] = [];
  for (const [key, v] of entries) {
    const path = `meta.${key}`;
    if (key.length > LIMITS.field) {
      fail(path, `The meta key must not be greater than ${LIMITS.field} characters.`);
      continue;
    }
    if (typeof v === 'string') {
      if (v.length > LIMITS.value) fail(path, `The ${path} field must not be greater than ${LIMITS.value} characters.`);
      else filters.push({ key, op: 'eq', values: [v] });
      continue;
    }
    const ops = v && typeof v === 'object' && !Array.isArray(v) ? Object.entries(v as Record<string, unknown>) : [];
    if (ops.length !== 1 || !['or', 'and'].includes(ops[0]![0])) {
      fail(path, `The ${path} field must be a value, or [or][] / [and][] lists of values.`);
      continue;
    }
    const [op, rawValues] = ops[0]! as ['or' | 'and', unknown];
    const values = typeof rawValues === 'string' ? [rawValues] : Array.isArray(rawValues) ? rawValues : Object.values(rawValues ?? {});
    if (values.length === 0 || values.length > LIMITS.values || !values.every((x) => typeof x === 'string' && x.length <= LIMITS.value)) {
      fail(`${path}.${op}`, `The ${path}.${op} field must be 1 to ${LIMITS.values} values of at most ${LIMITS.value} characters.`);
      continue;
    }
    filters.push({ key, op, values: values as string[] });
  }
  return filters;
}
