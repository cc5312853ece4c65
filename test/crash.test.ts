/**
 * Crash consistency: Lore runs as a child process (`lore serve`), batches are written, and
 * the process is killed with SIGKILL inside the write transaction (held open by the test-only
 * LORE_TEST_PAUSE_BEFORE_COMMIT_MS, everything written but not committed), or while the batch
 * is still being embedded. After each kill the database is opened directly: every batch is
 * all or nothing (entries, chunks, vectors, postings, statistics consistent), committed ones
 * are intact; then Lore restarts on it. SIGTERM during a write lets the write finish and
 * exits cleanly (a second SIGTERM exits at once, the cut write rolled back). On PGlite (a data folder) and on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { backends, MASTER_KEY } from './helpers.js';
import { indexProblems } from './indexProblems.js';
import { call, processDatabase, startLoreProcess } from './processes.js';

const PAUSE_MS = 1500;
const BATCH = 10;
const startLore = (env: Record<string, string>) => startLoreProcess({ LORE_TEST_PAUSE_BEFORE_COMMIT_MS: String(PAUSE_MS), ...env });

const batch = (name: string) =>
  Array.from({ length: BATCH }, (_, i) => ({ source_type: 'doc', source_id: `${name}-${i}`, title: `${name} ${i}`, raw_text: `Entry ${i} of batch ${name}: the invoice settings and the export of each report.` }));

for (const backend of backends()) {
  describe(`crash consistency [${backend}]`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    });

    it('keeps every batch all or nothing through SIGKILL inside the commit window and while embedding, and finishes a write on SIGTERM', async () => {
      const { env, open, drop } = await processDatabase(backend, 'crash');
      cleanups.push(drop);
      const check = async (expected: Record<string, number | 'all-or-nothing'>) => {
        const db = await open();
        try {
          assert.deepEqual(await indexProblems(db), [], 'index consistent');
          const rows = await db.query<{ batch: string; n: number }>("SELECT split_part(source_id, '-', 1) AS batch, count(*)::int AS n FROM entries GROUP BY 1");
          const counts = new Map(rows.map((r) => [r.batch, r.n]));
          for (const [name, want] of Object.entries(expected)) {
            const n = counts.get(name) ?? 0;
            if (want === 'all-or-nothing') assert.ok(n === 0 || n === BATCH, `batch ${name}: ${n} of ${BATCH} entries`);
            else assert.equal(n, want, `batch ${name}`);
          }
          return counts;
        } finally {
          await db.close();
        }
      };

      let lore = await startLore(env);
      const org = await call(lore, 'POST', '/api/v1/admin/organisations', MASTER_KEY, { name: 'Crash' });
      const token = org.body.token as string;
      const collection = (await call(lore, 'POST', '/api/v1/collections', token, { name: 'Docs' })).body.data.id as string;
      const write = (name: string) => call(lore, 'POST', `/api/v1/collections/${collection}/entries/batch`, token, { entries: batch(name) }).catch((error: Error) => ({ status: 0, body: error.message }));
      // A write, once its transaction is open (everything written, not committed).
      const writeHeldOpen = async (name: string) => {
        const marks = lore.marks;
        const pending = write(name);
        await lore.waitMark(marks + 1);
        return { pending };
      };
      assert.equal((await write('b0')).status, 200);
      const expected: Record<string, number | 'all-or-nothing'> = { b0: BATCH };

      // SIGKILL inside the commit window, at a different moment each time, then once while embedding.
      const trials = [0.1, 0.5, 0.9, 'embedding'] as const;
      for (const [k, when] of trials.entries()) {
        const name = `k${k}`;
        const pending = when === 'embedding' ? write(name) : (await writeHeldOpen(name)).pending;
        await sleep(when === 'embedding' ? 5 : PAUSE_MS * when);
        lore.process.kill('SIGKILL');
        await lore.exited;
        await pending;
        // Killed inside the uncommitted transaction: nothing of the batch stays.
        expected[name] = when === 'embedding' ? 'all-or-nothing' : 0;
        await check(expected);
        lore = await startLore(env);
      }

      // SIGTERM during a write: the request completes, then the process exits 0.
      const { pending } = await writeHeldOpen('t0');
      lore.process.kill('SIGTERM');
      assert.equal((await pending).status, 200, 'the write in flight at SIGTERM completes');
      assert.equal(await lore.exited, 0);
      expected.t0 = BATCH;
      await check(expected);

      // A second SIGTERM does not wait: exit 1, and the write it cut is not committed.
      lore = await startLore(env);
      const { pending: cut } = await writeHeldOpen('t1');
      lore.process.kill('SIGTERM');
      await sleep(50);
      lore.process.kill('SIGTERM');
      assert.equal(await lore.exited, 1);
      await cut;
      expected.t1 = 0;
      const counts = await check(expected);

      // Lore starts again on what is left, and its API agrees with the database.
      lore = await startLore(env);
      try {
        const listed = await call(lore, 'GET', `/api/v1/collections/${collection}/entries?per_page=1`, token);
        assert.equal(listed.body.meta.total, [...counts.values()].reduce((a, b) => a + b, 0));
        const integration = (await call(lore, 'POST', '/api/v1/integrations', token, { type: 'search_box', name: 'Box', collection_ids: [collection] })).body.data.id;
        const found = await call(lore, 'GET', `/api/v1/integrations/${integration}/search?query=${encodeURIComponent('batch b0 invoice')}&per_page=50`, token);
        assert.ok((found.body.data as { source_id: string }[]).some((h) => h.source_id.startsWith('b0-')));
      } finally {
        lore.process.kill('SIGTERM');
        await lore.exited;
      }
    });
  });
}
