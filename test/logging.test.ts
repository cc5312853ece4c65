/**
 * The access log never shows a credential: not the visitor `hash` of conversation-route URLs,
 * not an API token, a widget's secret or identity secret, nor any of them passed in a query.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { signVisitor } from '../src/domain/visitors.js';
import { redactUrl } from '../src/http/logRedaction.js';
import { constantEmbedder, MASTER_KEY, startServer, type TestServer } from './helpers.js';

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
