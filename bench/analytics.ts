/**
 * How long the console's analytics calls take over a month of many searches: `--searches`
 * synthetic searches written through the search log's writer (5,000 distinct queries,
 * Zipf-like; 5 % without results; spread over 30 days), and a fifth as many clicks, then each `GET /api/v1/analytics/…` of
 * the console's overview for the last 30 days, three times, over HTTP.
 *
 *   npm run bench:analytics                                        # PGlite, 200,000 searches
 *   npm run bench:analytics -- --backend postgres --searches 1000000
 */
import { parseArgs } from 'node:util';
import { freshDatabase, startLore } from './harness.js';

const { values } = parseArgs({
  options: {
    backend: { type: 'string', default: 'pglite' },
    searches: { type: 'string', default: '200000' },
    pg: { type: 'string', default: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
const searches = Number(values.searches);
const databaseUrl = values.backend === 'postgres' ? await freshDatabase(values.pg, 'lore_bench_analytics') : undefined;
const lore = await startLore('bench-analytics', { ...(databaseUrl && { databaseUrl }), embedder: { model: 'constant', dimensions: 384, embed: async (texts) => texts.map(() => new Float32Array(384).fill(0.05)) } });
const { call, container } = lore;
const org = lore.scope.organisationId;
const collection = (await call('POST', '/api/v1/collections', { name: 'Docs' })).data.id;
const box = (await call('POST', '/api/v1/integrations', { type: 'search_box', name: 'Box', collection_ids: [collection] })).data.id;

const started = performance.now();
// Through the search log's own writer (batches of 500, as searches are logged), so the
// searches and their daily counts are what Lore itself would have stored.
const month = 30 * 86_400_000;
for (let written = 0; written < searches; ) {
  const now = Date.now();
  for (const end = Math.min(searches, written + 500); written < end; written++) {
    const found = Math.random() >= 0.05;
    container.searchLog.record({
      organisationId: org,
      integrationId: box,
      query: `query ${Math.floor(5000 * Math.random() ** 3)}`,
      resultCount: found ? 5 : 0,
      topScore: found ? Math.random() : null,
      latencyMs: 10,
      at: new Date(now - Math.random() * month),
    });
  }
  await container.searchLog.flush();
}
await container.db.query(
  `INSERT INTO integration_events (organisation_id, integration_id, event_type, meta, created_at)
   SELECT $1, $2, 'click', jsonb_build_object('rank', 1 + (random() * 5)::int), now() - random() * interval '30 days'
     FROM generate_series(1, $3 / 5)`,
  [org, box, searches],
);
await container.db.query('ANALYZE');
console.log(`analytics over ${searches.toLocaleString('en')} searches and ${(searches / 5).toLocaleString('en')} clicks in 30 days (${values.backend}; rows written in ${((performance.now() - started) / 1000).toFixed(0)} s)`);

const from = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
const routes = ['activity', 'queries?kind=top&limit=10', 'queries?kind=no_results&limit=10', 'queries?kind=low_similarity&limit=10', 'clicks', 'feedback', 'unanswered'];
let overview = 0;
for (const route of routes) {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    await call('GET', `/api/v1/analytics/${route}${route.includes('?') ? '&' : '?'}from=${from}`);
    times.push(performance.now() - t);
  }
  overview += Math.min(...times);
  console.log(`  ${route.padEnd(38)} ${times.map((t) => t.toFixed(0).padStart(5)).join(' ')} ms`);
}
console.log(`the console's overview, one call after another (best of three each): ${overview.toFixed(0)} ms`);
await lore.close();
