/**
 * SIGTERM with an answer streaming: Lore (a child process, `lore serve`) stops taking new
 * connections, lets the stream in flight run to its end, writes the usage counters and the
 * search log it holds in memory (written once a second; here, through a test-only setting,
 * only at shutdown), closes the database and exits 0. The answer streams slowly
 * from a stand-in OpenAI-compatible server, so the signal lands mid-stream. On PGlite (a data
 * folder) and on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { backends, MASTER_KEY } from './helpers.js';
import { call, processDatabase, startLoreProcess } from './processes.js';

const WORDS = ['Refunds', ' are', ' paid', ' within', ' five', ' working', ' days', ' [1].'];
const DELTA_MS = 250;

/** An OpenAI-compatible chat completions endpoint streaming WORDS one every DELTA_MS. */
function slowModel(): Promise<Server> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', async () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const word of WORDS) {
        response.write(`data: ${JSON.stringify({ choices: [{ delta: { content: word }, finish_reason: null }] })}\n\n`);
        await sleep(DELTA_MS);
      }
      response.write(`data: ${JSON.stringify({ choices: [{ delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`);
      response.end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

for (const backend of backends()) {
  describe(`shutdown on SIGTERM [${backend}]`, () => {
    let model: Server;
    const cleanups: (() => Promise<void>)[] = [];
    before(async () => {
      model = await slowModel();
    });
    after(async () => {
      model.close();
      for (const cleanup of cleanups.reverse()) await cleanup();
    });

    it('finishes the answer streaming, writes usage and the search log, and exits 0', async () => {
      const database = await processDatabase(backend, 'shutdown');
      cleanups.push(database.drop);
      const { open } = database;
      const env = {
        ...database.env,
        LORE_LLM: 'openai',
        LORE_LLM_MODEL: 'slow',
        LORE_LLM_BASE_URL: `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`,
        OPENAI_API_KEY: 'test',
        // Nothing is written periodically during the test: only the write at shutdown.
        LORE_TEST_FLUSH_INTERVAL_MS: '600000',
      };

      const lore = await startLoreProcess(env);
      const { token } = (await call(lore, 'POST', '/api/v1/admin/organisations', MASTER_KEY, { name: 'Shop' })).body;
      const collection = (await call(lore, 'POST', '/api/v1/collections', token, { name: 'Help' })).body.data.id;
      await call(lore, 'POST', `/api/v1/collections/${collection}/entries`, token, { title: 'Refunds', raw_text: 'Refunds are paid within five working days to the original card.' });
      const box = (await call(lore, 'POST', '/api/v1/integrations', token, { type: 'search_box', name: 'Box', collection_ids: [collection] })).body.data.id;

      // The answer starts streaming; searches are made beside it; then the signal.
      const response = await fetch(`${lore.url}/api/v1/integrations/${box}/summarise?query=${encodeURIComponent('how are refunds paid')}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(response.status, 200);
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let stream = '';
      while (!stream.includes('text_delta')) {
        const { value, done } = await reader.read();
        assert.ok(!done, 'the stream ended before its first text');
        stream += decoder.decode(value, { stream: true });
      }
      const SEARCHES = 3;
      for (let i = 0; i < SEARCHES; i++) {
        assert.equal((await call(lore, 'GET', `/api/v1/integrations/${box}/search?query=refund+${i}`, token)).status, 200);
      }
      lore.process.kill('SIGTERM');
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        stream += decoder.decode(value, { stream: true });
      }
      const events = stream.split('\n\n').filter((e) => e.startsWith('data: ')).map((e) => e.slice(6));
      assert.equal(events.at(-1), '[DONE]');
      const parsed = events.slice(0, -1).map((e) => JSON.parse(e) as { type: string; delta?: string });
      assert.equal(parsed.filter((e) => e.type === 'text_delta').map((e) => e.delta).join(''), WORDS.join(''), 'the whole answer was streamed');
      assert.ok(parsed.some((e) => e.type === 'stream_end'), 'and ended normally');
      assert.ok(!parsed.some((e) => e.type === 'error'));
      assert.equal(await lore.exited, 0);

      // Everything counted before the signal was written, and the database was closed
      // cleanly (PGlite's folder opens again).
      const db = await open();
      try {
        const [usage] = await db.query<{ requests: number; answers: number }>('SELECT requests::int, answers::int FROM usage_counters');
        // Before the signal: collection, entry, integration, summary, searches.
        assert.deepEqual(usage, { requests: 4 + SEARCHES, answers: 1 });
        const [logged] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM search_log WHERE query LIKE 'refund %'");
        assert.equal(logged!.n, SEARCHES);
      } finally {
        await db.close();
      }
    });
  });
}
