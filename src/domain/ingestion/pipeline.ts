import { createHash } from 'node:crypto';
import type { EntryFields, JsonObject, PreparedChunk, Scope } from '../model.js';
import { EmbedderError, type Embedder, type EntryRepository } from './port.js';
import { OverloadedError, UnavailableError } from '../errors.js';
import { chunkText } from './text/chunk.js';
import { analyze, detectLanguage, termFrequencies, type Language } from './text/tokenize.js';

/** Chunk size bound; all-MiniLM-L6-v2 reads at most 256 wordpieces, and title/headings prefix each chunk. */
const MAX_CHUNK_TOKENS = 200;
const OVERLAP_TOKENS = 40;

export interface Ingestion {
  /**
   * Chunks, tokenises and embeds the text of each entry. Chunks whose content hash is
   * already stored in the collection reuse that embedding. Throws UnavailableError when
   * the embedder fails (the caller then writes nothing). With `reuse: false`, every chunk
   * is embedded anew (`lore reindex --all`).
   */
  prepare(scope: Scope, collectionId: string, entries: readonly EntryFields[], options?: { reuse?: boolean }): Promise<PreparedChunk[][]>;
}

/**
 * Backpressure: texts waiting for the embedding model, at most (default 2,000: about a minute
 * of work for the bundled model on 2 cores). A write that would queue more is refused with 503
 * and Retry-After instead of holding its body and vectors in memory; one larger than the bound
 * is taken when nothing else waits, so no batch is refused forever.
 */
const DEFAULT_QUEUE_LIMIT = 2_000;
/** Texts the model embeds a second, for Retry-After (measured: 30–36 chunks/s on 2 cores). */
const TEXTS_PER_SECOND = 30;

export function createIngestion(deps: { embedder: Embedder; entries: EntryRepository; queueLimit?: number }): Ingestion {
  const { embedder, entries } = deps;
  const queueLimit = deps.queueLimit ?? DEFAULT_QUEUE_LIMIT;
  let queued = 0;
  const overloaded = () =>
    new OverloadedError(
      `Too many texts are waiting to be embedded (${queued}); nothing was written. Retry after the Retry-After seconds.`,
      Math.min(120, Math.max(1, Math.ceil(queued / TEXTS_PER_SECOND))),
    );

  return {
    async prepare(scope, collectionId, fields, options = {}) {
      // Refused before any work when one text an entry would already overflow: chunking and
      // tokenising a flood's batches only to refuse them took the CPU the model needed.
      // (An entry whose chunks are all stored already needs no text: under such load it waits too.)
      if (queued > 0 && queued + fields.length > queueLimit) throw overloaded();
      const drafts = fields.map((f) => draftChunks(f, embedder.model));
      const all = drafts.flat();
      const reusable =
        options.reuse === false ? new Map<string, Float32Array>() : await entries.reusableEmbeddings(scope, collectionId, [...new Set(all.map((d) => d.contentHash))]);
      const missing = all.filter((d) => !reusable.has(d.contentHash));
      // Identical new chunks (e.g. repeated boilerplate) are embedded once.
      const texts = [...new Map(missing.map((d) => [d.contentHash, d.embedText])).entries()];
      if (queued > 0 && queued + texts.length > queueLimit) throw overloaded();
      queued += texts.length;
      let vectors: Float32Array[];
      try {
        vectors = await embedder.embed(texts.map(([, text]) => text));
      } catch (error) {
        if (error instanceof EmbedderError) throw new UnavailableError('The embedding provider is unavailable; nothing was written.');
        throw error;
      } finally {
        queued -= texts.length;
      }
      texts.forEach(([hash], i) => reusable.set(hash, vectors[i]!));
      return drafts.map((chunks) =>
        chunks.map(({ embedText: _embedText, ...chunk }) => ({ ...chunk, embedding: reusable.get(chunk.contentHash)! })),
      );
    },
  };
}

export type DraftChunk = Omit<PreparedChunk, 'embedding'> & { embedText: string };

/**
 * Splits an entry into chunks. Each chunk is indexed and embedded together with the
 * entry's title, its heading trail and its searchable_meta values, so a match on the
 * title or a tag finds every chunk of the entry. `meta` is never indexed.
 */
export function draftChunks(fields: EntryFields, model: string): DraftChunk[] {
  const context = [fields.title ?? '', ...metaValues(fields.searchable_meta)].filter((s) => s.trim() !== '');
  let entryLanguage: Language | undefined;
  return chunkText(fields.raw_text, { maxTokens: MAX_CHUNK_TOKENS, overlapTokens: OVERLAP_TOKENS }).map((chunk) => {
    const trail = chunk.headings.length > 0 && !chunk.text.includes(chunk.headings.at(-1)!) ? chunk.headings.join(' › ') : '';
    const embedText = [...context, trail, chunk.text].filter((s) => s !== '').join('\n');
    // A chunk too short or too code-like to tell (a closing `}` of a JSON block) is in its
    // entry's language: analysed as undetermined it keeps stop words, and its few terms
    // make "the" of its title outscore every real match of a query that says "the".
    let language = detectLanguage(chunk.text);
    if (language === 'und') language = entryLanguage ??= detectLanguage([...context, fields.raw_text].join('\n'));
    const terms = analyze(embedText, language).terms;
    return {
      ordinal: chunk.index,
      text: chunk.text,
      headings: chunk.headings,
      language,
      contentHash: createHash('sha256').update(model).update('\0').update(embedText).digest('hex'),
      terms: termFrequencies(terms),
      length: terms.length,
      embedText,
    };
  });
}

/** The string forms of searchable_meta values: strings, numbers and arrays of strings (tags). */
function metaValues(meta: JsonObject): string[] {
  return Object.values(meta).flatMap((value) => {
    if (Array.isArray(value)) return value.filter((v) => typeof v === 'string' || typeof v === 'number').map(String);
    if (typeof value === 'string' || typeof value === 'number') return [String(value)];
    return [];
  });
}
