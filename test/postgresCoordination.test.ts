/**
 * PostgreSQL aborts one of two deadlocked transactions; Lore runs it again instead of
 * answering 500 (the other one commits meanwhile).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../src/storage/db.js';
import { openPostgres } from '../src/storage/postgres.js';
import { createConversationRepository, EXPIRY_LOCK_ID } from '../src/storage/conversations.js';
import { constantEmbedder, startServer } from './helpers.js';

const serverUrl = process.env.LORE_TEST_DATABASE_URL;

describe('PostgreSQL transactions and coordination', { skip: serverUrl ? false : 'LORE_TEST_DATABASE_URL is not set' }, () => {
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

  it('lets one process at a time delete expired conversations: another holding the clean-up lock makes it skip', async () => {
    const server = await startServer('postgres', { embedder: constantEmbedder });
    try {
      const { token } = await server.createOrg();
      const collection = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Docs' } })).body.data.id;
      await server.call('POST', `/api/v1/collections/${collection}/entries`, { token, body: { raw_text: 'Refunds are paid within five days.' } });
      const bot = (await server.call('POST', '/api/v1/integrations', { token, body: { type: 'chatbot', name: 'Bot', collection_ids: [collection] } })).body.data.id;
      const chat = await server.call('POST', `/api/v1/integrations/${bot}/chat`, { token, body: { message: 'How are refunds paid?', stream: false } });
      assert.equal(chat.status, 200);
      const expired = new Date(Date.now() + 60_000);
      const conversations = createConversationRepository(server.container.db);

      // Another process's clean-up, on another connection of the same database, holds the lock.
      let release!: () => void;
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const holding = server.container.db.transaction(async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock($1)', [EXPIRY_LOCK_ID]);
        locked();
        await new Promise<void>((resolve) => (release = resolve));
      });
      await isLocked;
      assert.equal(await conversations.deleteExpired(expired), 0, 'skipped while another process cleans up');
      release();
      await holding;
      assert.equal(await conversations.deleteExpired(expired), 1);
    } finally {
      await server.close();
    }
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
