import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AnswerProvider } from '../src/domain/answers/port.js';
import { signVisitor } from '../src/domain/widgets/visitors.js';
import { backends, constantEmbedder, startServer, type TestServer } from './helpers.js';

const ORIGIN = 'https://docs.example.com';
const big = 'x'.repeat(2_048);
/** Every entry mentions "plan", so a constant embedder and BM25 retrieve them all. */
const ENTRIES = [
  { source_id: 'upgrade', title: 'Upgrade', meta: { action: { type: 'open_url', label: 'Open pricing', url: '/pricing', id: 'forged' }, image: 'https://cdn.example.com/upgrade.png' } },
  { source_id: 'trial', title: 'Trial', meta: { action: { type: 'app:start-trial', label: 'Start a trial', plan: { name: 'pro', days: 14 } } }, searchable_meta: { image: 'http://cdn.example.com/trial.png' } },
  { source_id: 'bad-type', title: 'Bad type', meta: { action: { type: 'open url', label: 'Nope' }, image: 'javascript:alert(1)' } },
  { source_id: 'too-big', title: 'Too big', meta: { action: { type: 'x', label: 'Too big', blob: big } } },
  { source_id: 'long-label', title: 'Long label', meta: { action: { type: 'x', label: 'l'.repeat(101) }, image: `https://cdn.example.com/${'a'.repeat(2_048)}` } },
  { source_id: 'plain', title: 'Plain', meta: { action: 'open_url', image: 42 } },
].map((e) => ({ source_type: 'doc', raw_text: `The ${e.title} plan page.`, source_url: `https://example.com/${e.source_id}`, ...e }));

/** Cites every passage it is given, in order, then ends. */
const citeAll: AnswerProvider = {
  provider: 'fake',
  model: 'cite-all',
  async *stream(request) {
    yield { type: 'text', delta: request.passages.map((p) => `${p.title} [${p.ref}].`).join(' ') };
    yield { type: 'end', reason: 'stop', usage: { promptTokens: 1, completionTokens: 1 } };
  },
};

function parseSse(body: string): any[] {
  const data = body.split('\n\n').filter(Boolean).map((block) => block.slice('data: '.length));
  assert.equal(data.pop(), '[DONE]');
  return data.map((d) => JSON.parse(d));
}

for (const backend of backends()) {
  describe(`page actions and citation images [${backend}]`, () => {
    let server: TestServer;
    let token: string;
    let chatbot: string;
    let box: string;
    const ids = new Map<string, string>();
    const images: Record<string, string> = { Upgrade: 'https://cdn.example.com/upgrade.png', Trial: 'http://cdn.example.com/trial.png' };

    before(async () => {
      server = await startServer(backend, { embedder: constantEmbedder, answerProvider: citeAll });
      ({ token } = await server.createOrg('Acme'));
      const collection = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Docs' } })).body.data.id;
      for (const entry of ENTRIES) {
        const res = await server.call('POST', `/api/v1/collections/${collection}/entries`, { token, body: entry });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        ids.set(entry.title, res.body.data.id);
      }
      chatbot = (await server.call('POST', '/api/v1/integrations', { token, body: { type: 'chatbot', name: 'Bot', collection_ids: [collection] } })).body.data.id;
      box = (await server.call('POST', '/api/v1/integrations', { token, body: { type: 'search_box', name: 'Box', collection_ids: [collection] } })).body.data.id;
    });
    after(() => server.close());

    it('offers the cited entries’ valid actions after the text, before stream_end, each once', async () => {
      const res = await server.call('POST', `/api/v1/integrations/${chatbot}/chat`, { token, body: { message: 'Which plan?' } });
      assert.equal(res.status, 200);
      const events = parseSse(res.body);
      const types = events.map((e) => e.type);
      const offering = types.indexOf('status');
      assert.ok(types.lastIndexOf('text_delta') < offering && types.lastIndexOf('citation') < offering, types.join());
      assert.deepEqual(types.slice(offering), ['status', 'action', 'action', 'stream_end']);
      assert.deepEqual(events[offering].status, 'offering');
      const titles = events.filter((e) => e.type === 'citation').map((e) => e.citation.title);
      assert.equal(titles.length, ENTRIES.length);
      const offered: Record<string, object> = {
        Upgrade: { id: ids.get('Upgrade'), type: 'open_url', label: 'Open pricing', url: '/pricing' },
        Trial: { id: ids.get('Trial'), type: 'app:start-trial', label: 'Start a trial', plan: { name: 'pro', days: 14 } },
      };
      const expected = titles.filter((title) => title in offered).map((title) => offered[title]);
      assert.deepEqual(events.filter((e) => e.type === 'action').map((e) => e.action), expected);
    });

    it('adds a valid http(s) meta.image or searchable_meta.image to citations, nothing otherwise', async () => {
      for (const res of [
        await server.call('POST', `/api/v1/integrations/${chatbot}/chat`, { token, body: { message: 'Which plan?' } }),
        await server.call('GET', `/api/v1/integrations/${box}/summarise?query=which+plan`, { token }),
      ]) {
        for (const { citation } of parseSse(res.body).filter((e) => e.type === 'citation')) {
          const expected = { ref: citation.ref, title: citation.title, url: `https://example.com/${ENTRIES.find((e) => e.title === citation.title)!.source_id}` };
          assert.deepEqual(citation, images[citation.title] ? { ...expected, image: images[citation.title] } : expected);
        }
      }
    });

    it('offers no actions in summaries', async () => {
      const events = parseSse((await server.call('GET', `/api/v1/integrations/${box}/summarise?query=which+plan`, { token })).body);
      assert.ok(events.some((e) => e.type === 'citation'));
      assert.ok(!events.some((e) => e.type === 'action' || e.type === 'status'));
    });

    it('keeps the non-streamed chat and summary JSON without actions or images', async () => {
      const chat = await server.call('POST', `/api/v1/integrations/${chatbot}/chat`, { token, body: { message: 'Which plan?', stream: false } });
      assert.deepEqual(Object.keys(chat.body).sort(), ['conversation_id', 'message', 'references']);
      for (const reference of chat.body.references) assert.deepEqual(Object.keys(reference).sort(), ['ref', 'title', 'url']);
      const summary = await server.call('GET', `/api/v1/integrations/${box}/summarise?query=which+plan&stream=false`, { token });
      assert.equal(summary.body.references.length, ENTRIES.length);
      for (const reference of summary.body.references) assert.deepEqual(Object.keys(reference).sort(), ['ref', 'title', 'url']);
    });

    it('keeps citation images in a visitor’s stored conversation', async () => {
      const widget = (await server.call('POST', '/api/v1/widgets', { token, body: { type: 'chat', name: 'Chat', integration_id: chatbot, websites: ['docs.example.com'] } })).body;
      const path = `/api/v1/${widget.data.key.replace('/', '/widgets/')}`;
      const hash = signVisitor('alice', widget.identity_secret);
      const headers = { origin: ORIGIN };
      const reply = await server.call('POST', `${path}/chat`, { body: { message: 'Which plan?', stream: false, user: { id: 'alice', hash } }, headers });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      const transcript = await server.call('GET', `${path}/conversations/${reply.body.conversation_id}?user=alice&hash=${hash}`, { headers });
      const citations = transcript.body.data.messages.find((m: { role: string }) => m.role === 'assistant').citations;
      assert.equal(citations.length, ENTRIES.length);
      assert.deepEqual(citations.filter((c: { image?: string }) => c.image).map((c: { title: string; image: string }) => [c.title, c.image]).sort(), [
        ['Trial', images.Trial],
        ['Upgrade', images.Upgrade],
      ]);
    });
  });
}
