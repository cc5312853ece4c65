/**
 * Search latency: about 100,000 chunks built from SciFact (single sentences, then pairs and
 * triples of consecutive sentences, each an entry titled with its abstract's title),
 * ingested through the HTTP API; then `clients` concurrent keep-alive HTTP clients search
 * for `seconds` on loopback with the SciFact claims (default threshold, per_page 15).
 * Prints p50/p95/p99 latency and requests/s per backend, next to the floor: the query
 * embedding alone, and one client searching alone.
 *
 *   npm run bench:search                                  # PGlite and PostgreSQL
 *   npm run bench:search -- --backends pglite --chunks 20000 --seconds 10
 *
 * Corpus vectors are computed with the real model once and kept in bench/results/.cache
 * (about 150 MB); queries are always embedded by the model, never cached.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { createEmbedder } from '../src/container.js';
import { cachingEmbedder } from './embeddingCache.js';
import { freshDatabase, percentile, startLore } from './harness.js';

const { values } = parseArgs({
  options: {
    chunks: { type: 'string', default: '100000' },
    clients: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '30' },
    backends: { type: 'string', default: 'pglite,postgres' },
    pg: { type: 'string', default: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    data: { type: 'string', default: path.resolve('../shared/data/scifact') },
  },
});
const target = Number(values.chunks);
const clients = Number(values.clients);
const seconds = Number(values.seconds);

interface Doc { _id: string; title: string; text: string }
const jsonl = <T>(file: string): T[] => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as T);
const docs = jsonl<Doc>(path.join(values.data, 'corpus.jsonl'));
const claims = jsonl<{ text: string }>(path.join(values.data, 'queries.jsonl')).map((q) => q.text);

/** Entries of one sentence window each: all single sentences, then pairs, then triples. */
function windows(): { title: string; raw_text: string; source_type: string; source_id: string }[] {
  const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });
  const sentences = docs.map((d) => [...segmenter.segment(d.text)].map((s) => s.segment.trim()).filter(Boolean));
  const out: ReturnType<typeof windows> = [];
  for (let size = 1; out.length < target && size <= 8; size++) {
    docs.forEach((doc, d) => {
      const s = sentences[d]!;
      for (let i = 0; i + size <= s.length && out.length < target; i++) {
        out.push({ title: doc.title, raw_text: s.slice(i, i + size).join(' '), source_type: `w${size}`, source_id: `${doc._id}:${i}` });
      }
    });
  }
  return out;
}

const config = loadConfig({ ...process.env, LORE_LOG_LEVEL: 'silent', DATABASE_URL: undefined });
const model = await createEmbedder(config);
const embedder = cachingEmbedder(model, path.resolve('bench/results/.cache/search-corpus'));
const corpus = windows();
const stats = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99) };
};
const ms = (x: number) => `${x.toFixed(1)} ms`;

// The floor: embedding one query at a time, as a search does.
await model.embed(['warm up']);
const embedTimes: number[] = [];
for (const q of claims.slice(0, 300)) {
  const started = performance.now();
  await model.embed([q]);
  embedTimes.push(performance.now() - started);
}
const floor = stats(embedTimes);
console.error(`query embedding alone: p50 ${ms(floor.p50)}, p95 ${ms(floor.p95)}`);

interface Row { backend: string; chunks: number; ingestSeconds: number; single: ReturnType<typeof stats>; load: ReturnType<typeof stats>; rps: number; requests: number; failures: number }
const rows: Row[] = [];

for (const backend of values.backends.split(',')) {
  const databaseUrl = backend === 'postgres' ? await freshDatabase(values.pg, 'lore_bench_search') : undefined;
  embedder.enabled = true;
  const lore = await startLore(`bench-search-${backend}`, { databaseUrl, embedder });
  const collection = (await lore.call('POST', '/api/v1/collections', { name: 'scifact-sentences' })).data.id;
  const ingestStarted = performance.now();
  let next = 0;
  let done = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (next < corpus.length) {
        const batch = corpus.slice(next, next + 50);
        next += 50;
        await lore.call('POST', `/api/v1/collections/${collection}/entries/batch`, { entries: batch });
        done += batch.length;
        if (done % 10_000 < 50) console.error(`${backend}: ${done} entries (${((performance.now() - ingestStarted) / 1000).toFixed(0)} s)`);
      }
    }),
  );
  const ingestSeconds = (performance.now() - ingestStarted) / 1000;
  embedder.save();
  embedder.enabled = false;
  const [{ n: chunks }] = (await lore.container.db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks')) as [{ n: number }];
  const integration = (await lore.call('POST', '/api/v1/integrations', { type: 'search_box', name: 'bench', collection_ids: [collection] })).data.id;
  const paths = claims.map((q) => `/api/v1/integrations/${integration}/search?query=${encodeURIComponent(q)}`);

  // One client alone (after a warm-up), then the concurrent load.
  for (const p of paths.slice(300, 350)) await fetch(lore.url + p, { headers: { authorization: `Bearer ${lore.token}` } });
  const singleTimes: number[] = [];
  for (const p of paths.slice(0, 300)) {
    const started = performance.now();
    const response = await fetch(lore.url + p, { headers: { authorization: `Bearer ${lore.token}` } });
    await response.arrayBuffer();
    singleTimes.push(performance.now() - started);
  }
  const loaded = await new Promise<{ latencies: number[]; failures: number }>((resolve, reject) => {
    const child = fork(fileURLToPath(new URL('./loadClient.ts', import.meta.url)), { execArgv: ['--import', 'tsx'] });
    child.once('message', (result) => resolve(result as { latencies: number[]; failures: number }));
    child.once('error', reject);
    child.send({ url: lore.url, token: lore.token, paths, clients, seconds });
  });
  rows.push({
    backend,
    chunks,
    ingestSeconds,
    single: stats(singleTimes),
    load: stats(loaded.latencies),
    rps: loaded.latencies.length / seconds,
    requests: loaded.latencies.length,
    failures: loaded.failures,
  });
  console.error(`${backend} done`);
  await lore.close();
}

console.log(`\nsearch latency, ${clients} clients × ${seconds} s on loopback, ${claims.length} SciFact claims in turn (default threshold, per_page 15)`);
console.log(`query embedding alone (the floor): p50 ${ms(floor.p50)}, p95 ${ms(floor.p95)}, p99 ${ms(floor.p99)}\n`);
console.log(`${'backend'.padEnd(9)} ${'chunks'.padStart(7)}  ${'1 client p50 / p95'.padEnd(20)}  ${`${clients} clients p50 / p95 / p99`.padEnd(28)} ${'req/s'.padStart(7)}  errors  ingest`);
for (const r of rows) {
  console.log(
    `${r.backend.padEnd(9)} ${String(r.chunks).padStart(7)}  ${`${r.single.p50.toFixed(1)} / ${r.single.p95.toFixed(1)} ms`.padEnd(20)}  ` +
      `${`${r.load.p50.toFixed(1)} / ${r.load.p95.toFixed(1)} / ${r.load.p99.toFixed(1)} ms`.padEnd(28)} ${r.rps.toFixed(1).padStart(7)}  ${String(r.failures).padStart(6)}  ${r.ingestSeconds.toFixed(0)} s`,
  );
}
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/search.json', JSON.stringify({ clients, seconds, floor, rows }, null, 2));
