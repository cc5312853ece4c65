/**
 * Index maintenance (VACUUM / ANALYZE after writes) runs once for all processes: two
 * Maintenance instances on one database stand for two Lore processes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../src/storage/db.js';
import { createMaintenance } from '../src/storage/maintenance.js';
import { migrate } from '../src/storage/migrate.js';
import { backends, freshDb } from './helpers.js';

/** A process's view of the database: every VACUUM or ANALYZE it runs is recorded. */
function spied(db: Db, runs: string[], name: string): Db {
  return { ...db, exec: async (sql) => {
    runs.push(`${name}: ${sql.split(' ')[0]}`);
    await db.exec(sql);
  } };
}

for (const backend of backends()) {
  describe(`index maintenance [${backend}]`, () => {
    let db: Db;
    let drop = async () => {};
    before(async () => {
      ({ db, drop } = await freshDb(backend));
      await migrate(db);
    });
    after(async () => {
      await db.close();
      await drop();
    });

    it('counts what every process writes and runs once when the total crosses the threshold', async () => {
      await db.query('DELETE FROM maintenance_jobs');
      const runs: string[] = [];
      const a = createMaintenance(spied(db, runs, 'a'), { every: 100, reportEvery: 10 });
      const b = createMaintenance(spied(db, runs, 'b'), { every: 100, reportEvery: 10 });
      // 60 chunks each: neither process alone reaches 100.
      for (let i = 0; i < 6; i++) {
        a.noteWritten(10);
        b.noteWritten(10);
      }
      await Promise.all([a.idle(), b.idle()]);
      const vacuums = runs.filter((r) => r.endsWith('VACUUM'));
      assert.equal(vacuums.length, 1, `one run for 120 chunks: ${runs.join(', ')}`);
      const [row] = await db.query<{ pending: number }>('SELECT pending::int AS pending FROM maintenance_jobs');
      assert.equal(row!.pending, 20, 'the count starts again after the run');
    });

    it('runs once when two reports at the same moment cross the threshold together, and not while another holds the job', async () => {
      await db.query('DELETE FROM maintenance_jobs');
      const runs: string[] = [];
      // 20 + 20 crosses 30 once, whichever report commits second. (At 20 each would cross it
      // alone: two runs are then right when the first ends before the second report.)
      const a = createMaintenance(spied(db, runs, 'a'), { every: 30, reportEvery: 20 });
      const b = createMaintenance(spied(db, runs, 'b'), { every: 30, reportEvery: 20 });
      a.noteWritten(20);
      b.noteWritten(20);
      await Promise.all([a.idle(), b.idle()]);
      assert.equal(runs.filter((r) => r.endsWith('VACUUM')).length, 1, runs.join(', '));

      // A lease held elsewhere (a job running in a third process): nobody starts another.
      await db.query("UPDATE maintenance_jobs SET leased_until = clock_timestamp() + interval '1 minute'");
      a.noteWritten(40);
      await a.idle();
      assert.equal(runs.filter((r) => r.endsWith('VACUUM')).length, 1);
      // Released (or expired): the count kept meanwhile starts the next run.
      await db.query("UPDATE maintenance_jobs SET leased_until = clock_timestamp() - interval '1 second'");
      b.noteWritten(20);
      await b.idle();
      assert.equal(runs.filter((r) => r.endsWith('VACUUM')).length, 2, runs.join(', '));
    });

    it('reports a failure instead of throwing, and keeps serving', async () => {
      const errors: unknown[] = [];
      const broken: Db = { ...db, transaction: async () => { throw new Error('database gone'); } };
      const m = createMaintenance(broken, { every: 10, reportEvery: 10, log: (error) => errors.push(error) });
      m.noteWritten(10);
      await m.idle();
      assert.equal(errors.length, 1);
    });
  });
}
