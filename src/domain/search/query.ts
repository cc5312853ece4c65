/** A search's query: its BM25 terms and language, and its embedding (kept for repeated queries). */
import { LRUCache } from 'lru-cache';
import { UnavailableError } from '../errors.js';
import { EmbedderError, type Embedder } from '../ingestion/port.js';
import { analyze, detectLanguage } from '../ingestion/text/tokenize.js';

/**
 * The query's BM25 terms and its language. A query is analysed in its detected language;
 * when that is unsure, in every language the collections hold (read only then: most
 * searches skip that statement), so stems match however the documents were stemmed. The
 * language is the detected one, else the collections' only one, else 'und'.
 */
export async function analyseQuery(query: string, collectionLanguages: () => Promise<string[]>): Promise<{ terms: string[]; language: string }> {
  const detected = detectLanguage(query);
  const languages = detected !== 'und' ? [detected] : await collectionLanguages();
  const analysed = languages.length > 0 ? languages : ['und'];
  return {
    terms: [...new Set(analysed.flatMap((lang) => analyze(query, lang).terms))],
    language: detected !== 'und' ? detected : languages.length === 1 ? languages[0]! : 'und',
  };
}

/**
 * Query embeddings by query text, `cacheSize` of them kept (0: none). A search box asks again
 * as the visitor types and pauses, and visitors ask the same popular questions: a repeated
 * query skips the model, which is most of a search's CPU. In-flight embeddings are shared;
 * failed ones are not kept. A failing embedder rejects with UnavailableError.
 */
export function queryEmbedder(embedder: Embedder, cacheSize: number): (query: string) => Promise<Float32Array> {
  const cache = cacheSize > 0 ? new LRUCache<string, Promise<Float32Array>>({ max: cacheSize }) : null;
  return function embedQuery(query) {
    const cached = cache?.get(query);
    if (cached) return cached;
    const embedding = embedder.embed([query]).then(
      ([vector]) => vector!,
      (error: unknown) => {
        if (cache?.peek(query) === embedding) cache.delete(query);
        if (error instanceof EmbedderError) throw new UnavailableError('The embedding provider is unavailable.');
        throw error;
      },
    );
    cache?.set(query, embedding);
    return embedding;
  };
}
