import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { PaymentRequiredError } from '../src/domain/errors.js';
import { createUsageService, periodOf } from '../src/domain/access/usage.js';
import { registerErrorHandling } from '../src/http/errors.js';
import { createUsageRepository } from '../src/storage/usage.js';
import { backends, constantEmbedder, MASTER_KEY, startServer, type TestServer } from './helpers.js';

for (const backend of backends()) {
  describe(`answer credits and usage [${backend}]`, () => {
    let server: TestServer;
    before(async () => {
      server = await startServer(backend, { embedder: constantEmbedder });
    });
    after(() => server.close());

    const usage = () => server.container.deps.usage;
    const setLimits = async (id: number, body: { answer_credits?: number | null; usage_quota?: number | null }) => {
      const res = await server.call('PATCH', `/api/v1/admin/organisations/${id}`, { token: MASTER_KEY, body });
      assert.equal(res.status, 200);
    };
    const storedCredits = async (id: number) =>
      (await server.container.db.query<{ answer_credits: number | null }>('SELECT answer_credits FROM organisations WHERE id = $1', [id]))[0]!.answer_credits;

    it('reserves credits until they run out; a refund gives one back, once', async () => {
      const org = await server.createOrg();
      const scope = { organisationId: org.id };
      await setLimits(org.id, { answer_credits: 2 });
      const first = await usage().reserveCredit(scope);
      const second = await usage().reserveCredit(scope);
      assert.deepEqual([first?.credit, second?.credit], [true, true]);
      assert.equal(await usage().reserveCredit(scope), null);
      assert.equal(await storedCredits(org.id), 0);

      await usage().refund(scope, second!);
      await usage().refund(scope, second!);
      assert.equal(await storedCredits(org.id), 1, 'a second refund of the same reservation gives nothing');
      assert.ok(await usage().reserveCredit(scope));
      assert.equal(await usage().reserveCredit(scope), null);
      const report = await server.call('GET', '/api/v1/usage', { token: org.token });
      assert.deepEqual([report.body.data.answer_credits, report.body.data.answers], [0, 2], 'the refunded answer is not counted');
    });

    it('never overspends under concurrent reservations', async () => {
      const org = await server.createOrg();
      await setLimits(org.id, { answer_credits: 5 });
      const results = await Promise.all(Array.from({ length: 20 }, () => usage().reserveCredit({ organisationId: org.id })));
      assert.equal(results.filter((r) => r !== null).length, 5);
      assert.equal(await storedCredits(org.id), 0);
    });

    it('always reserves with unlimited (null) credits, taking nothing', async () => {
      const org = await server.createOrg();
      const scope = { organisationId: org.id };
      const reservations = await Promise.all(Array.from({ length: 10 }, () => usage().reserveCredit(scope)));
      assert.ok(reservations.every((r) => r !== null && r.credit === false));
      await usage().refund(scope, reservations[0]!);
      assert.equal(await storedCredits(org.id), null);
    });

    it('counts requests and answers per month: GET /usage', async () => {
      const org = await server.createOrg();
      await setLimits(org.id, { answer_credits: 7 });
      for (let i = 0; i < 3; i++) assert.equal((await server.call('GET', '/api/v1/collections', { token: org.token })).status, 200);
      await usage().reserveCredit({ organisationId: org.id });
      const res = await server.call('GET', '/api/v1/usage', { token: org.token });
      assert.equal(res.status, 200);
      const period = new Date().toISOString().slice(0, 7);
      assert.deepEqual(res.body, { data: { answer_credits: 6, usage_quota: null, period, requests: 4, answers: 1 } });
      assert.equal((await server.call('GET', '/api/v1/usage', { token: null })).status, 401);

      await usage().flush();
      const [row] = await server.container.db.query('SELECT period, requests::int, answers::int FROM usage_counters WHERE organisation_id = $1', [org.id]);
      assert.deepEqual(row, { period, requests: 4, answers: 1 }, 'written by the flush, the unauthenticated call not counted');
      const again = await server.call('GET', '/api/v1/usage', { token: org.token });
      assert.equal(again.body.data.requests, 5, 'stored and unwritten counts are not added twice');
    });

    it('refuses requests over the monthly usage quota with 402, and answers too', async () => {
      const org = await server.createOrg();
      const other = await server.createOrg();
      await setLimits(org.id, { usage_quota: 3 });
      for (let i = 0; i < 3; i++) assert.equal((await server.call('GET', '/api/v1/collections', { token: org.token })).status, 200);
      const refused = await server.call('GET', '/api/v1/collections', { token: org.token });
      assert.deepEqual([refused.status, refused.body], [402, { message: 'The monthly usage quota of this organisation is exhausted.' }]);
      assert.equal(await usage().reserveCredit({ organisationId: org.id }), null, 'no answers over quota, even with unlimited credits');

      const report = await server.call('GET', '/api/v1/usage', { token: org.token });
      assert.equal(report.status, 200, 'usage stays readable over quota');
      assert.deepEqual([report.body.data.usage_quota, report.body.data.requests], [3, 5]);
      assert.equal((await server.call('GET', '/api/v1/collections', { token: other.token })).status, 200, 'other organisations are not affected');

      await setLimits(org.id, { usage_quota: null });
      assert.equal((await server.call('GET', '/api/v1/collections', { token: org.token })).status, 200, 'a raised quota applies to the next request');
    });

    it('applies an admin change to the very next answer: quota 0, credits lowered, quota raised again', async () => {
      const org = await server.createOrg();
      const collection = (await server.call('POST', '/api/v1/collections', { token: org.token, body: { name: 'Docs' } })).body.data.id;
      await server.call('POST', `/api/v1/collections/${collection}/entries`, { token: org.token, body: { title: 'Refunds', raw_text: 'Refunds are paid within five working days.' } });
      const bot = (await server.call('POST', '/api/v1/integrations', { token: org.token, body: { type: 'chatbot', name: 'Bot', collection_ids: [collection] } })).body.data.id;
      const chat = async () => (await server.call('POST', `/api/v1/integrations/${bot}/chat`, { token: org.token, body: { message: 'How are refunds paid?', stream: false } })).status;
      const summarise = async () => (await server.call('GET', `/api/v1/integrations/${bot}/summarise?query=refunds`, { token: org.token })).status;
      assert.equal(await chat(), 200);
      await setLimits(org.id, { usage_quota: 0 });
      assert.equal(await chat(), 402, 'quota 0: the next chat');
      assert.equal(await summarise(), 402, 'quota 0: the next summary');
      await setLimits(org.id, { usage_quota: null, answer_credits: 0 });
      assert.equal(await chat(), 402, 'no credits left: the next chat');
      await setLimits(org.id, { answer_credits: 1 });
      assert.equal(await summarise(), 200);
      assert.equal(await summarise(), 402, 'the one credit was spent');
    });

    it('applies a quota changed in the database by another process to the next answer here', async () => {
      const org = await server.createOrg();
      const scope = { organisationId: org.id };
      assert.ok(await usage().countRequest(scope));
      assert.ok(await usage().reserveCredit(scope), 'known here: no quota');
      await server.container.db.query('UPDATE organisations SET usage_quota = 0 WHERE id = $1', [org.id]);
      assert.equal(await usage().reserveCredit(scope), null, 'the quota is read with the credit');
      assert.equal(await usage().countRequest(scope), false, 'and kept for the requests that follow');
    });

    it('applies a quota changed in the database by another process to the next request here, whatever the credential', async () => {
      const org = await server.createOrg();
      const token = org.token;
      const collection = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Docs' } })).body.data.id;
      const chatbot = (await server.call('POST', '/api/v1/integrations', { token, body: { type: 'chatbot', name: 'Bot', collection_ids: [collection] } })).body.data.id;
      const widget = (await server.call('POST', '/api/v1/widgets', { token, body: { type: 'chat', name: 'Chat', integration_id: chatbot, websites: ['docs.example.com'] } })).body;
      const key = (await server.call('POST', '/api/v1/api-keys', { token, body: { name: 'CMS', permissions: ['pages.read'] } })).body.key;
      const requests = {
        token: () => server.call('GET', '/api/v1/collections', { token }),
        key: () => server.call('GET', '/api/v1/me', { token: key }),
        widget: () =>
          server.call('POST', `/api/v1/${widget.data.key.replace('/', '/widgets/')}/events`, { body: { name: 'click' }, headers: { origin: 'https://docs.example.com' } }),
      };
      for (const [name, request] of Object.entries(requests)) assert.equal((await request()).status, 200, `${name} before`);
      // Another process's admin change: this process's usage service has not read it.
      await server.container.db.query('UPDATE organisations SET usage_quota = 1 WHERE id = $1', [org.id]);
      for (const [name, request] of Object.entries(requests)) assert.equal((await request()).status, 402, `${name} after`);
      await server.container.db.query('UPDATE organisations SET usage_quota = NULL WHERE id = $1', [org.id]);
      for (const [name, request] of Object.entries(requests)) assert.equal((await request()).status, 200, `${name} lifted`);
    });

    it('adds the counts of other processes on the same database', async () => {
      const org = await server.createOrg();
      const scope = { organisationId: org.id };
      await setLimits(org.id, { usage_quota: 4 });
      const otherProcess = createUsageService({ usage: createUsageRepository(server.container.db), flushIntervalMs: 60_000 });
      try {
        for (let i = 0; i < 3; i++) assert.equal(await otherProcess.countRequest(scope), true);
        await otherProcess.flush();
        assert.equal(await usage().countRequest(scope), true);
        assert.equal(await usage().countRequest(scope), false);
      } finally {
        await otherProcess.close();
      }
    });
  });
}

describe('usage counters in memory', () => {
  it('keeps counts when a write fails, reports the failure once, and starts each month at zero', async () => {
    const writes: { organisationId: number; period: string; requests: number }[][] = [];
    const errors: unknown[] = [];
    let failures = 2;
    let time = Date.UTC(2026, 0, 31, 23, 59, 59);
    const service = createUsageService({
      usage: {
        takeCredit: async () => ({ credit: 'unlimited', usageQuota: 2 }),
        returnCredit: async () => {},
        month: async () => ({ answerCredits: null, usageQuota: 2, requests: 0, answers: 0 }),
        totals: async () => [],
        add: async (deltas) => {
          if (failures-- > 0) throw new Error('database down');
          writes.push(deltas.map(({ organisationId, period, requests }) => ({ organisationId, period, requests })));
          return deltas.map(({ organisationId, period, requests }) => ({ organisationId, period, requests, usageQuota: 2 }));
        },
      },
      flushIntervalMs: 60_000,
      now: () => time,
      log: (error) => errors.push(error),
    });
    const scope = { organisationId: 1 };
    assert.equal(await service.countRequest(scope), true);
    await service.flush();
    assert.equal(await service.countRequest(scope), true);
    await service.flush();
    assert.equal(await service.countRequest(scope), false, 'unwritten counts still count against the quota');
    assert.equal(errors.length, 1);
    time += 1_000;
    assert.equal(periodOf(time), '2026-02');
    assert.equal(await service.countRequest(scope), true, 'a new month');
    await service.close();
    assert.deepEqual(writes, [[{ organisationId: 1, period: '2026-01', requests: 3 }, { organisationId: 1, period: '2026-02', requests: 1 }]]);
  });
});

describe('402 responses', () => {
  it('carry the extra fields a route adds, beside the message', async () => {
    const app = Fastify().withTypeProvider<TypeBoxTypeProvider>();
    registerErrorHandling(app);
    app.get('/chat', async () => {
      throw new PaymentRequiredError(undefined, { data: [{ id: 'hit' }] });
    });
    const res = await app.inject({ method: 'GET', url: '/chat' });
    assert.equal(res.statusCode, 402);
    assert.deepEqual(res.json(), { message: 'The answer credits or the monthly usage quota of this organisation are exhausted.', data: [{ id: 'hit' }] });
    await app.close();
  });
});
