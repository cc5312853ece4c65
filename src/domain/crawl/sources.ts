/**
 * Content sources — the folder import and the website crawler — as the domain sees them: the
 * entries they write, the report of a run and how writes are batched (the port a site crawl
 * implements is in port.ts). `lore import` and `lore crawl` write through the API, the server's crawlers
 * through the entry service; both batch with `batchWriter`.
 */
import { createHash } from 'node:crypto';
import { LIMITS } from '../ingestion/entries.js';
import type { Anchors } from '../ingestion/text/sections.js';

/** The source type of a crawled page's entries. */
export const WEB_SOURCE_TYPE = 'web';

/** An entry as a source writes it. */
export interface SourceEntry {
  source_type: string;
  source_id: string;
  title: string;
  raw_text: string;
  source_url: string | null;
  /** `anchors`: the page's section ids (text/sections.ts). */
  meta: { content_sha256: string; anchors?: Anchors } & Record<string, string | null | Anchors>;
}

/**
 * Why a source cannot write an entry of this id and text within the API's limits, as its report
 * says it (`idName` names the id: "URL", "path"); null when it can.
 */
export function overLimits(sourceId: string, text: string, idName: string): string | null {
  if (sourceId.length > LIMITS.sourceId) return `${idName} longer than ${LIMITS.sourceId} characters`;
  if (text.length > LIMITS.rawText) return `longer than ${LIMITS.rawText.toLocaleString('en')} characters`;
  return null;
}

/**
 * The `meta.content_sha256` of an entry a source writes: a hash of what the entry shows (title,
 * text, link, section anchors, a section's page title), so a source sends again only what changed.
 */
export function entryHash(entry: { title: string; text: string; sourceUrl: string | null; anchors: Anchors | null; pageTitle?: string | null }): string {
  const hash = createHash('sha256')
    .update(entry.title).update('\0').update(entry.text).update('\0').update(entry.sourceUrl ?? '').update('\0')
    .update(entry.anchors ? JSON.stringify(entry.anchors) : '');
  // Only sections have one: a whole file's or page's hash stays what it was.
  if (entry.pageTitle) hash.update('\0').update(entry.pageTitle);
  return hash.digest('hex');
}

/** What a run did to the collection, and what it left out. */
export interface SourceReport {
  created: number;
  updated: number;
  unchanged: number;
  deleted: number;
  skipped: { path: string; reason: string }[];
  failed: { path: string; reason: string }[];
  notes: { path: string; note: string }[];
}

export function emptyReport(): SourceReport {
  return { created: 0, updated: 0, unchanged: 0, deleted: 0, skipped: [], failed: [], notes: [] };
}

/** What a collection holds of an entry a source wrote before. */
export interface StoredEntry {
  meta: Record<string, unknown>;
  sourceUrl: string | null;
}

/**
 * Writes one batch upsert: null when written, else why not and whether the entries, sent one
 * by one, may fare better (the batch was refused for what one of them holds).
 */
export type BatchUpsert = (entries: SourceEntry[]) => Promise<{ reason: string; split: boolean } | null>;

/** Entries a batch request carries, at most (the API's limit), and its body size, about. */
const BATCH_ENTRIES = 50;
const BATCH_BYTES = 4 * 1024 * 1024;

/**
 * Collects entries into batch upserts (at most 50 entries and about 4 MB a batch); a batch
 * refused for its entries is sent again entry by entry, so the report names the entries
 * refused. Written entries count as created or updated by whether `stored` held them.
 */
export function batchWriter(send: BatchUpsert, stored: ReadonlyMap<string, unknown>, report: SourceReport) {
  let batch: SourceEntry[] = [];
  let bytes = 0;
  async function upsert(entries: SourceEntry[]): Promise<void> {
    const refused = await send(entries);
    if (refused === null) {
      for (const entry of entries) stored.has(entry.source_id) ? report.updated++ : report.created++;
      return;
    }
    if (!refused.split || entries.length === 1) {
      for (const entry of entries) report.failed.push({ path: entry.source_id, reason: refused.reason });
      return;
    }
    for (const entry of entries) await upsert([entry]);
  }
  const flush = async () => {
    if (batch.length === 0) return;
    const entries = batch;
    batch = [];
    bytes = 0;
    await upsert(entries);
  };
  return {
    async write(entry: SourceEntry): Promise<void> {
      const size = Buffer.byteLength(JSON.stringify(entry));
      if (batch.length >= BATCH_ENTRIES || (batch.length > 0 && bytes + size > BATCH_BYTES)) await flush();
      batch.push(entry);
      bytes += size;
    },
    flush,
  };
}
