/**
 * `lore reindex`: after a change of embedding model, every chunk the old model embedded is
 * embedded again by the new one, its postings and statistics kept exact, the entries left as
 * they were; vector search finds the entries again. On both backends, through the domain
 * function over a real database, and once as the CLI a user runs.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { createIntegrationService } from '../src/domain/search/integrations.js';
import { createSearchService } from '../src/domain/search/service.js';
import { calibrationFor } from '../src/providers/embeddings/calibration.js';
import { createIngestion } from '../src/domain/ingestion/pipeline.js';
import type { Embedder } from '../src/domain/ingestion/port.js';
import { reindex } from '../src/domain/ingestion/reindex.js';
import { createEntryRepository } from '../src/storage/entries.js';
import { dropUnusedVectorIndexes, ensureVectorIndex } from '../src/storage/migrate.js';
import { createIntegrationRepository } from '../src/storage/integrations.js';
import { createReindexSource } from '../src/storage/reindex.js';
import { createSearchRepository } from '../src/storage/search.js';
import type { Db } from '../src/storage/db.js';
import { backends, MASTER_KEY, startServer } from './helpers.js';
import { indexProblems } from './indexProblems.js';
import { call, runLoreCli, startLoreProcess } from './processes.js';

/**
 * A model stand-in: words hashed into `dims` buckets, normalised (texts sharing words are
 * near), so each model gives its own vectors of its own dimension.
 */
function hashingEmbedder(model: string, dims: number): Embedder & { calls: number } {
  const embedder = {
    model,
    dimensions: dims,
    calls: 0,
    async embed(texts: readonly string[]) {
      embedder.calls += texts.length;
      return texts.map((text) => {
        const v = new Float32Array(dims);
        for (const word of text.toLowerCase().match(/\p{L}+/gu) ?? []) v[createHash('sha256').update(model + word).digest().readUInt32LE(0) % dims]! += 1;
        const norm = Math.hypot(...v) || 1;
        return v.map((x) => x / norm);
      });
    },
  };
  return embedder;
}

const LONG = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} explains how refunds reach the original card within five working days.`).join('\n\n');
const ENTRIES = [
  { source_type: 'doc', source_id: 'refunds', title: 'Refunds', raw_text: LONG },
  { source_type: 'doc', source_id: 'invoices', title: 'Invoices', raw_text: 'Invoices are emailed on the first day of each month as PDF files.' },
  { source_type: 'doc', source_id: 'sso', title: 'Single sign-on', raw_text: 'Single sign-on works with SAML and OpenID Connect for the whole organisation.' },
];

const snapshot = async (db: Db) => ({
  entries: await db.query('SELECT id, title, raw_text, updated_at::text AS updated_at FROM entries ORDER BY id'),
  chunks: await db.query('SELECT entry_id, ordinal, text, length, language FROM chunks ORDER BY entry_id, ordinal'),
  postings: await db.query('SELECT count(*)::int AS n, sum(tf)::int AS tf FROM chunk_terms'),
  stats: await db.query('SELECT collection_id, chunk_count, total_length FROM collection_stats ORDER BY collection_id'),
});

for (const backend of backends()) {
  describe(`lore reindex [${backend}]`, () => {
    it('embeds again every chunk of another model, across organisations, keeping postings and statistics exact and entries unchanged', async () => {
      const oldModel = hashingEmbedder('old-model', 8);
      const server = await startServer(backend, { embedder: oldModel });
      try {
        const db = server.container.db;
        const orgs = [await server.createOrg('Acme'), await server.createOrg('Globex')];
        const integrations: string[] = [];
        for (const org of orgs) {
          const collection = (await server.call('POST', '/api/v1/collections', { token: org.token, body: { name: 'Docs' } })).body.data.id;
          assert.equal((await server.call('POST', `/api/v1/collections/${collection}/entries/batch`, { token: org.token, body: { entries: ENTRIES } })).status, 200);
          integrations.push((await server.call('POST', '/api/v1/integrations', { token: org.token, body: { type: 'search_box', name: 'Box', collection_ids: [collection] } })).body.data.id);
        }
        const before = await snapshot(db);
        assert.ok(before.chunks.length > 6, 'the long entry makes several chunks');

        // The new model, as a restarted server would have it: its vectors have another dimension.
        const newModel = hashingEmbedder('new-model', 12);
        const search = createSearchService({
          integrations: createIntegrationService({ integrations: createIntegrationRepository(db) }),
          search: createSearchRepository(db),
          embedder: newModel,
          calibration: calibrationFor(newModel.model),
          searchLog: { record() {} },
        });
        const scope = { organisationId: orgs[0]!.id };
        const vectorHits = async () => (await search.compareModes(scope, integrations[0]!, 'invoices emailed monthly')).vector.filter((h) => h.similarity > 0);
        assert.deepEqual(await vectorHits(), [], 'chunks of 8 dimensions have no cosine to a 12-dimension query (found by words only, no error)');

        const entries = createEntryRepository(db, newModel);
        const progress: [number, number][] = [];
        const queries = newModel.calls;
        const report = await reindex(
          { source: createReindexSource(db), ingestion: createIngestion({ embedder: newModel, entries }), entries, model: newModel.model },
          { progress: (done, total) => progress.push([done, total]) },
        );
        assert.equal(report.chunks, before.chunks.length);
        assert.equal(report.entries, 6, 'three entries with chunks in each organisation');
        assert.deepEqual(report.before, [{ model: 'old-model', dims: 8, chunks: before.chunks.length }]);
        assert.deepEqual(report.after, [{ model: 'new-model', dims: 12, chunks: before.chunks.length }]);
        assert.deepEqual(progress.at(-1), [before.chunks.length, before.chunks.length]);
        assert.ok(progress.every(([done], i) => i === 0 || done >= progress[i - 1]![0]), 'progress only moves forward');
        assert.equal(newModel.calls - queries, before.chunks.length, 'every chunk embedded once, none reused from the old model');

        // Every vector is the new model's of the chunk's text; nothing else moved.
        const after = await snapshot(db);
        assert.deepEqual(after, before);
        assert.deepEqual(await indexProblems(db), []);
        const [sample] = await db.query<{ embedding: string }>(
          `SELECT v.embedding::text AS embedding FROM chunks c JOIN chunk_vectors v ON v.chunk_id = c.id JOIN entries e ON e.id = c.entry_id
           WHERE e.source_id = 'invoices' AND e.organisation_id = $1`,
          [scope.organisationId],
        );
        const [expected] = await newModel.embed(['Invoices\nInvoices are emailed on the first day of each month as PDF files.']);
        assert.deepEqual(JSON.parse(sample!.embedding).map((x: number) => x.toFixed(5)), [...expected!].map((x) => x.toFixed(5)));

        // Vector search finds the entries again, and the old dimension's index goes.
        await ensureVectorIndex(db, 12);
        const hits = await vectorHits();
        const [invoices] = await db.query<{ id: string }>(`SELECT id FROM entries WHERE source_id = 'invoices' AND organisation_id = $1`, [scope.organisationId]);
        assert.equal(hits[0]?.entryId, invoices!.id);
        assert.deepEqual(await dropUnusedVectorIndexes(db, 12), [8]);
        const indexes = await db.query<{ name: string }>(`SELECT indexname AS name FROM pg_indexes WHERE indexname LIKE 'chunk_vectors_hnsw_%' ORDER BY 1`);
        assert.deepEqual(indexes.map((i) => i.name), ['chunk_vectors_hnsw_12']);

        // Nothing left: a second run does nothing.
        const embedded = newModel.calls;
        const again = await reindex({ source: createReindexSource(db), ingestion: createIngestion({ embedder: newModel, entries }), entries, model: newModel.model });
        assert.equal(again.chunks, 0);
        assert.equal(newModel.calls, embedded);

        // --all embeds every chunk again, even of the current model.
        const all = await reindex({ source: createReindexSource(db), ingestion: createIngestion({ embedder: newModel, entries }), entries, model: newModel.model }, { all: true });
        assert.equal(all.chunks, before.chunks.length);
        assert.equal(newModel.calls, embedded + before.chunks.length);
        assert.deepEqual(await snapshot(db), before);
        assert.deepEqual(await indexProblems(db), []);
      } finally {
        await server.close();
      }
    });

    it('leaves alone an entry written after it was read (its write made its own chunks)', async () => {
      const oldModel = hashingEmbedder('old-model', 8);
      const server = await startServer(backend, { embedder: oldModel });
      try {
        const db = server.container.db;
        const org = await server.createOrg();
        const collection = (await server.call('POST', '/api/v1/collections', { token: org.token, body: { name: 'Docs' } })).body.data.id;
        await server.call('POST', `/api/v1/collections/${collection}/entries/batch`, { token: org.token, body: { entries: ENTRIES.slice(1, 3) } });
        const newModel = hashingEmbedder('new-model', 8);
        const entries = createEntryRepository(db, newModel);
        const [stale] = await createReindexSource(db).stale(newModel.model, false, null, 1);
        const [prepared] = await createIngestion({ embedder: newModel, entries }).prepare(stale!.scope, stale!.collectionId, [stale!.fields], { reuse: false });

        // Meanwhile the entry is edited (by a server still on the old model).
        const edit = await server.call('PATCH', `/api/v1/collections/${collection}/entries/${stale!.id}`, { token: org.token, body: { raw_text: 'Edited while the reindex ran.' } });
        assert.equal(edit.status, 200);
        assert.deepEqual(await entries.replaceChunks(stale!.scope, collection, [{ entryId: stale!.id, updatedAt: stale!.updatedAt, chunks: prepared! }]), []);
        const chunks = await db.query<{ text: string; model: string }>('SELECT text, model FROM chunks WHERE entry_id = $1', [stale!.id]);
        assert.deepEqual(chunks, [{ text: 'Edited while the reindex ran.', model: 'old-model' }]);
        assert.deepEqual(await indexProblems(db), []);

        // A run then takes it with the rest.
        const report = await reindex({ source: createReindexSource(db), ingestion: createIngestion({ embedder: newModel, entries }), entries, model: newModel.model });
        assert.equal(report.entries, 2);
        assert.deepEqual(report.after, [{ model: 'new-model', dims: 8, chunks: 2 }]);
        assert.deepEqual(await indexProblems(db), []);
      } finally {
        await server.close();
      }
    });
  });
}

describe('lore reindex (the CLI)', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('moves an instance embedded with the 4-bit model to the default int8 one, refused while a server holds the folder', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'lore-reindex-'));
    dirs.push(dataDir);
    const env = { ...process.env, LORE_LOG_LEVEL: 'warn', LORE_MASTER_KEY: MASTER_KEY, LORE_DATA_DIR: dataDir, DATABASE_URL: '', LORE_DEMO: 'off' };
    const server = await startLoreProcess({ LORE_DATA_DIR: dataDir, DATABASE_URL: '', LORE_EMBEDDINGS_DTYPE: 'q4' });
    try {
      const org = (await call(server, 'POST', '/api/v1/admin/organisations', MASTER_KEY, { name: 'Acme' })).body;
      const collection = (await call(server, 'POST', '/api/v1/collections', org.token, { name: 'Docs' })).body.data.id;
      assert.equal((await call(server, 'POST', `/api/v1/collections/${collection}/entries/batch`, org.token, { entries: ENTRIES })).status, 200);
    } finally {
      server.process.kill('SIGTERM');
      assert.equal(await server.exited, 0);
    }
    // Started on the default model, the server says what to do; while it runs, the folder is its own.
    const restarted = await startLoreProcess({ LORE_DATA_DIR: dataDir, DATABASE_URL: '' });
    try {
      for (let waited = 0; !/Run lore reindex/.test(restarted.stdout()) && waited < 20_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.match(restarted.stdout(), /Chunks embedded by another model than onnx-community\/all-MiniLM-L6-v2-ONNX:int8: \d+ by onnx-community\/all-MiniLM-L6-v2-ONNX:q4\. Run lore reindex/);
      const busy = await runLoreCli(['reindex'], env);
      assert.equal(busy.code, 1);
      assert.match(busy.stderr, /in use|another|running/i);
    } finally {
      restarted.process.kill('SIGTERM');
      assert.equal(await restarted.exited, 0);
    }

    const run = await runLoreCli(['reindex', '--json'], env);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    assert.equal(report.model, 'onnx-community/all-MiniLM-L6-v2-ONNX:int8');
    assert.equal(report.before.length, 1);
    assert.equal(report.before[0].model, 'onnx-community/all-MiniLM-L6-v2-ONNX:q4');
    assert.deepEqual(report.after, [{ ...report.before[0], model: 'onnx-community/all-MiniLM-L6-v2-ONNX:int8' }]);
    assert.equal(report.chunks, report.before[0].chunks);

    const again = await runLoreCli(['reindex'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /nothing to do/);
  });
});
