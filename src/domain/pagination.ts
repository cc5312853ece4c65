/** Page request after clamping: never rejected, always usable. */
export interface PageRequest {
  page: number;
  perPage: number;
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  perPage: number;
}

/**
 * Clamps raw `page`/`per_page` query values: per_page to 1..max (default 15), page to ≥ 1.
 * Values that are not integers fall back to the defaults rather than failing the request.
 */
export function pageRequest(page: unknown, perPage: unknown, max = 100): PageRequest {
  const toInt = (value: unknown): number | undefined => {
    const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
    return Number.isFinite(n) ? Math.trunc(n) : undefined;
  };
  const p = toInt(page);
  const pp = toInt(perPage);
  return {
    page: p === undefined || p < 1 ? 1 : Math.min(p, 1_000_000),
    perPage: pp === undefined ? Math.min(15, max) : Math.max(1, Math.min(pp, max)),
  };
}

export function lastPage(total: number, perPage: number): number {
  return Math.max(1, Math.ceil(total / perPage));
}
