/**
 * Backpressure under a flood of large batch upserts: many clients at once each send batches
 * of 50 SciFact abstracts (unique source ids) to `lore serve` for a fixed time, once with
 * the default ingestion queue (LORE_INGEST_QUEUE=2000) and once with it effectively
 * unbounded. Prints, per run: acknowledged and refused (503) batches, latency of the
 * acknowledged ones, Lore's peak RSS and, after the flood, whether the collection holds
 * exactly the acknowledged entries (no acknowledged write lost, none of the refused ones
 * half-written).
 *
 *   npm run bench:backpressure                                   # PGlite, 48 clients, 90 s a run
 *   npm run bench:backpressure -- --clients 64 --seconds 60 --queues 500,2000,1000000
 *   npm run bench:backpressure -- --backend postgres             # a fresh database on DATABASE_URL's server
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freshDatabase, MASTER_KEY, percentile, serveLore } from './harness.js';
import { jsonl } from './jsonl.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '90' },
    clients: { type: 'string', default: '48' },
    queues: { type: 'string', default: '2000,1000000' },
    backend: { type: 'string', default: 'pglite' },
    data: { type: 'string', default: path.resolve('../shared/data/scifact') },
  },
});
const seconds = Number(values.seconds);
const clients = Number(values.clients);
const BATCH = 50;
const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

interface Doc { _id: string; title: string; text: string }
const docs = jsonl<Doc>(path.join(values.data, 'corpus.jsonl'));

const rows: string[] = [];
for (const queue of values.queues.split(',').map(Number)) {
  process.env.LORE_INGEST_QUEUE = String(queue);
  const dataDir = values.backend === 'pglite' ? mkdtempSync(path.join(os.tmpdir(), 'lore-backpressure-')) : undefined;
  const databaseUrl = values.backend === 'postgres' ? await freshDatabase(serverUrl, 'lore_bench_backpressure') : undefined;
  const lore = await serveLore({ dataDir, databaseUrl });
  const call = async (token: string, method: string, route: string, body?: unknown) => {
    const response = await fetch(lore.url + route, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(600_000),
    });
    return { status: response.status, text: await response.text(), retryAfter: response.headers.get('retry-after') };
  };
  const { token } = JSON.parse((await call(MASTER_KEY, 'POST', '/api/v1/admin/organisations', { name: 'Flood' })).text);
  const collection = JSON.parse((await call(token, 'POST', '/api/v1/collections', { name: 'SciFact' })).text).data.id;
  const rssAtStart = lore.peakRss();

  let sent = 0;
  const acknowledged: number[] = [];
  const statuses = new Map<number, number>();
  const deadline = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < deadline) {
        const n = sent++;
        const entries = Array.from({ length: BATCH }, (_, i) => {
          const doc = docs[(n * BATCH + i) % docs.length]!;
          return { source_type: 'doc', source_id: `${n}-${i}`, title: doc.title, raw_text: `${doc.text}\n\n(copy ${n})` };
        });
        const started = performance.now();
        const { status, retryAfter } = await call(token, 'POST', `/api/v1/collections/${collection}/entries/batch`, { entries }).catch(() => ({ status: 0, retryAfter: null }));
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status === 200) acknowledged.push(performance.now() - started);
        // A well-behaved client waits as told, but a little only: the flood goes on.
        else await new Promise((resolve) => setTimeout(resolve, Math.min(Number(retryAfter ?? 1), 1) * 250));
      }
    }),
  );
  const peak = lore.peakRss();
  const stored = JSON.parse((await call(token, 'GET', `/api/v1/collections/${collection}/entries?per_page=1`)).text).meta.total as number;
  await lore.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });

  const sorted = acknowledged.sort((a, b) => a - b);
  const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;
  rows.push(
    `| ${queue >= 1e6 ? '1000000 (unbounded)' : queue} | ${[...statuses].sort().map(([s, n]) => `${s}: ${n}`).join(', ')} | ` +
      `${Math.round(percentile(sorted, 50))} / ${Math.round(percentile(sorted, 95))} / ${Math.round(sorted.at(-1) ?? NaN)} ms | ` +
      `${mib(rssAtStart)} → ${mib(peak)} | ${stored} of ${acknowledged.length * BATCH} ${stored === acknowledged.length * BATCH ? '(exact)' : '(MISMATCH)'} |`,
  );
  process.stderr.write(`${rows.at(-1)}\n`);
}

process.stdout.write(
  `\n${values.backend}, ${clients} clients, batches of ${BATCH} abstracts, ${seconds} s a run\n\n` +
    '| LORE_INGEST_QUEUE | batches by status | acknowledged p50 / p95 / max | Lore RSS start → peak | entries stored of acknowledged |\n|---|---|---|---|---|\n' +
    `${rows.join('\n')}\n`,
);
