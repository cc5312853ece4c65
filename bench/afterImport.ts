/**
 * Search right after an import, as a user does it (issue 35's probe): SciFact's 5,183
 * abstracts imported through the API into one collection (50 an entry batch, 2 batches in
 * flight), then XQuAD's English and German paragraphs into two more, all in one organisation;
 * then `lore serve` on that data, no ANALYZE or VACUUM asked, and 200 SciFact claims searched
 * one at a time over HTTP (per_page=10), twice. Prints the import's time and, for the second
 * pass, the search's p50/p95 over HTTP and the lexical, vector and embed stages' p95 (from
 * Server-Timing) — the lexical stage is where a backlog in the typo dictionary's index shows.
 *
 *   npm run bench:after-import                                   # both backends, hashed vectors
 *   npm run bench:after-import -- --backends pglite --embedder model   # the bundled model
 *
 * `--embedder hash` (default): vectors from a local OpenAI-compatible server hashing words
 * (bench/hashEmbedder.ts), so the import and the search time Lore's own path. With `model`,
 * the query cache is on as `npm start` has it (the second pass finds the claims' vectors there).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { serveHashEmbeddings } from './hashEmbedder.js';
import { freshDatabase, percentile, serveLore, serverTimings, startLore } from './harness.js';
import { jsonl } from './jsonl.js';

const { values } = parseArgs({
  options: {
    backends: { type: 'string', default: 'pglite,postgres' },
    embedder: { type: 'string', default: 'hash' },
    claims: { type: 'string', default: '200' },
    pg: { type: 'string', default: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    data: { type: 'string', default: path.resolve('../shared/data') },
  },
});
if (!['hash', 'model'].includes(values.embedder)) throw new Error('--embedder must be hash or model');
if (values.embedder === 'hash') await serveHashEmbeddings();
if (values.embedder === 'model') process.env.LORE_QUERY_CACHE ??= '1000';

interface Doc { _id: string; title?: string; text: string }
const entries = (file: string) =>
  jsonl<Doc>(path.join(values.data, file)).map((d) => ({ source_type: 'doc', source_id: d._id, title: d.title || null, raw_text: d.text }));
const collections = [
  { name: 'scifact', entries: entries('scifact/corpus.jsonl') },
  { name: 'xquad-en', entries: entries('xquad/en/corpus.jsonl') },
  { name: 'xquad-de', entries: entries('xquad/de/corpus.jsonl') },
];
const claims = jsonl<{ text: string }>(path.join(values.data, 'scifact/queries.jsonl')).slice(0, Number(values.claims));
const ms = (xs: number[], p: number) => percentile([...xs].sort((a, b) => a - b), p).toFixed(1).padStart(6);

console.log(`search right after importing ${collections.map((c) => `${c.name} (${c.entries.length})`).join(', ')}; ${values.embedder === 'hash' ? 'hashed-word vectors' : 'the bundled model'}; ${claims.length} claims, second pass`);
console.log('backend     import  entries/s   search p50    p95   lexical p95    max   vector p95  embed p95');
for (const backend of values.backends.split(',')) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lore-after-import-'));
  const databaseUrl = backend === 'postgres' ? await freshDatabase(values.pg, 'lore_bench_after_import') : undefined;
  const where = databaseUrl ? { databaseUrl } : { dataDir };
  const lore = await startLore('after-import', where);
  const started = performance.now();
  let integration = '';
  for (const c of collections) {
    const id = await lore.integrationOver(c.name, c.entries, 'search_box', 2);
    if (c.name === 'scifact') integration = id;
  }
  const seconds = (performance.now() - started) / 1000;
  const total = collections.reduce((n, c) => n + c.entries.length, 0);
  await lore.close();

  const server = await serveLore(where);
  const took: number[] = [];
  const stages: Record<'lexical' | 'vector' | 'embed', number[]> = { lexical: [], vector: [], embed: [] };
  for (let pass = 1; pass <= 2; pass++) {
    for (const c of claims) {
      const t = performance.now();
      const response = await fetch(`${server.url}/api/v1/integrations/${integration}/search?query=${encodeURIComponent(c.text)}&per_page=10`, {
        headers: { authorization: `Bearer ${lore.token}` },
      });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`search: ${response.status}`);
      if (pass === 1) continue;
      took.push(performance.now() - t);
      const timings = serverTimings(response);
      for (const name of ['lexical', 'vector', 'embed'] as const) stages[name].push(timings.get(name) ?? 0);
    }
  }
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
  console.log(
    `${backend.padEnd(10)} ${seconds.toFixed(0).padStart(5)} s ${(total / seconds).toFixed(0).padStart(9)}   ${ms(took, 50)} ${ms(took, 95)} ms ${ms(stages.lexical, 95)} ${Math.max(...stages.lexical).toFixed(1).padStart(6)} ms ${ms(stages.vector, 95)} ms ${ms(stages.embed, 95)} ms`,
  );
}
