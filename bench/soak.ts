/**
 * Soak benchmark: mixed traffic from 8 clients for a fixed time against `lore serve` (a child
 * process, as in production) on each backend — searches, chats, streamed summaries, single
 * entry upserts (re-embedded) and analytics events over SciFact abstracts. Prints, per
 * backend: requests and errors by status, p50/p95 per operation, and Lore's RSS and open
 * sockets after warm-up and at the end. Targets: no 5xx, no unexpected 4xx, RSS growth under
 * 10 % after warm-up.
 *
 *   npm run bench:soak                                  # 5 minutes a backend
 *   npm run bench:soak -- --seconds 60 --backends pglite
 *   DATABASE_URL=postgres://… npm run bench:soak        # PostgreSQL: a fresh database on that server
 */
import { readFileSync, readdirSync, readlinkSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freshDatabase, MASTER_KEY, percentile, serveLore } from './harness.js';
import { jsonl } from './jsonl.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '300' },
    clients: { type: 'string', default: '8' },
    backends: { type: 'string', default: 'pglite,postgres' },
    docs: { type: 'string', default: '400' },
    data: { type: 'string', default: path.resolve('../shared/data/scifact') },
  },
});
const seconds = Number(values.seconds);
const clients = Number(values.clients);
const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

interface Doc { _id: string; title: string; text: string }
const docs = jsonl<Doc>(path.join(values.data, 'corpus.jsonl')).slice(0, Number(values.docs));
const claims = jsonl<{ text: string }>(path.join(values.data, 'queries.jsonl')).map((q) => q.text);

/** Operations and their share of the traffic. */
const MIX = [
  ['search', 55],
  ['chat', 10],
  ['summarise', 5],
  ['upsert', 15],
  ['event', 15],
] as const;
type Op = (typeof MIX)[number][0];

let seed = 42;
const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;

function rss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
  return line ? Number(line[1]) * 1024 : NaN;
}
function sockets(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:');
    } catch {
      return false;
    }
  }).length;
}

for (const backend of values.backends.split(',')) {
  const dataDir = backend === 'pglite' ? mkdtempSync(path.join(os.tmpdir(), 'lore-soak-')) : undefined;
  const databaseUrl = backend === 'postgres' ? await freshDatabase(serverUrl, 'lore_bench_soak') : undefined;
  const lore = await serveLore({ dataDir, databaseUrl });
  const request = async (token: string, method: string, route: string, body?: unknown) => {
    const response = await fetch(lore.url + route, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, text };
  };
  const org = JSON.parse((await request(MASTER_KEY, 'POST', '/api/v1/admin/organisations', { name: 'Soak' })).text);
  const token = org.token as string;
  const collection = JSON.parse((await request(token, 'POST', '/api/v1/collections', { name: 'SciFact' })).text).data.id;
  for (let i = 0; i < docs.length; i += 50) {
    const entries = docs.slice(i, i + 50).map((d) => ({ source_type: 'scifact', source_id: d._id, title: d.title, raw_text: d.text }));
    const res = await request(token, 'POST', `/api/v1/collections/${collection}/entries/batch`, { entries });
    if (res.status !== 200) throw new Error(`seeding: ${res.status} ${res.text}`);
  }
  const chatbot = JSON.parse((await request(token, 'POST', '/api/v1/integrations', { type: 'chatbot', name: 'Bot', collection_ids: [collection] })).text).data.id;

  const run: Record<Op, () => Promise<{ status: number; text: string }>> = {
    search: () => request(token, 'GET', `/api/v1/integrations/${chatbot}/search?${new URLSearchParams({ query: pick(claims) })}`),
    chat: () => request(token, 'POST', `/api/v1/integrations/${chatbot}/chat`, { message: pick(claims), stream: false }),
    summarise: () => request(token, 'GET', `/api/v1/integrations/${chatbot}/summarise?${new URLSearchParams({ query: pick(claims) })}`),
    upsert: () => {
      const d = pick(docs);
      // A changed text: re-chunked and re-embedded, replacing the entry's chunks.
      return request(token, 'PUT', `/api/v1/collections/${collection}/entries/upsert`, { source_type: 'scifact', source_id: d._id, title: d.title, raw_text: `${d.text} (revised ${Math.floor(random() * 1e6)})` });
    },
    event: () => request(token, 'POST', `/api/v1/integrations/${chatbot}/events`, { event_type: pick(['click', 'thumbs_up', 'thumbs_down']), meta: { url: 'https://example.com/a' } }),
  };
  const expected: Record<Op, number[]> = { search: [200], chat: [200], summarise: [200], upsert: [200, 201], event: [200, 201, 204] };
  const latencies = Object.fromEntries(MIX.map(([op]) => [op, [] as number[]])) as Record<Op, number[]>;
  const statuses = new Map<string, number>();
  const unexpected: string[] = [];
  const total = MIX.reduce((n, [, w]) => n + w, 0);
  const choose = (): Op => {
    let r = random() * total;
    for (const [op, weight] of MIX) if ((r -= weight) < 0) return op;
    return 'search';
  };

  const started = performance.now();
  const warmUpEnd = started + Math.min(60, seconds * 0.2) * 1000;
  const end = started + seconds * 1000;
  let warm: { rss: number; sockets: number } | undefined;
  const sampler = setInterval(() => {
    if (!warm && performance.now() >= warmUpEnd) warm = { rss: rss(lore.pid), sockets: sockets(lore.pid) };
  }, 250);
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const op = choose();
        const t = performance.now();
        const res = await run[op]().catch((error: Error) => ({ status: 0, text: error.message }));
        latencies[op].push(performance.now() - t);
        const key = `${op} ${res.status}`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
        if (!expected[op].includes(res.status) && unexpected.length < 5) unexpected.push(`${key}: ${res.text.slice(0, 200)}`);
      }
    }),
  );
  clearInterval(sampler);
  const final = { rss: rss(lore.pid), sockets: sockets(lore.pid) };
  warm ??= final;
  await lore.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });

  const count = (test: (status: number, op: Op) => boolean) => [...statuses].filter(([key]) => test(Number(key.split(' ')[1]), key.split(' ')[0] as Op)).reduce((n, [, c]) => n + c, 0);
  const requests = count(() => true);
  const fivexx = count((s) => s >= 500 || s === 0);
  const unexpected4xx = count((s, op) => s >= 400 && s < 500 && !expected[op].includes(s));
  const growth = (final.rss - warm.rss) / warm.rss;
  console.log(`\nsoak [${backend}]: ${clients} clients, ${seconds} s, ${docs.length} SciFact abstracts; ${requests} requests (${(requests / seconds).toFixed(1)}/s)`);
  console.log(`5xx or failed: ${fivexx} (target 0); unexpected 4xx: ${unexpected4xx} (target 0)`);
  console.log(`statuses: ${[...statuses].sort().map(([k, v]) => `${k}: ${v}`).join(', ')}`);
  console.log(`${'operation'.padEnd(10)} ${'count'.padStart(7)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)}`);
  for (const [op] of MIX) {
    const sorted = latencies[op].sort((a, b) => a - b);
    console.log(`${op.padEnd(10)} ${String(sorted.length).padStart(7)} ${percentile(sorted, 50).toFixed(1).padStart(8)} ${percentile(sorted, 95).toFixed(1).padStart(8)}`);
  }
  console.log(`Lore RSS after warm-up ${(warm.rss / 2 ** 20).toFixed(0)} MiB → end ${(final.rss / 2 ** 20).toFixed(0)} MiB (${(growth * 100).toFixed(1)} %, target < 10 %); open sockets ${warm.sockets} → ${final.sockets}`);
  for (const line of unexpected) console.log(`  unexpected: ${line}`);
}
