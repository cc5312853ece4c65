/**
 * Ingestion benchmark: SciFact (5,183 abstracts) through the HTTP API in batches of 50,
 * then the embedder alone on exactly the chunks the pipeline embedded. Prints chunks/s
 * for both, their ratio (the pipeline's share of the embedder's speed) and peak RSS.
 *
 *   npm run bench:ingest                      # PGlite in a temporary folder
 *   DATABASE_URL=postgres://… npm run bench:ingest
 *   npm run bench:ingest -- --docs 500 --concurrency 2
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { draftChunks } from '../src/domain/ingestion/pipeline.js';
import { startLore } from './harness.js';

const { values } = parseArgs({
  options: {
    docs: { type: 'string', default: '0' },
    concurrency: { type: 'string', default: '2' },
    data: { type: 'string', default: path.resolve('../shared/data/scifact/corpus.jsonl') },
  },
});

interface Doc { _id: string; title: string; text: string }
const docs = readFileSync(values.data, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Doc);
const limit = Number(values.docs) || docs.length;
const corpus = docs.slice(0, limit);
const batches: Doc[][] = [];
for (let i = 0; i < corpus.length; i += 50) batches.push(corpus.slice(i, i + 50));

const lore = await startLore('bench-ingest');
const { embedder, container, call } = lore;
const collection = (await call('POST', '/api/v1/collections', { name: 'scifact' })).data.id;
const toEntry = (d: Doc) => ({ title: d.title, raw_text: d.text, source_type: 'scifact', source_id: d._id });

// Warm up the model so neither side pays its first-run cost.
await embedder.embed(['warm up']);

// 1. The whole pipeline over HTTP.
const concurrency = Number(values.concurrency);
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < batches.length) {
      const batch = batches[next++]!;
      await call('POST', `/api/v1/collections/${collection}/entries/batch`, { entries: batch.map(toEntry) });
    }
  }),
);
const pipelineSeconds = (performance.now() - started) / 1000;
const [{ n: chunks }] = await container.db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks WHERE collection_id = $1', [collection]) as [{ n: number }];

// 2. The embedder alone, on the same chunk texts, batch by batch.
const texts = batches.map((batch) =>
  batch.flatMap((d) => {
    const e = toEntry(d);
    return draftChunks({ ...e, meta: {}, searchable_meta: {}, source_url: null }, embedder.model).map((c) => c.embedText);
  }),
);
const embedStarted = performance.now();
for (const batch of texts) await embedder.embed(batch);
const embedSeconds = (performance.now() - embedStarted) / 1000;
const embedded = texts.reduce((n, b) => n + b.length, 0);

const pipelineRate = chunks / pipelineSeconds;
const embedRate = embedded / embedSeconds;
const rows: [string, string][] = [
  ['backend', container.db.backend],
  ['documents', String(corpus.length)],
  ['chunks', String(chunks)],
  ['HTTP concurrency', String(concurrency)],
  ['pipeline (HTTP → stored)', `${pipelineRate.toFixed(1)} chunks/s  (${pipelineSeconds.toFixed(1)} s)`],
  ['embedder alone', `${embedRate.toFixed(1)} chunks/s  (${embedSeconds.toFixed(1)} s)`],
  ['pipeline / embedder', `${((pipelineRate / embedRate) * 100).toFixed(1)} %  (target ≥ 75 %)`],
  ['peak RSS', `${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`],
];
for (const [k, v] of rows) console.log(`${k.padEnd(26)} ${v}`);

await call('DELETE', `/api/v1/collections/${collection}`);
await lore.close();
