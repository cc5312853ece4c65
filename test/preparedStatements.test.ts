/**
 * The storage port's prepared statements (QueryOptions `prepare`), on both backends: the same
 * rows as a plain query, typed parameters and results, a failed statement leaves the
 * connection usable, and on PGlite a prepared query never runs inside another caller's open
 * transaction.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../src/storage/db.js';
import { backends, freshDb } from './helpers.js';

for (const backend of backends()) {
  describe(`prepared statements (${backend})`, () => {
    let db: Db;
    let drop = async () => {};
    before(async () => {
      ({ db, drop } = await freshDb(backend));
      await db.exec(`CREATE TABLE items (id bigint PRIMARY KEY, tag uuid NOT NULL, name text, score real, meta jsonb);
        INSERT INTO items SELECT g, ('00000000-0000-0000-0000-' || lpad(g::text, 12, '0'))::uuid, 'item ' || g, g / 4.0, jsonb_build_object('n', g)
        FROM generate_series(1, 50) g;`);
    });
    after(async () => {
      await db.close();
      await drop();
    });

    const SQL = `SELECT id, tag, name, score, meta FROM items WHERE id = ANY($1::bigint[]) AND name <> $2 ORDER BY id`;

    it('returns what a plain query returns, call after call, with each call its own parameters', async () => {
      for (const ids of [[1, 2, 3], [7], [], [40, 4, 50]]) {
        const plain = await db.query(SQL, [ids, 'item 2']);
        const prepared = await db.query(SQL, [ids, 'item 2'], { prepare: true });
        assert.deepEqual(prepared, plain);
      }
      const [row] = await db.query<{ id: unknown; tag: unknown; score: unknown; meta: unknown; name: unknown }>(SQL, [[5], ''], { prepare: true });
      assert.deepEqual(row, { id: row!.id, tag: '00000000-0000-0000-0000-000000000005', name: 'item 5', score: 1.25, meta: { n: 5 } });
      assert.equal(Number(row!.id), 5);
      // NULL parameters bind as NULL.
      assert.deepEqual(await db.query('SELECT $1::text IS NULL AS missing', [null], { prepare: true }), [{ missing: true }]);
    });

    it('reports a failed statement and goes on serving the next ones', async () => {
      await assert.rejects(db.query('SELECT 1 / $1::int AS x', [0], { prepare: true }), /division by zero/);
      assert.deepEqual(await db.query('SELECT 1 / $1::int AS x', [1], { prepare: true }), [{ x: 1 }]);
      await assert.rejects(db.query('SELECT FROM WHERE', [], { prepare: true }), /syntax error/);
      await assert.rejects(db.query('SELECT FROM WHERE', [], { prepare: true }), /syntax error/);
      assert.deepEqual(await db.query(SQL, [[9], ''], { prepare: true }).then((rows) => rows.length), 1);
    });

    it('waits for an open transaction instead of running inside it', async () => {
      let inserted!: () => void;
      const insertedNow = new Promise<void>((resolve) => (inserted = resolve));
      let finish!: () => void;
      const finishNow = new Promise<void>((resolve) => (finish = resolve));
      const transaction = db.transaction(async (tx) => {
        await tx.query(`INSERT INTO items VALUES (1000, '00000000-0000-0000-0000-000000001000', 'uncommitted', 0, '{}')`);
        inserted();
        await finishNow;
        throw new Error('rolled back');
      });
      await insertedNow;
      const seen = db.query(SQL, [[1000], ''], { prepare: true });
      // Give the prepared query every chance to run between the transaction's statements.
      await new Promise((resolve) => setTimeout(resolve, 50));
      finish();
      await assert.rejects(transaction, /rolled back/);
      assert.deepEqual(await seen, []);
    });
  });
}
