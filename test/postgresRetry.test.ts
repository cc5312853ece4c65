/**
 * PostgreSQL aborts one of two deadlocked transactions; Lore runs it again instead of
 * answering 500 (the other one commits meanwhile).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../src/storage/db.js';
import { openPostgres } from '../src/storage/postgres.js';

const serverUrl = process.env.LORE_TEST_DATABASE_URL;

describe('PostgreSQL transactions', { skip: serverUrl ? false : 'LORE_TEST_DATABASE_URL is not set' }, () => {
  let db: Db;
  const table = `retry_${randomBytes(4).toString('hex')}`;
  before(async () => {
    db = await openPostgres(serverUrl!, 4);
    await db.exec(`CREATE TABLE ${table} (id int PRIMARY KEY, n int NOT NULL); INSERT INTO ${table} VALUES (1, 0), (2, 0)`);
  });
  after(async () => {
    await db.exec(`DROP TABLE IF EXISTS ${table}`);
    await db.close();
  });

  it('runs a transaction aborted by a deadlock again, so both writers commit', async () => {
    let attempts = 0;
    // Each holds one row, waits until the other holds its row, then wants the other's: a deadlock.
    let signal!: () => void;
    const bothHold = new Promise<void>((resolve) => {
      let held = 0;
      signal = () => {
        if (++held === 2) resolve();
      };
    });
    const writer = (first: number, second: number) =>
      db.transaction(async (tx) => {
        attempts++;
        await tx.query(`UPDATE ${table} SET n = n + 1 WHERE id = $1`, [first]);
        signal();
        await bothHold;
        await tx.query(`UPDATE ${table} SET n = n + 1 WHERE id = $1`, [second]);
      });
    await Promise.all([writer(1, 2), writer(2, 1)]);
    assert.equal(attempts, 3, 'one of the two ran twice');
    const rows = await db.query<{ id: number; n: number }>(`SELECT id, n FROM ${table} ORDER BY id`);
    assert.deepEqual(rows.map((r) => r.n), [2, 2]);
  });

  it('gives up after a few attempts and passes on other errors at once', async () => {
    let attempts = 0;
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    await assert.rejects(
      db.transaction(async () => {
        attempts++;
        throw deadlock;
      }),
      deadlock,
    );
    assert.equal(attempts, 4);
    attempts = 0;
    await assert.rejects(
      db.transaction(async (tx) => {
        attempts++;
        await tx.query('SELECT 1/0');
      }),
      /division by zero/,
    );
    assert.equal(attempts, 1);
  });
});
