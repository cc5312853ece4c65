// The parts of Algolia's search API that InstantSearch speaks (what its helper sends a search
// client and reads back), and Lore's search response. Written out here so that the adapter
// has no dependencies; the unit test checks them against instantsearch.js's own types.

/** Algolia search parameters, as InstantSearch sends them (camelCase; arrays or strings). */
export interface AlgoliaParams {
  query?: string;
  page?: number;
  hitsPerPage?: number;
  facets?: string | string[];
  facetFilters?: string | ReadonlyArray<string | readonly string[]>;
  maxValuesPerFacet?: number;
  highlightPreTag?: string;
  highlightPostTag?: string;
  attributesToHighlight?: string | string[];
  attributesToSnippet?: string | string[];
  attributesToRetrieve?: string | string[];
  snippetEllipsisText?: string;
  typoTolerance?: boolean | string;
  analytics?: boolean;
  clickAnalytics?: boolean;
  /** Search for facet values. */
  facetName?: string;
  facetQuery?: string;
  maxFacetHits?: number;
  [other: string]: unknown;
}

/** One query of a multi-query: algoliasearch v3/v4 shape (`params`), or v5 shape (flat). */
export type AlgoliaRequest =
  | { indexName: string; params?: AlgoliaParams; type?: 'default' | 'facet'; facet?: string }
  | ({ indexName: string; type?: 'default' | 'facet'; facet?: string } & AlgoliaParams);

export interface HighlightValue {
  value: string;
  matchLevel: 'none' | 'partial' | 'full';
  matchedWords: string[];
  fullyHighlighted?: boolean;
}

export interface SnippetValue {
  value: string;
  matchLevel: 'none' | 'partial' | 'full';
}

export interface AlgoliaHit {
  objectID: string;
  _highlightResult?: Record<string, HighlightValue | HighlightValue[]>;
  _snippetResult?: Record<string, SnippetValue | SnippetValue[]>;
  [attribute: string]: unknown;
}

export interface AlgoliaResult {
  hits: AlgoliaHit[];
  nbHits: number;
  page: number;
  nbPages: number;
  hitsPerPage: number;
  processingTimeMS: number;
  query: string;
  params: string;
  index: string;
  facets: Record<string, Record<string, number>>;
  exhaustiveFacetsCount: boolean;
  exhaustiveNbHits: boolean;
  exhaustive: { facetsCount: boolean; nbHits: boolean };
}

export interface FacetHit {
  value: string;
  highlighted: string;
  count: number;
}

export interface FacetValuesResult {
  facetHits: FacetHit[];
  exhaustiveFacetsCount: boolean;
  processingTimeMS: number;
}

/** A hit of Lore's search: an entry, its best passage and its score (SPEC.md, presenters/search.ts). */
export interface LoreHit {
  id: string;
  collection_id: string;
  title: string | null;
  raw_text: string;
  meta: Record<string, unknown>;
  searchable_meta: Record<string, unknown>;
  source_url: string | null;
  source_type: string | null;
  source_id: string | null;
  created_at: string;
  updated_at: string;
  /** The best passage: HTML-escaped text with the query's words in <mark>. */
  snippet: string;
  score_breakdown: { similarity: number; final_score: number };
}

export interface LoreSearchResponse {
  data: LoreHit[];
  meta: { current_page: number; last_page: number; per_page: number; total: number };
  summarisable: boolean;
  /** Widget route only: the visitor's analytics session. */
  session_id?: string;
  /** With `facets[]=KEY`: value → count over the hits that pass the query and filters. */
  facets?: Record<string, Record<string, number>>;
  facets_exhaustive?: boolean;
}
