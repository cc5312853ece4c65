import type { Entry } from '../model.js';

/** What boosts and sorts read of an entry. */
export type RankingFields = Pick<Entry, 'meta' | 'searchable_meta'>;

/** Boosts adjust relevance; sorts replace it (SPEC.md "Search"). */
export type Boost =
  | { type: 'recency'; field: string; scaleMs: number; strength: Strength }
  | { type: 'prefer_low' | 'prefer_high'; field: string; scale: number; strength: Strength }
  | { type: 'near_value'; field: string; target: number; scale: number; strength: Strength };
export type Strength = 'low' | 'medium' | 'high';
export interface Sort {
  field: string;
  direction: 'asc' | 'desc';
  type: 'date' | 'number' | 'text';
}

export interface Ranked {
  entryId: string;
  fields: RankingFields;
  chunkId: number;
  similarity: number;
  final: number;
}

/**
 * How much of the score a boost may move: final = relevance × (1 − w + w × factor), where
 * factor ∈ [0, 1] says how well the entry fits the boost. Relevance stays in charge.
 */
export const STRENGTH: Record<Strength, number> = { low: 0.15, medium: 0.3, high: 0.5 };

/** Value of a boost/sort field: `meta` first, then `searchable_meta`; undefined when absent. */
export function fieldValue(entry: RankingFields, field: string): unknown {
  if (Object.hasOwn(entry.meta, field)) return entry.meta[field];
  if (Object.hasOwn(entry.searchable_meta, field)) return entry.searchable_meta[field];
  return undefined;
}

function asNumber(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

function asDate(value: unknown): number | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const t = typeof value === 'number' ? value : Date.parse(value);
  return Number.isFinite(t) ? t : undefined;
}

/** Half-life decay: 1 at distance 0, 0.5 at `scale`, towards 0 beyond. */
const decay = (distance: number, scale: number) => Math.pow(0.5, Math.max(0, distance) / scale);

/**
 * Fit of an entry to one boost, in [0, 1]. An entry without a usable value for the field
 * gets 0: it keeps its relevance weighted down by the boost's strength, like the worst fit.
 */
export function boostFactor(entry: RankingFields, boost: Boost, now = Date.now()): number {
  const raw = fieldValue(entry, boost.field);
  if (boost.type === 'recency') {
    const t = asDate(raw);
    return t === undefined ? 0 : decay(now - t, boost.scaleMs);
  }
  const value = asNumber(raw);
  if (value === undefined) return 0;
  switch (boost.type) {
    case 'prefer_low':
      return decay(value, boost.scale);
    case 'prefer_high':
      return 1 - decay(value, boost.scale);
    case 'near_value':
      return decay(Math.abs(value - boost.target), boost.scale);
  }
}

export function applyBoosts<T extends Ranked>(items: T[], boosts: readonly Boost[], now = Date.now()): T[] {
  return items
    .map((item) => {
      let final = item.similarity;
      for (const boost of boosts) {
        const w = STRENGTH[boost.strength];
        final *= 1 - w + w * boostFactor(item.fields, boost, now);
      }
      return { ...item, final };
    })
    .sort((a, b) => b.final - a.final);
}

/**
 * Orders by the sort fields in turn; entries missing a field (or with a value that does
 * not parse as the sort's type) come after those that have it, in either direction, and
 * ties fall back to relevance.
 */
export function applySorts<T extends Ranked>(items: T[], sorts: readonly Sort[]): T[] {
  const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
  const key = (entry: RankingFields, sort: Sort): number | string | undefined => {
    const raw = fieldValue(entry, sort.field);
    if (sort.type === 'date') return asDate(raw);
    if (sort.type === 'number') return asNumber(raw);
    return typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : undefined;
  };
  return [...items].sort((a, b) => {
    for (const sort of sorts) {
      const x = key(a.fields, sort);
      const y = key(b.fields, sort);
      if (x === undefined && y === undefined) continue;
      if (x === undefined) return 1;
      if (y === undefined) return -1;
      const order = typeof x === 'string' || typeof y === 'string' ? collator.compare(String(x), String(y)) : x - y;
      if (order !== 0) return sort.direction === 'asc' ? order : -order;
    }
    return b.final - a.final;
  });
}
