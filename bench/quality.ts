/**
 * Search quality: nDCG@10 and Recall@100 for BM25 only, vectors only and hybrid, on
 * SciFact (train qrels) and XQuAD (12 languages, plus English questions against each other
 * language's corpus), and how the default threshold 0.4 behaves. Corpora are ingested
 * through the HTTP API; queries go to the search service in-process (the same code the
 * route calls), whose compareModes ranks one candidate set in the three modes.
 *
 *   npm run bench:quality                         # everything (PGlite in a temporary folder)
 *   npm run bench:quality -- --only xquad --langs de,zh --queries 200
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { createEmbedder } from '../src/container.js';
import type { SearchMode } from '../src/domain/search/service.js';
import { cachingEmbedder } from './embeddingCache.js';
import { entrySourceIds, startLore } from './harness.js';
import { jsonl } from './jsonl.js';
import { judgedQueries, ndcg10, type Judged } from './relevance.js';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    langs: { type: 'string', default: 'ar,de,el,en,es,hi,ro,ru,th,tr,vi,zh' },
    queries: { type: 'string', default: '0' },
    data: { type: 'string', default: path.resolve('../shared/data') },
  },
});
const maxQueries = Number(values.queries) || Infinity;
const langs = values.langs.split(',');
const MODES: SearchMode[] = ['lexical', 'vector', 'hybrid'];

// The model's own vectors, kept between runs (corpora and queries are fixed), so a rerun
// measures ranking changes in minutes instead of re-embedding ~40k texts.
const model = await createEmbedder(loadConfig({ ...process.env, LORE_LOG_LEVEL: 'silent', DATABASE_URL: undefined }));
const embedder = cachingEmbedder(model, path.resolve('bench/results/.cache/quality'));
const lore = await startLore('bench-quality', { embedder });
const { container, scope } = lore;
const started = performance.now();

interface Doc { _id: string; title: string; text: string }
/** Ingests a corpus into a new collection over HTTP, two batches at a time; returns an integration searching it. */
const ingest = (name: string, docs: Doc[]) =>
  lore.integrationOver(name, docs.map((d) => ({ title: d.title, raw_text: d.text, source_type: 'doc', source_id: d._id })), 'custom', 2);

interface Run { ndcg: number; recall: number }
const calibration = { relevantFound: 0, relevantAbove: 0, negatives: 0, negativesAbove: 0 };

const sourceIdsOf = entrySourceIds(container.db);

/** Top 100 source ids with similarities in each mode, from one candidate set (see compareModes). */
async function retrieve(integration: string, query: string): Promise<Record<SearchMode, { id: string; similarity: number }[]>> {
  const ids = await sourceIdsOf(integration);
  const rankings = await container.deps.search.compareModes(scope, integration, query);
  const top = (mode: SearchMode) => rankings[mode].slice(0, 100).map((r) => ({ id: ids.get(r.entryId)!, similarity: r.similarity }));
  return { lexical: top('lexical'), vector: top('vector'), hybrid: top('hybrid') };
}

async function evaluate(integration: string, queries: Judged[], calibrate: boolean): Promise<Record<SearchMode, Run>> {
  const sums = Object.fromEntries(MODES.map((m) => [m, { ndcg: 0, recall: 0 }])) as Record<SearchMode, Run>;
  for (const q of queries) {
    const rankings = await retrieve(integration, q.text);
    for (const mode of MODES) {
      const ids = rankings[mode].map((h) => h.id);
      sums[mode].ndcg += ndcg10(ids, q.relevant);
      sums[mode].recall += ids.filter((id) => q.relevant.has(id)).length / q.relevant.size;
    }
    if (!calibrate) continue;
    for (const h of rankings.hybrid) {
      if (!q.relevant.has(h.id)) continue;
      calibration.relevantFound++;
      if (h.similarity >= 0.4) calibration.relevantAbove++;
    }
  }
  return Object.fromEntries(MODES.map((m) => [m, { ndcg: sums[m].ndcg / queries.length, recall: sums[m].recall / queries.length }])) as Record<SearchMode, Run>;
}

async function negatives(integration: string, queries: string[]) {
  for (const q of queries) {
    const [top] = (await retrieve(integration, q)).hybrid;
    calibration.negatives++;
    if (top && top.similarity >= 0.4) calibration.negativesAbove++;
  }
}

const rows: { name: string; runs: Record<SearchMode, Run>; queries: number }[] = [];
const judged = (queriesFile: string, qrelsFile: string): Judged[] => judgedQueries(queriesFile, qrelsFile).slice(0, maxQueries);

let scifact: string | undefined;
if (values.only !== 'xquad') {
  const base = path.join(values.data, 'scifact');
  scifact = await ingest('scifact', jsonl<Doc>(path.join(base, 'corpus.jsonl')));
  const queries = judged(path.join(base, 'queries.jsonl'), path.join(base, 'qrels/train.tsv'));
  rows.push({ name: 'scifact (train)', runs: await evaluate(scifact, queries, true), queries: queries.length });
  console.error(`scifact done (${((performance.now() - started) / 1000).toFixed(0)} s)`);
}

if (values.only !== 'scifact') {
  const english = judged(path.join(values.data, 'xquad/en/queries.jsonl'), path.join(values.data, 'xquad/en/qrels/test.tsv'));
  const integrations = new Map<string, string>();
  for (const lang of langs) {
    const base = path.join(values.data, 'xquad', lang);
    integrations.set(lang, await ingest(`xquad-${lang}`, jsonl<Doc>(path.join(base, 'corpus.jsonl'))));
    const queries = judged(path.join(base, 'queries.jsonl'), path.join(base, 'qrels/test.tsv'));
    rows.push({ name: `xquad ${lang}`, runs: await evaluate(integrations.get(lang)!, queries, true), queries: queries.length });
    console.error(`xquad ${lang} done (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  for (const lang of langs.filter((l) => l !== 'en')) {
    rows.push({ name: `xquad en→${lang}`, runs: await evaluate(integrations.get(lang)!, english, false), queries: english.length });
  }
  // Unrelated queries: scientific claims against Wikipedia paragraphs, and the reverse.
  if (integrations.has('en')) {
    const claims = jsonl<{ text: string }>(path.join(values.data, 'scifact/queries.jsonl')).slice(0, 200).map((q) => q.text);
    await negatives(integrations.get('en')!, claims);
  }
  if (scifact) await negatives(scifact, english.slice(0, 200).map((q) => q.text));
}

const pct = (x: number) => x.toFixed(3);
console.log(`\n${'dataset'.padEnd(18)} ${'queries'.padStart(7)}   ${'nDCG@10 bm25 / vector / hybrid'.padEnd(30)}   R@100 bm25 / vector / hybrid`);
for (const { name, runs, queries } of rows) {
  const n = MODES.map((m) => pct(runs[m].ndcg)).join('  ');
  const r = MODES.map((m) => pct(runs[m].recall)).join('  ');
  console.log(`${name.padEnd(18)} ${String(queries).padStart(7)}   ${n.padEnd(30)}   ${r}`);
}
console.log(
  `\nthreshold 0.4: ${((calibration.relevantAbove / Math.max(1, calibration.relevantFound)) * 100).toFixed(1)} % of retrieved relevant documents pass it;` +
    ` ${((calibration.negativesAbove / Math.max(1, calibration.negatives)) * 100).toFixed(1)} % of ${calibration.negatives} unrelated queries have a top hit passing it`,
);
console.log(`elapsed ${((performance.now() - started) / 1000).toFixed(0)} s, backend ${container.db.backend}`);
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/quality.json', JSON.stringify({ rows, calibration }, null, 2));

embedder.save();
await lore.close();
