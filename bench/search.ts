/**
 * Search at scale. Builds `--chunks` chunks from SciFact (single sentences, then pairs and
 * triples of consecutive sentences, each an entry titled with its abstract's title; past
 * 100,000, copies of those marked with a word `xk<n>`, their vectors the originals' jittered),
 * ingests them through the HTTP API, then runs Lore's own server (`lore serve`, a child
 * process, the query embedded by the real model) and measures on loopback:
 *
 * - the floor: the query embedding alone;
 * - one client: judged SciFact claims one after another (latency, the stages from the
 *   Server-Timing header, nDCG@10 of the distinct abstracts found);
 * - `--clients` concurrent keep-alive clients for `--seconds` (latency, searches/s);
 * - peak memory of Lore (VmHWM) and of PostgreSQL (summed Pss), bytes on disk per chunk;
 * - on PostgreSQL, a baseline on the same chunks as a user might build it by hand:
 *   `ts_rank` over a GIN-indexed tsvector and pgvector HNSW, fused by reciprocal rank
 *   (k = 60), the query embedded by the same model in the bench process (no HTTP).
 *
 *   npm run bench:search                                         # 100k chunks, both backends
 *   npm run bench:search -- --chunks 10000 --backends postgres --reuse
 *   npm run bench:search -- --chunks 1000000 --backends postgres --baseline off --reuse
 *   npm run bench:search -- --forms --backends postgres --baseline off --reuse   # claims as typed (bench:typing's forms)
 *
 * Collections as users have them (issue 35's probe):
 *
 *   npm run bench:search -- --corpus windows --embedder hash --fresh --backends postgres --baseline off
 *
 * `--corpus windows`: every window of every length of each abstract (1 sentence, 2, … the whole
 * abstract), the judged abstracts first, so each sentence is in many entries and each title
 * in dozens — as repeated navigation, footers and versioned pages are on a crawled site.
 * `--embedder hash`: vectors from an OpenAI-compatible server in this process that hashes
 * words into 384 dimensions (~0.1 ms): no model time, so what is measured is Lore's own path
 * and the embedding server's round trip (Lore runs with LORE_EMBEDDINGS=openai).
 * `--fresh`: a new database, searched right after the load (no reuse, no manual ANALYZE).
 *
 * `--reuse` keeps the ingested data between runs (PostgreSQL database lore_bench_search_<N>,
 * PGlite folder bench/results/.data/pglite-<N>; other corpora and embedders add their names).
 * Corpus vectors are computed with the real model once and kept in bench/results/.cache;
 * queries are always embedded by the model.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createContainer, createEmbedder } from '../src/container.js';
import { hashSecret } from '../src/domain/access/credentials.js';
import type { Embedder } from '../src/domain/ingestion/port.js';
import { ensureVectorIndex, vectorIndexName } from '../src/storage/migrate.js';
import { openPostgres } from '../src/storage/postgres.js';
import { vectorLiteral } from '../src/storage/sql.js';
import { cachingEmbedder } from './embeddingCache.js';
import { serveHashEmbeddings } from './hashEmbedder.js';
import { freshDatabase, MASTER_KEY, percentile, postgresCpuSeconds, postgresMemory, serveLore, serverTimings, startLore } from './harness.js';
import { jsonl } from './jsonl.js';
import { qrels as readQrels } from './relevance.js';
import { FORMS, forms } from './typedForms.js';

const { values } = parseArgs({
  options: {
    chunks: { type: 'string', default: '100000' },
    clients: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '30' },
    warmup: { type: 'string', default: '3' },
    single: { type: 'string', default: '300' },
    backends: { type: 'string', default: 'postgres,pglite' },
    baseline: { type: 'string', default: 'on' },
    reuse: { type: 'boolean', default: false },
    forms: { type: 'boolean', default: false },
    corpus: { type: 'string', default: 'sentences' },
    embedder: { type: 'string', default: 'model' },
    fresh: { type: 'boolean', default: false },
    pg: { type: 'string', default: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    data: { type: 'string', default: path.resolve('../shared/data/scifact') },
  },
});
if (!['sentences', 'windows'].includes(values.corpus)) throw new Error('--corpus must be sentences or windows');
if (!['model', 'hash'].includes(values.embedder)) throw new Error('--embedder must be model or hash');
if (values.fresh && values.reuse) throw new Error('--fresh searches a database just loaded: not with --reuse');
const target = Number(values.chunks);
/** What names this run's stored data and results: the size, and the corpus and embedder when not the defaults. */
const variant = [String(target), ...(values.corpus === 'windows' ? ['windows'] : []), ...(values.embedder === 'hash' ? ['hash'] : [])].join('-');
const clients = Number(values.clients);
const seconds = Number(values.seconds);
const warmup = Number(values.warmup);
const PER_PAGE = 15;
/** Windows past this many are copies (the corpus cache holds this many distinct texts). */
const DISTINCT = 100_000;
/** Corpora larger than this build their HNSW index after the load (PostgreSQL). */
const BULK = 200_000;

interface Doc { _id: string; title: string; text: string }
const docs = jsonl<Doc>(path.join(values.data, 'corpus.jsonl'));
/**
 * The claims as asked: as written, or with --forms as typed into a search box — each claim in
 * one of bench:typing's four forms in turn (as written, last word cut, a typo, both), so a
 * quarter of the searches expand a prefix, a quarter correct a typo and a quarter do both.
 */
const claims = jsonl<{ _id: string; text: string }>(path.join(values.data, 'queries.jsonl')).map((c, i) =>
  values.forms ? { ...c, text: forms(c._id, c.text, 'en')[FORMS[i % FORMS.length]!]! } : c,
);
const qrels = readQrels(path.join(values.data, 'qrels/train.tsv'));
const judged = claims.filter((c) => qrels.has(c._id)).slice(0, Number(values.single));

type Window = { title: string; raw_text: string; source_type: string; source_id: string };

/** Entries of one sentence window each (`--corpus`), then marked copies past DISTINCT. */
function corpus(n: number): Window[] {
  const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });
  const sentences = docs.map((d) => [...segmenter.segment(d.text)].map((s) => s.segment.trim()).filter(Boolean));
  const base = values.corpus === 'windows' ? everyWindow(n, sentences) : shortWindows(n, sentences);
  const out = [...base];
  for (let copy = 1; out.length < n && base.length > 0; copy++) {
    for (const w of base) {
      if (out.length >= n) break;
      out.push({ ...w, raw_text: `${w.raw_text} xk${copy}`, source_id: `${w.source_id}:${copy}` });
    }
  }
  return out;
}

/** The default corpus: all single sentences, then pairs, then triples… (up to 8), until `n` (at most DISTINCT). */
function shortWindows(n: number, sentences: string[][]): Window[] {
  const base: Window[] = [];
  const distinct = Math.min(n, DISTINCT);
  for (let size = 1; base.length < distinct && size <= 8; size++) {
    docs.forEach((doc, d) => {
      const s = sentences[d]!;
      for (let i = 0; i + size <= s.length && base.length < distinct; i++) {
        base.push({ title: doc.title, raw_text: s.slice(i, i + size).join(' '), source_type: `w${size}`, source_id: `${doc._id}:${size}:${i}` });
      }
    });
  }
  return base;
}

/**
 * `--corpus windows`: each abstract's every window (every start, every length up to the whole
 * abstract), abstracts with judged claims first, until `n` (at most DISTINCT).
 */
function everyWindow(n: number, sentences: string[][]): Window[] {
  const judgedDocs = new Set([...qrels.values()].flatMap((rel) => [...rel.keys()]));
  const order = docs.map((_, d) => d).sort((a, b) => Number(judgedDocs.has(docs[b]!._id)) - Number(judgedDocs.has(docs[a]!._id)));
  const out: Window[] = [];
  const distinct = Math.min(n, DISTINCT);
  for (const d of order) {
    const doc = docs[d]!;
    const s = sentences[d]!;
    for (let size = 1; size <= s.length; size++) {
      for (let i = 0; i + size <= s.length; i++) {
        if (out.length >= distinct) return out;
        out.push({ title: doc.title, raw_text: s.slice(i, i + size).join(' '), source_type: `w${size}`, source_id: `${doc._id}:${size}:${i}` });
      }
    }
  }
  return out;
}

const COPY = / xk(\d+)\b/;

/** Embeds a marked copy as its original (from the cache), jittered deterministically and renormalised. */
function copyingEmbedder(inner: Embedder): Embedder {
  return {
    model: inner.model,
    dimensions: inner.dimensions,
    async embed(texts, signal) {
      const vectors = await inner.embed(texts.map((t) => t.replace(COPY, '')), signal);
      return vectors.map((v, i) => {
        if (!COPY.test(texts[i]!)) return v;
        let seed = createHash('sha1').update(texts[i]!).digest().readUInt32LE(0);
        const random = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32) - 0.5;
        const out = Float32Array.from(v, (x) => x + 0.03 * random());
        const norm = Math.hypot(...out);
        return out.map((x) => x / norm);
      });
    },
  };
}

// `--embedder hash`: Lore (here and `lore serve`) embeds through bench/hashEmbedder.ts's server.
if (values.embedder === 'hash') await serveHashEmbeddings();

const config = loadConfig({ ...process.env, LORE_LOG_LEVEL: 'silent', DATABASE_URL: undefined });
const model = await createEmbedder(config);
const cached = cachingEmbedder(model, path.resolve('bench/results/.cache/search-corpus'));
// Hashed vectors cost less to compute than to cache (and must not enter the model's cache).
if (values.embedder === 'hash') cached.enabled = false;
const stats = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99) };
};
const median = (xs: number[]) => stats(xs).p50;
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

/** nDCG@10 over the distinct abstracts of a ranked list of source ids (`<doc>:…`). */
function ndcg(claimId: string, sourceIds: readonly string[]): number {
  const rel = qrels.get(claimId)!;
  const seen = [...new Set(sourceIds.map((s) => s.split(':')[0]!))].slice(0, 10);
  const dcg = seen.reduce((sum, d, i) => sum + (rel.get(d) ?? 0) / Math.log2(i + 2), 0);
  const ideal = [...rel.values()].sort((a, b) => b - a).slice(0, 10).reduce((sum, g, i) => sum + g / Math.log2(i + 2), 0);
  return ideal > 0 ? dcg / ideal : 0;
}

// The floor: embedding one query at a time, as a search does.
await model.embed(['warm up']);
const embedTimes: number[] = [];
for (const c of judged) {
  const started = performance.now();
  await model.embed([c.text]);
  embedTimes.push(performance.now() - started);
}
const floor = stats(embedTimes);
console.error(`query embedding alone: p50 ${floor.p50.toFixed(1)} ms, p95 ${floor.p95.toFixed(1)} ms`);

interface Stored { token: string; integration: string; chunks: number; ingestSeconds: number }

/** Ingests the corpus through the API (in this process, with the vector cache) unless reusable. */
async function ingest(backend: string, where: { databaseUrl?: string; dataDir?: string }, stateFile: string): Promise<Stored> {
  if (values.reuse && existsSync(stateFile)) return JSON.parse(readFileSync(stateFile, 'utf8')) as Stored;
  const windows = corpus(target);
  const embedder = copyingEmbedder(cached);
  const lore = await startLore(`bench-search-${backend}`, { ...where, embedder });
  // Past BULK chunks on PostgreSQL, the HNSW index is built once after the load (as one
  // would for a large import) instead of grown one insert at a time: same index, an hour less.
  const bulk = where.databaseUrl !== undefined && windows.length > BULK;
  if (bulk) await lore.container.db.exec(`DROP INDEX IF EXISTS ${vectorIndexName(model.dimensions)}`);
  const collection = (await lore.call('POST', '/api/v1/collections', { name: 'scifact-sentences' })).data.id;
  const started = performance.now();
  let next = 0;
  let done = 0;
  await Promise.all(
    [0, 1, 2].map(async () => {
      while (next < windows.length) {
        const batch = windows.slice(next, next + 50);
        next += 50;
        await lore.call('POST', `/api/v1/collections/${collection}/entries/batch`, { entries: batch });
        done += batch.length;
        if (done % 10_000 < 50) {
          console.error(`${backend}: ${done} entries (${((performance.now() - started) / 1000).toFixed(0)} s)`);
          cached.save(); // a run cut short keeps the vectors it computed
        }
      }
    }),
  );
  if (bulk) {
    console.error(`${backend}: building the HNSW index`);
    await lore.container.db.exec(`ALTER DATABASE ${new URL(where.databaseUrl!).pathname.slice(1)} SET maintenance_work_mem = '4GB'`);
    const db = await openPostgres(where.databaseUrl!, 1);
    await ensureVectorIndex(db, model.dimensions);
    await db.exec('VACUUM ANALYZE chunk_vectors');
    await db.close();
  }
  const ingestSeconds = (performance.now() - started) / 1000;
  cached.save();
  const [{ n: chunks }] = (await lore.container.db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks')) as [{ n: number }];
  const integration = (await lore.call('POST', '/api/v1/integrations', { type: 'search_box', name: 'bench', collection_ids: [collection] })).data.id;
  await lore.close();
  const stored = { token: lore.token, integration, chunks, ingestSeconds };
  writeFileSync(stateFile, JSON.stringify(stored));
  return stored;
}

// (Also reads a database of Lore before chunk_vectors, where vectors counted as text.)
const SIZES = `SELECT coalesce(pg_total_relation_size(to_regclass('chunk_vectors')), 0)::float8 AS vectors,
  (pg_total_relation_size('chunk_terms') + pg_total_relation_size('collection_terms'))::float8 AS postings,
  (pg_total_relation_size('chunks') + pg_total_relation_size('entries'))::float8 AS text,
  pg_database_size(current_database())::float8 AS total`;
type Sizes = { vectors: number; postings: number; text: number; total: number };

interface Row {
  name: string;
  chunks: number;
  single: ReturnType<typeof stats>;
  load: ReturnType<typeof stats> & { rps: number; failures: number };
  /** CPU milliseconds per search under load: Lore's process, and PostgreSQL's. */
  cpu?: { lore: number; db: number };
  ndcg: number;
  /** Each stage's 1-client median and p95 (ms). */
  stages?: Record<string, { p50: number; p95: number }>;
  loreRss?: number;
  dbRss?: number;
  sizes?: Sizes;
  ingestSeconds?: number;
}
const rows: Row[] = [];

/** Runs one client over the judged claims, then `clients` in a child process for `seconds`. */
async function measureLore(name: string, url: string, stored: Stored, loreCpu: () => number): Promise<Omit<Row, 'name' | 'chunks'>> {
  const pathOf = (q: string) => `/api/v1/integrations/${stored.integration}/search?query=${encodeURIComponent(q)}&per_page=${PER_PAGE}`;
  const headers = { authorization: `Bearer ${stored.token}` };
  for (const c of claims.slice(-50)) await (await fetch(url + pathOf(c.text), { headers })).arrayBuffer();
  const times: number[] = [];
  const stages = new Map<string, number[]>();
  const scores: number[] = [];
  for (const c of judged) {
    const started = performance.now();
    const response = await fetch(url + pathOf(c.text), { headers });
    const body = (await response.json()) as { data: { source_id: string }[] };
    times.push(performance.now() - started);
    if (!response.ok) throw new Error(`${name}: search answered ${response.status}`);
    for (const [stage, dur] of serverTimings(response)) {
      if (!stages.has(stage)) stages.set(stage, []);
      stages.get(stage)!.push(dur);
    }
    scores.push(ndcg(c._id, body.data.map((h) => h.source_id)));
  }
  const load = (forSeconds: number) =>
    new Promise<{ latencies: number[]; failures: number }>((resolve, reject) => {
      const child = fork(fileURLToPath(new URL('./loadClient.ts', import.meta.url)), { execArgv: ['--import', 'tsx'] });
      child.once('message', (result) => resolve(result as { latencies: number[]; failures: number }));
      child.once('error', reject);
      child.send({ url, token: stored.token, paths: claims.map((c) => pathOf(c.text)), clients, seconds: forSeconds });
    });
  // Not measured: the load's first seconds, while the pool opens its other connections and
  // each prepares its statements (a server under steady load has them open).
  if (warmup > 0) await load(warmup);
  const cpuBefore = { lore: loreCpu(), db: postgresCpuSeconds() };
  const loaded = await load(seconds);
  const perSearch = (s: number) => (s * 1000) / loaded.latencies.length;
  return {
    single: stats(times),
    load: { ...stats(loaded.latencies), rps: loaded.latencies.length / seconds, failures: loaded.failures },
    cpu: { lore: perSearch(loreCpu() - cpuBefore.lore), db: perSearch(postgresCpuSeconds() - cpuBefore.db) },
    ndcg: scores.reduce((a, b) => a + b, 0) / scores.length,
    stages: Object.fromEntries([...stages].map(([stage, xs]) => [stage, { p50: median(xs), p95: percentile([...xs].sort((a, b) => a - b), 95) }])),
  };
}

/**
 * The hand-built baseline on PostgreSQL: its own table of the same chunks (tsvector with a GIN
 * index, the vector with an HNSW index), one statement per search fusing the best 100 of each
 * by reciprocal rank (k = 60). Run from this process: embed, query, read 15 rows.
 */
async function measureBaseline(databaseUrl: string, dims: number): Promise<Omit<Row, 'name' | 'chunks'> & { sqlMedian: number }> {
  // An HNSW candidate list as long as its LIMIT of 100, on every connection: without
  // iterative scans pgvector returns at most ef_search rows (Lore's 64 would cut the list).
  const pool = new pg.Pool({ connectionString: databaseUrl, max: clients, options: '-c hnsw.ef_search=100' });
  const exists = (await pool.query(`SELECT to_regclass('bench_baseline') IS NOT NULL AS e`)).rows[0].e as boolean;
  if (!exists) {
    console.error('baseline: building its table and indexes');
    const client = await pool.connect();
    await client.query(`SET maintenance_work_mem = '1GB'`);
    await client.query(`CREATE TABLE bench_baseline AS
      SELECT c.id, e.source_id, e.title, c.text, to_tsvector('english', e.title || ' ' || c.text) AS tsv, v.embedding::vector(${dims}) AS embedding
      FROM chunks c JOIN entries e ON e.id = c.entry_id JOIN chunk_vectors v ON v.chunk_id = c.id`);
    await client.query('CREATE INDEX ON bench_baseline USING gin (tsv)');
    await client.query('CREATE INDEX ON bench_baseline USING hnsw (embedding vector_cosine_ops)');
    await client.query('ANALYZE bench_baseline');
    client.release();
  }
  const sql = `WITH q AS (SELECT to_tsquery('english', $1) AS q),
      lex AS (SELECT id, row_number() OVER (ORDER BY ts_rank(tsv, q.q) DESC) AS r
              FROM bench_baseline, q WHERE tsv @@ q.q ORDER BY ts_rank(tsv, q.q) DESC LIMIT 100),
      vec AS (SELECT id, row_number() OVER () AS r
              FROM (SELECT id FROM bench_baseline ORDER BY embedding <=> $2::vector(${dims}) LIMIT 100) x)
    SELECT b.source_id, b.title, b.text, coalesce(1.0 / (60 + lex.r), 0) + coalesce(1.0 / (60 + vec.r), 0) AS score
    FROM lex FULL JOIN vec USING (id) JOIN bench_baseline b USING (id) ORDER BY score DESC LIMIT ${PER_PAGE}`;
  // OR of the query's words, as a user wanting recall would write it (an AND finds almost nothing for a claim).
  const tsquery = (text: string) => [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].join(' | ') || 'a';
  const sqlTimes: number[] = [];
  async function search(text: string) {
    const [embedding] = await model.embed([text]);
    const started = performance.now();
    const result = await pool.query<{ source_id: string }>(sql, [tsquery(text), vectorLiteral(embedding!)]);
    sqlTimes.push(performance.now() - started);
    return result.rows.map((r) => r.source_id);
  }
  for (const c of claims.slice(-50)) await search(c.text);
  const times: number[] = [];
  const scores: number[] = [];
  for (const c of judged) {
    const started = performance.now();
    const found = await search(c.text);
    times.push(performance.now() - started);
    scores.push(ndcg(c._id, found));
  }
  const sqlMedian = median(sqlTimes);
  let next = 0;
  const loadFor = async (forSeconds: number) => {
    const latencies: number[] = [];
    const deadline = performance.now() + forSeconds * 1000;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (performance.now() < deadline) {
          const started = performance.now();
          await search(claims[next++ % claims.length]!.text);
          latencies.push(performance.now() - started);
        }
      }),
    );
    return latencies;
  };
  if (warmup > 0) await loadFor(warmup); // as for Lore: the pool's connections opened first
  const latencies = await loadFor(seconds);
  await pool.end();
  return {
    single: stats(times),
    load: { ...stats(latencies), rps: latencies.length / seconds, failures: 0 },
    ndcg: scores.reduce((a, b) => a + b, 0) / scores.length,
    sqlMedian,
  };
}

mkdirSync('bench/results/.data', { recursive: true });
let baselineSql: number | undefined;
for (const backend of values.backends.split(',')) {
  const stateFile = path.resolve(`bench/results/.data/${backend}-${variant}.json`);
  let where: { databaseUrl?: string; dataDir?: string };
  if (backend === 'postgres') {
    const name = `lore_bench_search_${variant.replaceAll('-', '_')}`;
    const server = new URL(values.pg);
    const admin = new pg.Client({ connectionString: values.pg });
    await admin.connect();
    const present = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
    await admin.end();
    if (!values.reuse || !present || !existsSync(stateFile)) {
      rmSync(stateFile, { force: true });
      await freshDatabase(values.pg, name);
    }
    server.pathname = `/${name}`;
    where = { databaseUrl: server.toString() };
  } else {
    const dataDir = path.resolve(`bench/results/.data/pglite-${variant}`);
    if (!values.reuse || !existsSync(stateFile)) {
      rmSync(stateFile, { force: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
    where = { dataDir };
  }
  const stored = await ingest(backend, where, stateFile);
  console.error(`${backend}: ${stored.chunks} chunks, measuring`);

  const memory = backend === 'postgres' ? postgresMemory() : undefined;
  const lore = await serveLore(where);
  const measured = await measureLore(`lore-${backend}`, lore.url, stored, lore.cpuSeconds);
  const loreRss = lore.peakRss();
  await lore.close();
  const dbRss = memory?.stop();

  let sizes: Sizes;
  if (where.databaseUrl) {
    const client = new pg.Client({ connectionString: where.databaseUrl });
    await client.connect();
    sizes = (await client.query<Sizes>(SIZES)).rows[0]!;
    await client.end();
  } else {
    const container = await createContainer(loadConfig({ LORE_DATA_DIR: where.dataDir, LORE_LOG_LEVEL: 'silent' }), {
      embedder: model,
      masterKeyHash: hashSecret(MASTER_KEY),
    });
    sizes = (await container.db.query<Sizes>(SIZES))[0]!;
    await container.close();
  }
  rows.push({ name: `${backend} Lore`, chunks: stored.chunks, ...measured, loreRss, dbRss, sizes, ingestSeconds: stored.ingestSeconds });

  if (backend === 'postgres' && values.baseline === 'on') {
    const memoryBaseline = postgresMemory();
    const { sqlMedian, ...baseline } = await measureBaseline(where.databaseUrl!, model.dimensions);
    baselineSql = sqlMedian;
    rows.push({ name: 'postgres baseline', chunks: stored.chunks, ...baseline, dbRss: memoryBaseline.stop() });
  }
}

const backendOf = (r: Row) => r.name.split(' ')[0];
const f = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '—' : x.toFixed(1));
const described = [
  values.corpus === 'windows' ? 'every sentence window of each abstract' : 'SciFact sentence windows',
  values.embedder === 'hash' ? 'hashed-word vectors from a local embeddings server' : 'the bundled model',
  values.fresh ? 'searched right after the load' : values.reuse ? 'reusing stored data when present' : 'a new database',
].join(', ');
console.log(`\nsearch at ${target.toLocaleString('en')} chunks (${described}): 1 client × ${judged.length} judged SciFact claims${values.forms ? ' as typed (--forms)' : ''}, then ${clients} clients × ${seconds} s after ${warmup} s unmeasured (per_page ${PER_PAGE}, loopback HTTP)`);
console.log(`floor, the query embedding alone: p50 ${f(floor.p50)} / p95 ${f(floor.p95)} ms\n`);
const head = ['', 'chunks', '1 client p50/p95', `${clients} clients p50/p95`, 'searches/s', 'CPU/search', 'nDCG@10', 'Lore RSS', 'DB RSS', 'disk/chunk'];
const table = rows.map((r) => [
  r.name,
  String(r.chunks),
  `${f(r.single.p50)} / ${f(r.single.p95)} ms`,
  `${f(r.load.p50)} / ${f(r.load.p95)} ms`,
  f(r.load.rps) + (r.load.failures ? ` (${r.load.failures} errors)` : ''),
  r.cpu ? (backendOf(r) === 'postgres' ? `${f(r.cpu.lore)} + ${f(r.cpu.db)} ms` : `${f(r.cpu.lore)} ms`) : '—',
  r.ndcg.toFixed(3),
  r.loreRss ? mb(r.loreRss) : '—',
  r.dbRss ? mb(r.dbRss) : '—',
  // Lore's own tables and indexes (the database also holds the baseline's table).
  r.sizes ? `${((r.sizes.vectors + r.sizes.postings + r.sizes.text) / r.chunks / 1024).toFixed(1)} kB` : '—',
]);
const widths = head.map((h, i) => Math.max(h.length, ...table.map((t) => t[i]!.length)));
for (const line of [head, ...table]) console.log(line.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
console.log('');
for (const r of rows) {
  if (r.stages) console.log(`${r.name} stages, 1 client p50 / p95 (ms): ${Object.entries(r.stages).map(([s, ms]) => `${s} ${ms.p50.toFixed(1)} / ${ms.p95.toFixed(1)}`).join(', ')}`);
  if (r.sizes) {
    const per = (bytes: number) => `${(bytes / r.chunks).toFixed(0)} B`;
    console.log(`${r.name} on disk per chunk: vectors ${per(r.sizes.vectors)}, postings ${per(r.sizes.postings)}, text ${per(r.sizes.text)}, database ${per(r.sizes.total)}`);
  }
}
if (baselineSql !== undefined) console.log(`postgres baseline: its statement alone, 1 client median ${baselineSql.toFixed(1)} ms (the rest of its latency is the embedding)`);
console.log('Lore rows are HTTP round trips to `lore serve`; the baseline row is embedding + SQL in the bench process (no HTTP).');
console.log(`CPU/search is CPU time under the ${clients}-client load divided by searches: Lore's process (+ PostgreSQL's processes); PGlite runs inside Lore's.`);
writeFileSync(`bench/results/search-${variant}${values.fresh ? '-fresh' : ''}.json`, JSON.stringify({ corpus: values.corpus, embedder: values.embedder, fresh: values.fresh, clients, seconds, floor, rows, baselineSql }, null, 2));
