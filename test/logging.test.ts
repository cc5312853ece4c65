/**
 * The access log never shows a credential: not the visitor `hash` of conversation-route URLs,
 * not an API token, a widget's secret or identity secret, nor any of them passed in a query.
 * `lore serve` writes it as JSON lines, or as readable lines (LORE_LOG_FORMAT=pretty; the
 * default on a terminal), redacted alike.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { signVisitor } from '../src/domain/widgets/visitors.js';
import { readableLogs } from '../src/http/logFormat.js';
import { redactUrl } from '../src/http/logRedaction.js';
import { constantEmbedder, MASTER_KEY, startServer, type TestServer } from './helpers.js';
import { processDatabase, startLoreProcess } from './processes.js';

describe('access log', () => {
  let server: TestServer;
  const lines: string[] = [];
  before(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    server = await startServer('pglite', { embedder: constantEmbedder, logger: { level: 'info', stream } });
  });
  after(() => server.close());

  it('logs every request without its credentials, URLs included', async () => {
    const { token } = await server.createOrg();
    const docs = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Docs' } })).body.data.id;
    const bot = (await server.call('POST', '/api/v1/integrations', { token, body: { type: 'chatbot', name: 'Bot', collection_ids: [docs] } })).body.data.id;
    const created = await server.call('POST', '/api/v1/widgets', { token, body: { type: 'chat', name: 'Helper', integration_id: bot, websites: ['docs.example.com'] } });
    const { key } = created.body.data;
    const secrets = [MASTER_KEY, token, created.body.secret_key, created.body.identity_secret];
    const hash = signVisitor('alice', created.body.identity_secret);
    const base = `/api/v1/${key.replace('/', '/widgets/')}`;
    const headers = { origin: 'https://docs.example.com' };
    assert.equal((await server.call('GET', `${base}/conversations?user=alice&hash=${hash}`, { token: null, headers })).status, 200);
    await server.call('DELETE', `${base}/conversations?user=alice&HASH=${hash}`, { token: null, headers });
    await server.call('GET', `/api/v1/collections?token=${token}&api_key=${created.body.secret_key}&page=1`, { token });
    await server.call('GET', `${base}/config?secret_key=${created.body.secret_key}`, { token: null, headers });

    const log = lines.join('');
    assert.match(log, /hash=\[redacted\]/);
    assert.match(log, /HASH=\[redacted\]/);
    assert.match(log, /user=alice/);
    for (const secret of [...secrets, hash]) assert.ok(!log.includes(secret), `a credential in the log: ${secret.slice(0, 12)}…`);
  });

  it('redacts credential parameters only, keeping the rest of the URL as sent', () => {
    assert.equal(redactUrl('/a?user=x&hash=abc&page=2'), '/a?user=x&hash=[redacted]&page=2');
    assert.equal(redactUrl('/a?%68ash=abc&q=%zz'), '/a?%68ash=[redacted]&q=%zz');
    assert.equal(redactUrl('/a?hash&token='), '/a?hash&token=[redacted]');
    assert.equal(redactUrl('/a'), '/a');
  });
});

describe('log format', () => {
  const SECRET = 'sekrit-token-value-0123456789';

  /** Serves with LORE_LOG_FORMAT=`format`, makes two requests, stops: what it wrote to stdout. */
  async function serveAndLog(format: string): Promise<string> {
    const database = await processDatabase('pglite', `log-${format}`);
    try {
      const lore = await startLoreProcess({ ...database.env, LORE_LOG_FORMAT: format, LORE_LOG_LEVEL: 'info' });
      await fetch(`${lore.url}/healthz`, { headers: { 'x-request-id': `health-${format}` } });
      await fetch(`${lore.url}/api/v1/collections?token=${SECRET}&page=1`, { headers: { 'x-request-id': `list-${format}` } });
      lore.process.kill('SIGTERM');
      assert.equal(await lore.exited, 0);
      return lore.stdout();
    } finally {
      await database.drop();
    }
  }

  it('LORE_LOG_FORMAT=pretty: one readable line a record, with method, URL, status, time and request id', async () => {
    const out = await serveAndLog('pretty');
    const time = String.raw`\[\d{2}:\d{2}:\d{2}\.\d{3}\]`;
    assert.match(out, new RegExp(`^${time} INFO: incoming request GET /healthz  reqId=health-pretty$`, 'm'));
    assert.match(out, new RegExp(`^${time} INFO: request completed 200 in \\d+\\.\\d ms  reqId=health-pretty$`, 'm'));
    assert.match(out, new RegExp(`^${time} INFO: incoming request GET /api/v1/collections\\?token=\\[redacted\\]&page=1  reqId=list-pretty$`, 'm'));
    assert.match(out, new RegExp(`^${time} INFO: request completed 401 in \\d+\\.\\d ms  reqId=list-pretty$`, 'm'));
    assert.ok(!out.includes(SECRET), 'the token in the log');
    assert.ok(!/^\{/m.test(out), `a JSON line in readable logs:\n${out}`);
    assert.ok(!out.includes('\u001b['), 'colours when not on a terminal');
  });

  it('LORE_LOG_FORMAT=json: pino JSON lines with the request fields', async () => {
    const out = await serveAndLog('json');
    const records = out.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, any>);
    const incoming = records.find((r) => r.reqId === 'list-json' && r.msg === 'incoming request');
    assert.deepEqual([incoming?.level, incoming?.req?.method, incoming?.req?.url], [30, 'GET', '/api/v1/collections?token=[redacted]&page=1']);
    const completed = records.find((r) => r.reqId === 'health-json' && r.msg === 'request completed');
    assert.equal(completed?.res?.statusCode, 200);
    assert.equal(typeof completed?.responseTime, 'number');
    assert.ok(!out.includes(SECRET), 'the token in the log');
    assert.ok(!out.includes('INFO:'), 'a readable line in JSON logs');
  });

  it('is readable on a terminal unless LORE_LOG_FORMAT=json, JSON elsewhere unless pretty', () => {
    assert.equal(readableLogs('auto', { isTTY: true, write: () => true }), true);
    assert.equal(readableLogs('auto', { write: () => true }), false);
    assert.equal(readableLogs('json', { isTTY: true, write: () => true }), false);
    assert.equal(readableLogs('pretty', { write: () => true }), true);
  });
});
