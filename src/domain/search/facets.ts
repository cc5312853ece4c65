/**
 * Facet counts: for each key asked, how many of a search's ranked entries hold each value of
 * it — what a refinement list shows beside the hits.
 */
import type { RankingFields } from './ranking.js';

/** Keys a search may count values of at most. */
export const MAX_FACETS = 5;
/** Values a facet shows at most: the most frequent, then the first by value. */
export const FACET_VALUES = 100;

/** Key → value → number of entries holding it. */
export type FacetCounts = Record<string, Record<string, number>>;

/**
 * The values of `key` an entry holds, read from `meta` and `searchable_meta` together as
 * metadata filters match them: a string as it is, a number or boolean as its String(), each
 * such element of an array; objects, null and nested arrays hold none. Own keys only, so a key
 * like `constructor` is the entry's, never the object prototype's.
 */
export function facetValues(entry: RankingFields, key: string): Set<string> {
  const values = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === 'string') values.add(value);
    else if (typeof value === 'number' || typeof value === 'boolean') values.add(String(value));
  };
  for (const meta of [entry.meta, entry.searchable_meta]) {
    if (!Object.hasOwn(meta, key)) continue;
    const value = meta[key];
    if (Array.isArray(value)) value.forEach(add);
    else add(value);
  }
  return values;
}

/**
 * For each key, the number of `entries` holding each of its values (an entry counts once a
 * value, whichever of its metadata holds it), at most FACET_VALUES of them: the highest counts
 * first, ties by value in code-unit order, so the cut is the same from one search to the next.
 * A key no entry holds counts nothing (`{}`).
 */
export function countFacets(entries: Iterable<RankingFields>, keys: readonly string[]): FacetCounts {
  const counts = keys.map(() => new Map<string, number>());
  for (const entry of entries) {
    keys.forEach((key, i) => {
      for (const value of facetValues(entry, key)) counts[i]!.set(value, (counts[i]!.get(value) ?? 0) + 1);
    });
  }
  // Object.fromEntries defines own properties, so a key or value like `__proto__` is kept as data.
  return Object.fromEntries(keys.map((key, i) => [key, Object.fromEntries(top(counts[i]!))]));
}

function top(counts: Map<string, number>): [string, number][] {
  return [...counts].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0)).slice(0, FACET_VALUES);
}
