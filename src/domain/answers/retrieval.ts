/**
 * The passages an answer is written from: search's ranking of the question (and, in chat, of
 * the question with the conversation's earlier one), with a bonus for where the visitor is.
 */
import type { Integration, Scope } from '../model.js';
import type { QuestionTerm } from './port.js';
import type { SearchRepository, TermMatch } from '../search/port.js';
import type { Ranked } from '../search/ranking.js';
import { isEvidence, passageText, type EvidenceQuery } from '../search/evidence.js';
import { typoTolerance, type Passage, type SearchService } from '../search/service.js';

export interface RetrieveParams {
  /** The question; for chat, earlier context may follow as `context`. */
  query: string;
  /** The question's language, when the query text (stripped of scaffolding) tells it worse (search's RankParams). */
  language?: string;
  /** More text to search with (a conversation's earlier question); an entry's best score across queries counts. */
  context?: string;
  /** The page the visitor is on: its entries are candidates whatever the words, and rank higher. */
  page?: PageContext;
  threshold: number;
  limit: number;
}

/** The page a chat visitor is on (the chat's `context`). */
export interface PageContext {
  url: string;
  title?: string;
}

/**
 * What a passage gains for being where the visitor is: the very section they have open (the
 * page URL's fragment), the page, or the page's part of the site (its folder). Added to the
 * similarity for ordering and the threshold; enough to put the visitor's page first among
 * passages about as relevant, not to put an unrelated page over a relevant one.
 */
const PAGE_BONUS = { section: 0.2, page: 0.1, area: 0.04 } as const;
/** Chunks of the visitor's page scored with every question. */
const PAGE_CHUNKS = 40;

/** A URL as a page: without fragment, query and trailing slashes (as the entries_page index keys entries). */
export function pageKey(url: string): string {
  return url.split('#')[0]!.split('?')[0]!.replace(/\/+$/, '');
}

/** The bonus of an entry at `sourceUrl` for a visitor on `page` (0 when elsewhere). */
export function pageBonus(page: PageContext, sourceUrl: string | null): number {
  if (!sourceUrl) return 0;
  if (page.url.includes('#') && sourceUrl === page.url) return PAGE_BONUS.section;
  const key = pageKey(page.url);
  const entryKey = pageKey(sourceUrl);
  if (entryKey === key) return PAGE_BONUS.page;
  // The page's folder, when it is more than the site's root: /docs/widgets/embed → /docs/widgets/.
  const folder = key.slice(0, key.lastIndexOf('/') + 1);
  const path = /^[a-z][a-z0-9+.-]*:\/\/[^/]*(\/.*)$/i.exec(folder)?.[1] ?? '/';
  return path !== '/' && entryKey.startsWith(folder) ? PAGE_BONUS.area : 0;
}

/** What answers are retrieved from: collections, and whether a question's typos are corrected there. */
export interface Corpus {
  collectionIds: readonly string[];
  typos: boolean;
}

/** The corpus of an integration: its collections, typos corrected as its searches correct them. */
export function integrationCorpus(integration: Integration): Corpus {
  return { collectionIds: integration.collection_ids, typos: typoTolerance(integration) };
}

/** What an answer is written from. */
export interface Retrieved {
  /** The best passages an answer may rest on, best first (none: the question is not covered). */
  passages: Passage[];
  /**
   * When there are none: the passages search found close to the question (similarity at the
   * threshold) that are not evidence an answer may rest on, closest first, at most CLOSEST.
   * Offered as links, never quoted (docs/ANSWERS.md "Evidence in every language").
   */
  closest: Passage[];
  /**
   * The language the question was read in: its own, else its collections' when they are in
   * one ('und' when neither tells). A question too short for its language to be told ("Was
   * machen einige Gemeinschaftsapotheken?") is still read in its German collections' language.
   */
  language: string;
  /** The question's terms its collections hold, with their idf there (search's matches; AnswerRequest `terms`). */
  terms: QuestionTerm[];
}

/** Closest passages offered when a question is not covered. */
const CLOSEST = 3;

/**
 * The best `limit` passages for answering, from a corpus the caller may read (an integration
 * already checked active, or collections checked against a credential). Not recorded as a
 * search. Throws UnavailableError when the embedder fails.
 */
export type Retrieve = (scope: Scope, corpus: Corpus, params: RetrieveParams) => Promise<Retrieved>;

export function createRetrieval(deps: { search: Pick<SearchService, 'rank' | 'passages'>; pageChunks: SearchRepository['pageChunks'] }): Retrieve {
  const { search } = deps;
  return async (scope, corpus, params) => {
    const { page } = params;
    const pageChunks = page ? await deps.pageChunks(scope, corpus.collectionIds, pageKey(page.url), PAGE_CHUNKS) : [];
    // With a page, candidates down to what the largest bonus can lift over the threshold.
    // Questions are asked whole (no word being typed); their typos are corrected as the corpus says (an integration's searches do).
    const base = { threshold: page ? Math.max(0, params.threshold - PAGE_BONUS.section) : params.threshold, meta: [], boosts: [], sorts: [], typos: corpus.typos, language: params.language };
    const queries = params.context ? [params.query, `${params.context} ${params.query}`] : [params.query];
    const rankings = await Promise.all(queries.map((query) => search.rank(scope, corpus.collectionIds, { ...base, query }, { extraChunkIds: pageChunks })));
    const best = new Map<string, { ranked: Ranked; evidence: EvidenceQuery }>();
    for (const { ranked, evidence } of rankings) {
      for (const r of ranked) if ((best.get(r.entryId)?.ranked.similarity ?? -1) < r.similarity) best.set(r.entryId, { ranked: r, evidence });
    }
    const terms = [...new Set(rankings.flatMap((r) => r.terms))];
    const ordered = [...best.values()].map((b) => b.ranked).sort((a, b) => b.similarity - a.similarity);
    // Only passages an answer may rest on (evidence.ts): where the model's cosine alone says
    // little, those holding enough of the question's words. Read a few more than needed when
    // some may be left out, or when the visitor's page re-orders them.
    const gated = rankings.some((r) => r.evidence.floor > 0);
    const read = await search.passages(scope, ordered.slice(0, params.limit * (page || gated ? 3 : 1)), terms);
    const similarity = (p: Passage) => best.get(p.hit.id)!.ranked.similarity;
    // Where the visitor is counts as closeness for the evidence gate too ("What is new here?"
    // on the changelog holds few of its words): as much as it counts for the threshold.
    const closeness = (p: Passage) => similarity(p) + (page ? pageBonus(page, p.hit.source_url) : 0);
    // Evidence reads each passage's whole entry (up to 8,000 characters: milliseconds of
    // analysis each), so without a page, whose bonus re-orders them, the first `limit` that
    // are evidence are all that is read.
    const candidates: Passage[] = [];
    for (const p of read) {
      if (!page && candidates.length >= params.limit) break;
      if (!gated || isEvidence(best.get(p.hit.id)!.evidence, passageText(p.text, p.hit.raw_text), closeness(p))) candidates.push(p);
    }
    const passages = page
      ? candidates
        .map((passage) => ({ passage, score: closeness(passage) }))
        .filter((c) => c.score >= params.threshold)
        .sort((a, b) => b.score - a.score)
        .slice(0, params.limit)
        .map((c) => c.passage)
      : candidates;
    // Close by the model's cosine, yet not evidence: what a visitor may look at, not what to quote.
    const closest = passages.length > 0 ? [] : read.filter((p) => similarity(p) >= params.threshold).slice(0, CLOSEST);
    return { passages, closest, language: rankings[0]!.evidence.language, terms: matchedTerms(rankings.flatMap((r) => r.matches)) };
  };
}

/** Each term the rankings matched once, with its idf (a term's idf is the same in every slot it matched). */
function matchedTerms(matches: readonly TermMatch[]): QuestionTerm[] {
  const idf = new Map<string, number>();
  for (const m of matches) idf.set(m.term, Math.max(idf.get(m.term) ?? 0, m.idf));
  return [...idf].map(([term, value]) => ({ term, idf: value }));
}
