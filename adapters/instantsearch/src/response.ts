// Lore's search response → Algolia's, the shape InstantSearch's helper reads.
import { crop, markWords, matchedWords, matchLevel, parseSnippet, render, tagsOf, termsOf, type Part, type Tags } from './highlight.js';
import type { LoreQuery } from './request.js';
import type { AlgoliaHit, AlgoliaParams, AlgoliaResult, HighlightValue, LoreHit, LoreSearchResponse, SnippetValue } from './types.js';

/** Lore's fields on a hit; a meta key of the same name is read from `hit.meta` instead. */
const FIELDS = ['objectID', 'title', 'url', 'raw_text', 'meta', 'searchable_meta', 'collection_id', 'source_type', 'source_id', 'created_at', 'updated_at', 'score_breakdown'];

/** The result for a request that was not sent to Lore (empty query): no hits, no facets. */
export function emptyResult(indexName: string, params: AlgoliaParams, query: LoreQuery): AlgoliaResult {
  return {
    hits: [], nbHits: 0, page: query.page, nbPages: 0, hitsPerPage: query.hitsPerPage, processingTimeMS: 0,
    query: typeof params.query === 'string' ? params.query : '', params: paramString(params), index: indexName,
    facets: {}, exhaustiveFacetsCount: true, exhaustiveNbHits: true, exhaustive: { facetsCount: true, nbHits: true },
  };
}

/**
 * Algolia's result for one request. Lore counts hits among the candidates it ranks (at most
 * about 100 passages), so `exhaustiveNbHits` is what Lore says of its facet counts
 * (`facets_exhaustive`, computed over the same hits), and false when it said nothing.
 */
export function toAlgoliaResult(indexName: string, params: AlgoliaParams, query: LoreQuery, lore: LoreSearchResponse, ms: number): AlgoliaResult {
  const text = typeof params.query === 'string' ? params.query : '';
  const hits = query.hitsPerPage === 0 ? [] : presentHits(lore.data, params, text);
  const total = lore.meta.total;
  const exhaustive = lore.facets_exhaustive ?? false;
  return {
    hits,
    nbHits: total,
    page: query.page,
    nbPages: total === 0 || query.hitsPerPage === 0 ? 0 : lore.meta.last_page,
    hitsPerPage: query.hitsPerPage,
    processingTimeMS: Math.round(ms),
    query: text,
    params: paramString(params),
    index: indexName,
    facets: topValues(lore.facets ?? {}, query.facets, params.maxValuesPerFacet),
    exhaustiveFacetsCount: exhaustive,
    exhaustiveNbHits: exhaustive,
    exhaustive: { facetsCount: exhaustive, nbHits: exhaustive },
  };
}

/** Algolia's `params`: the request's parameters as a query string (arrays as JSON). */
export function paramString(params: AlgoliaParams): string {
  const out = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) out.set(key, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return out.toString();
}

/** Each requested facet's values, most frequent first, at most `maxValuesPerFacet` (Lore sends its top 100). */
function topValues(facets: Record<string, Record<string, number>>, keys: readonly string[], max: number | undefined): Record<string, Record<string, number>> {
  const limit = typeof max === 'number' && max > 0 ? max : Infinity;
  const out: Record<string, Record<string, number>> = {};
  for (const key of keys) {
    const values = Object.entries(facets[key] ?? {}).sort((a, b) => b[1] - a[1]).slice(0, limit);
    out[key] = Object.fromEntries(values);
  }
  return out;
}

/**
 * Lore's hits as Algolia hits: `objectID` (the entry id), `title`, `url` (source_url),
 * `raw_text`, the entry's other fields, `meta` and `searchable_meta` as they are, and each
 * meta key spread at the top level too, so a facet's attribute (`category`) is the hit's
 * attribute, as in Algolia. Lore's own fields win a name clash.
 */
export function presentHits(data: readonly LoreHit[], params: AlgoliaParams, query: string): AlgoliaHit[] {
  const tags = tagsOf(params.highlightPreTag, params.highlightPostTag);
  const snippets = data.map((hit) => parseSnippet(hit.snippet ?? ''));
  // One set of words for the page: a word Lore marked in one hit's passage is marked in every title.
  const terms = termsOf(query, snippets);
  const toHighlight = attributeList(params.attributesToHighlight);
  const toSnippet = attributeList(params.attributesToSnippet) ?? [{ name: 'raw_text', words: undefined }];
  const ellipsis = typeof params.snippetEllipsisText === 'string' ? params.snippetEllipsisText : '…';
  const retrieve = attributeList(params.attributesToRetrieve)?.map((a) => a.name);

  return data.map((lore, i) => {
    const hit: AlgoliaHit = { ...lore.meta, ...lore.searchable_meta, ...fieldsOf(lore) };
    const spread = Object.keys(hit).filter((k) => !FIELDS.includes(k));
    const passage = snippets[i]!;

    const highlighted: Record<string, HighlightValue | HighlightValue[]> = {};
    const toMark = !toHighlight || toHighlight.some((a) => a.name === '*') ? ['title', ...spread] : toHighlight.map((a) => a.name);
    // raw_text, when asked for, is the whole text marked; its passage is the snippet.
    const mark = (v: string) => highlight(markWords(v, terms), tags, query);
    for (const name of toMark) {
      const value = hit[name];
      if (typeof value === 'string') highlighted[name] = mark(value);
      else if (isStrings(value)) highlighted[name] = value.map(mark);
    }

    const snippeted: Record<string, SnippetValue | SnippetValue[]> = {};
    const toCut = toSnippet.some((a) => a.name === '*') ? ['raw_text', 'title', ...spread].map((name) => ({ name, words: undefined })) : toSnippet;
    for (const { name, words } of toCut) {
      const cut = (v: string) => {
        const parts = name === 'raw_text' ? passage : markWords(v, terms);
        return { value: render(words ? crop(parts, words, ellipsis) : parts, tags), matchLevel: matchLevel(parts, query) };
      };
      const value = hit[name];
      if (typeof value === 'string') snippeted[name] = cut(value);
      else if (isStrings(value)) snippeted[name] = value.map(cut);
    }

    const kept: AlgoliaHit = retrieve && !retrieve.includes('*')
      ? Object.fromEntries(Object.entries(hit).filter(([k]) => k === 'objectID' || retrieve.includes(k))) as AlgoliaHit
      : hit;
    return { ...kept, _highlightResult: highlighted, _snippetResult: snippeted };
  });
}

const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');

function fieldsOf(lore: LoreHit): AlgoliaHit {
  return {
    objectID: lore.id,
    title: lore.title ?? '',
    url: lore.source_url,
    raw_text: lore.raw_text,
    meta: lore.meta,
    searchable_meta: lore.searchable_meta,
    collection_id: lore.collection_id,
    source_type: lore.source_type,
    source_id: lore.source_id,
    created_at: lore.created_at,
    updated_at: lore.updated_at,
    score_breakdown: lore.score_breakdown,
  };
}

function highlight(parts: Part[], tags: Tags, query: string): HighlightValue {
  return {
    value: render(parts, tags),
    matchLevel: matchLevel(parts, query),
    matchedWords: matchedWords(parts),
    fullyHighlighted: parts.length > 0 && parts.every((p) => p.marked || !/[\p{L}\p{N}]/u.test(p.text)),
  };
}

/** `attributesTo…` as names (and the `:N` word count of a snippet); undefined when absent. */
function attributeList(value: string | string[] | undefined): { name: string; words: number | undefined }[] | undefined {
  if (value === undefined) return undefined;
  const list = typeof value === 'string' ? value.split(',') : value;
  return list.map((a) => {
    const m = /^(.*?)(?::(\d+))?$/.exec(a.trim())!;
    return { name: m[1]!, words: m[2] ? Math.max(1, Number(m[2])) : undefined };
  });
}
