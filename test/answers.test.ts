import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ProviderError, type AnswerChunk, type AnswerProvider, type AnswerRequest } from '../src/domain/answers/port.js';
import { backends, chatbotOver, constantEmbedder, MASTER_KEY, startServer, type TestServer } from './helpers.js';

const DOCS = [
  { id: 'pro', title: 'The Pro plan', url: 'https://example.com/pro', text: 'The Pro plan includes single sign-on, audit logs and priority support for teams.' },
  { id: 'pro-price', title: 'Pro plan pricing', url: 'https://example.com/pro/pricing', text: 'The Pro plan costs 49 euros per user per month, billed yearly.' },
  { id: 'starter-price', title: 'Starter plan pricing', url: 'https://example.com/starter/pricing', text: 'The Starter plan costs 9 euros per month for one user.' },
  { id: 'reset', title: 'Reset your password', url: 'https://example.com/reset', text: 'Open Settings, then Security, and choose Reset password. A reset link arrives by e-mail within five minutes.' },
  { id: 'xss', title: 'Embedding widgets', url: 'https://example.com/embed', text: 'Embed the widget with one script tag <img src=x onerror=alert(1)> and call mount.' },
];

/** The events of an SSE body, and whether it ended with [DONE]. */
function parseSse(body: string): { events: any[]; done: boolean } {
  const data = body.split('\n\n').filter(Boolean).map((block) => {
    assert.match(block, /^data: /, block);
    return block.slice('data: '.length);
  });
  const done = data.at(-1) === '[DONE]';
  return { events: (done ? data.slice(0, -1) : data).map((d) => JSON.parse(d)), done };
}

for (const backend of backends()) {
  describe(`answers [${backend}]`, () => {
    let server: TestServer;
    let org: { id: number; token: string };
    let other: { token: string };
    let chatbot: string;
    let box: string;
    let collection: string;
    const summarise = (qs: string, token = org.token) => server.call('GET', `/api/v1/integrations/${box}/summarise?${qs}`, { token });
    const chat = (body: unknown, token = org.token, integration = chatbot) => server.call('POST', `/api/v1/integrations/${integration}/chat`, { token, body });
    const setCredits = (credits: number | null) =>
      server.call('PATCH', `/api/v1/admin/organisations/${org.id}`, { token: MASTER_KEY, body: { answer_credits: credits } });

    before(async () => {
      server = await startServer(backend);
      org = await server.createOrg('Acme');
      other = await server.createOrg('Other');
      collection = (await server.call('POST', '/api/v1/collections', { token: org.token, body: { name: 'Docs' } })).body.data.id;
      const entries = DOCS.map((d) => ({ source_type: 'doc', source_id: d.id, title: d.title, raw_text: d.text, source_url: d.url }));
      await server.call('POST', `/api/v1/collections/${collection}/entries/batch`, { token: org.token, body: { entries } });
      chatbot = (await server.call('POST', '/api/v1/integrations', {
        token: org.token,
        body: { type: 'chatbot', name: 'Bot', collection_ids: [collection], persona: 'customer-support', unknown_answer_message: 'I do not know that one yet.' },
      })).body.data.id;
      box = (await server.call('POST', '/api/v1/integrations', { token: org.token, body: { type: 'search_box', name: 'Box', collection_ids: [collection] } })).body.data.id;
    });
    after(() => server.close());

    it('streams a summary: stream_start, text_delta, citation, stream_end, then [DONE]', async () => {
      const res = await summarise('query=how+do+I+reset+my+password');
      assert.equal(res.status, 200);
      assert.match(String(res.headers['content-type']), /^text\/event-stream/);
      const { events, done } = parseSse(res.body);
      assert.ok(done);
      const types = events.map((e) => e.type);
      assert.equal(types[0], 'stream_start');
      assert.equal(types.at(-1), 'stream_end');
      assert.ok(types.includes('text_delta') && types.includes('citation'));
      assert.deepEqual(Object.keys(events[0]).sort(), ['model', 'provider', 'timestamp', 'type']);
      assert.deepEqual([events[0].provider, events[0].model], ['lore', 'extractive-1']);
      for (const e of events) assert.ok(Number.isInteger(e.timestamp), JSON.stringify(e));
      const deltas = events.filter((e) => e.type === 'text_delta');
      for (const d of deltas) assert.deepEqual(Object.keys(d).sort(), ['delta', 'message_id', 'timestamp', 'type']);
      assert.equal(new Set(deltas.map((d) => d.message_id)).size, 1);
      assert.match(deltas.map((d) => d.delta).join(''), /Reset password/);
      const citation = events.find((e) => e.type === 'citation');
      assert.deepEqual(citation.citation, { ref: 1, title: 'Reset your password', url: 'https://example.com/reset' });
      const end = events.at(-1);
      assert.equal(typeof end.reason, 'string');
      assert.ok(Number.isInteger(end.usage.prompt_tokens) && Number.isInteger(end.usage.completion_tokens), JSON.stringify(end.usage));
    });

    it('answers a summary as JSON with stream=false', async () => {
      const res = await summarise('query=how+do+I+reset+my+password&stream=false');
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body).sort(), ['data', 'has_relevant_results', 'references', 'summary']);
      assert.equal(res.body.has_relevant_results, true);
      assert.match(res.body.summary, /Reset password/);
      assert.match(res.body.summary, /\[1\]/);
      assert.deepEqual(res.body.references[0], { ref: 1, title: 'Reset your password', url: 'https://example.com/reset' });
      assert.deepEqual(Object.keys(res.body.data[0]).sort(), ['id', 'raw_text', 'title']);
      assert.equal(res.body.data[0].title, 'Reset your password');
    });

    it('says nothing and uses no credit when nothing relevant is found', async () => {
      await setCredits(1);
      try {
        const res = await summarise('query=banana+smoothie+recipe+with+mango&stream=false');
        assert.deepEqual(res.body, { has_relevant_results: false, summary: '', references: [], data: [] });
        const streamed = parseSse((await summarise('query=banana+smoothie+recipe+with+mango')).body);
        assert.deepEqual(streamed.events.map((e) => e.type), ['stream_start', 'stream_end']);
        assert.equal((await server.call('GET', '/api/v1/usage', { token: org.token })).body.data.answer_credits, 1);
      } finally {
        await setCredits(null);
      }
    });

    it('answers a query too short or vague to say what it is about as finding nothing, with no credit used', async () => {
      const echoes = (await server.call('POST', '/api/v1/collections', { token: org.token, body: { name: 'Echoes' } })).body.data.id;
      const entries = ['h', 'the', 'how do i'].map((text) => ({ source_type: 'note', source_id: text, title: text, raw_text: text }));
      await server.call('POST', `/api/v1/collections/${echoes}/entries/batch`, { token: org.token, body: { entries } });
      const integration = (await server.call('POST', '/api/v1/integrations', { token: org.token, body: { type: 'search_box', name: 'Echoes', collection_ids: [echoes] } })).body.data.id;
      await setCredits(1);
      try {
        for (const query of ['h', 'the', 'how do i']) {
          const res = await server.call('GET', `/api/v1/integrations/${integration}/summarise?query=${encodeURIComponent(query)}&stream=false`, { token: org.token });
          assert.deepEqual(res.body, { has_relevant_results: false, summary: '', references: [], data: [] }, query);
          const streamed = await server.call('GET', `/api/v1/integrations/${integration}/summarise?query=${encodeURIComponent(query)}`, { token: org.token });
          assert.deepEqual(parseSse(streamed.body).events.map((e) => e.type), ['stream_start', 'stream_end'], query);
        }
        assert.equal((await server.call('GET', '/api/v1/usage', { token: org.token })).body.data.answer_credits, 1);
      } finally {
        await setCredits(null);
      }
    });

    it('renders html as sanitised HTML', async () => {
      const res = await summarise('query=embed+the+widget+with+a+script+tag&stream=false&format=html');
      assert.equal(res.status, 200);
      assert.match(res.body.summary, /^<p>/);
      assert.doesNotMatch(res.body.summary, /onerror|<script|<img/i);
      const streamed = parseSse((await summarise('query=embed+the+widget+with+a+script+tag&format=html')).body);
      const html = streamed.events.filter((e) => e.type === 'text_delta').map((e) => e.delta).join('');
      assert.match(html, /^<p>/);
      assert.doesNotMatch(html, /onerror|<img/i);
    });

    it('rejects bad summarise and chat input with 422', async () => {
      const cases: [string, string[]][] = [
        ['', ['query']],
        ['query=%20%20', ['query']],
        [`query=${'x'.repeat(1001)}`, ['query']],
        ['query=x&format=pdf', ['format']],
        ['query=x&stream=maybe', ['stream']],
        ['query=x&threshold=2', ['threshold']],
        ['query=x&locale=not a locale', ['locale']],
      ];
      for (const [qs, keys] of cases) {
        const res = await summarise(qs);
        assert.equal(res.status, 422, qs);
        assert.deepEqual(Object.keys(res.body.errors).sort(), keys, qs);
      }
      for (const [body, key] of [
        [{}, 'message'],
        [{ message: '' }, 'message'],
        [{ message: '   ' }, 'message'],
        [{ message: 'x'.repeat(4001) }, 'message'],
        [{ message: 'hi', stream: 'yes' }, 'stream'],
        [{ message: 5 }, 'message'],
      ] as const) {
        const res = await chat(body);
        assert.equal(res.status, 422, JSON.stringify(body));
        assert.ok(key in res.body.errors, JSON.stringify(res.body));
      }
    });

    it('chats without streaming and stores the conversation', async () => {
      const res = await chat({ message: 'What does the Pro plan include?', stream: false });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body).sort(), ['conversation_id', 'message', 'references']);
      assert.match(res.body.message, /single sign-on.*\[1\]/);
      assert.deepEqual(res.body.references[0], { ref: 1, title: 'The Pro plan', url: 'https://example.com/pro' });
      assert.equal(res.headers['x-conversation-id'], res.body.conversation_id);
      const stored = await server.container.db.query<{ role: string; citations: unknown[] }>(
        'SELECT role, citations FROM conversation_messages WHERE conversation_id = $1 ORDER BY seq',
        [res.body.conversation_id],
      );
      assert.deepEqual(stored.map((m) => m.role), ['user', 'assistant']);
      assert.ok(stored[1]!.citations.length >= 1);
    });

    it('retrieves a follow-up with the conversation’s context', async () => {
      const first = await chat({ message: 'Tell me about the Pro plan', stream: false });
      const follow = await chat({ message: 'and how much does it cost?', conversation_id: first.body.conversation_id, stream: false });
      assert.equal(follow.status, 200);
      assert.equal(follow.body.conversation_id, first.body.conversation_id);
      assert.match(follow.body.message, /49 euros/);
    });

    it('streams chat with X-Conversation-Id and continues it', async () => {
      const res = await chat({ message: 'How do I reset my password?' });
      assert.equal(res.status, 200);
      const id = res.headers['x-conversation-id'] as string;
      assert.match(id, /^[0-9a-f-]{36}$/);
      const { events, done } = parseSse(res.body);
      assert.ok(done);
      assert.deepEqual([events[0].type, events.at(-1).type], ['stream_start', 'stream_end']);
      const again = await chat({ message: 'How long does the link take?', conversation_id: id });
      assert.equal(again.headers['x-conversation-id'], id);
    });

    it('answers with unknown_answer_message when nothing is relevant', async () => {
      const res = await chat({ message: 'banana smoothie recipe with mango', stream: false });
      assert.deepEqual([res.status, res.body.message], [200, 'I do not know that one yet.']);
    });

    it('refuses unknown and foreign conversations with 404', async () => {
      const mine = await chat({ message: 'What does the Pro plan include?', stream: false });
      for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
        const res = await chat({ message: 'hello', conversation_id: id, stream: false });
        assert.deepEqual([res.status, res.body], [404, { message: 'Conversation not found.' }]);
      }
      const otherBox = (await server.call('POST', '/api/v1/integrations', { token: org.token, body: { type: 'custom', name: 'Other', collection_ids: [collection] } })).body.data.id;
      const elsewhere = await chat({ message: 'hello', conversation_id: mine.body.conversation_id, stream: false }, org.token, otherBox);
      assert.equal(elsewhere.status, 404);
      const foreign = await chat({ message: 'hello', conversation_id: mine.body.conversation_id, stream: false }, other.token);
      assert.equal(foreign.status, 404, 'another organisation cannot even see the integration');
    });

    it('uses one credit per answer and answers 402 when they run out; chat’s 402 carries hits', async () => {
      await setCredits(2);
      try {
        assert.equal((await summarise('query=reset+password&stream=false')).status, 200);
        assert.equal((await chat({ message: 'What does the Pro plan include?', stream: false })).status, 200);
        const summary = await summarise('query=reset+password&stream=false');
        assert.equal(summary.status, 402);
        assert.deepEqual(Object.keys(summary.body), ['message']);
        const refused = await chat({ message: 'What does the Pro plan include?', stream: false });
        assert.equal(refused.status, 402);
        assert.equal(typeof refused.body.message, 'string');
        assert.equal(refused.body.data[0].source_id, 'pro');
        assert.ok(refused.body.data[0].score_breakdown.similarity > 0);
      } finally {
        await setCredits(null);
      }
    });

    it('refuses answers on an inactive integration with 403', async () => {
      await server.call('PATCH', `/api/v1/integrations/${box}`, { token: org.token, body: { is_active: false } });
      try {
        assert.equal((await summarise('query=reset')).status, 403);
      } finally {
        await server.call('PATCH', `/api/v1/integrations/${box}`, { token: org.token, body: { is_active: true } });
      }
    });
  });

  describe(`answer provider failures [${backend}]`, () => {
    let server: TestServer;
    let token: string;
    let integration: string;
    let behaviour: 'fail-at-once' | 'fail-midway' | 'cite-unknown' | 'hang' = 'fail-at-once';
    let aborted: Promise<unknown> = Promise.resolve();
    const provider: AnswerProvider = {
      provider: 'fake',
      model: 'fake-1',
      async *stream(request, signal): AsyncGenerator<AnswerChunk> {
        if (behaviour === 'hang') {
          aborted = new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));
          yield { type: 'text', delta: 'The first words' };
          await aborted;
          throw signal.reason;
        }
        if (behaviour === 'fail-at-once') throw new ProviderError('The answer provider is unavailable.', 503);
        if (behaviour === 'cite-unknown') {
          yield { type: 'text', delta: `Known [1]. Invented [${request.passages.length + 1}]. [` };
          yield { type: 'text', delta: '1]' };
          yield { type: 'end', reason: 'stop', usage: { promptTokens: 10, completionTokens: 5 } };
          return;
        }
        yield { type: 'text', delta: 'Partial answer' };
        throw new ProviderError('The answer provider failed.', 502);
      },
    };

    before(async () => {
      server = await startServer(backend, { answerProvider: provider });
      ({ token } = await server.createOrg('Acme'));
      const collection = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Docs' } })).body.data.id;
      await server.call('POST', `/api/v1/collections/${collection}/entries`, { token, body: { title: 'Reset', raw_text: DOCS[3]!.text } });
      integration = (await server.call('POST', '/api/v1/integrations', { token, body: { type: 'chatbot', name: 'Bot', collection_ids: [collection] } })).body.data.id;
    });
    after(() => server.close());

    it('answers 503 before streaming when the provider fails at once', async () => {
      behaviour = 'fail-at-once';
      const res = await server.call('GET', `/api/v1/integrations/${integration}/summarise?query=reset+password`, { token });
      assert.deepEqual([res.status, res.body], [503, { message: 'The answer provider is unavailable.' }]);
      const chat = await server.call('POST', `/api/v1/integrations/${integration}/chat`, { token, body: { message: 'reset password' } });
      assert.equal(chat.status, 503);
    });

    it('sends an error event then [DONE] when the provider fails midway', async () => {
      behaviour = 'fail-midway';
      const res = await server.call('GET', `/api/v1/integrations/${integration}/summarise?query=reset+password`, { token });
      assert.equal(res.status, 200);
      const { events, done } = parseSse(res.body);
      assert.ok(done);
      assert.deepEqual(events.map((e) => e.type), ['stream_start', 'text_delta', 'error']);
      assert.equal(events[2].message, 'The answer provider failed.');
    });

    it('stops generating when the client disconnects, and keeps what was said', async () => {
      behaviour = 'hang';
      const base = await server.app.listen({ port: 0, host: '127.0.0.1' });
      const client = new AbortController();
      const response = await fetch(`${base}/api/v1/integrations/${integration}/chat`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'reset password' }),
        signal: client.signal,
      });
      const conversation = response.headers.get('x-conversation-id');
      const reader = response.body!.getReader();
      let text = '';
      while (!text.includes('text_delta')) text += new TextDecoder().decode((await reader.read()).value);
      client.abort();
      const reason = await Promise.race([aborted, new Promise((_, reject) => setTimeout(() => reject(new Error('provider was not aborted')), 2000))]);
      assert.ok(reason instanceof Error);
      let stored: { content: string }[] = [];
      for (let i = 0; i < 50 && stored.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 20));
        stored = await server.container.db.query("SELECT content FROM conversation_messages WHERE conversation_id = $1 AND role = 'assistant'", [conversation]);
      }
      assert.deepEqual(stored.map((m) => m.content), ['The first words']);
    });

    it('drops citations of passages the provider was not given', async () => {
      behaviour = 'cite-unknown';
      const res = await server.call('GET', `/api/v1/integrations/${integration}/summarise?query=reset+password&stream=false`, { token });
      assert.equal(res.status, 200);
      assert.equal(res.body.summary, 'Known [1]. Invented. [1]');
      assert.deepEqual(res.body.references.map((r: { ref: number }) => r.ref), [1]);
      assert.deepEqual(res.body.data.length, 1);
    });
  });

  describe(`citation numbers [${backend}]`, () => {
    let server: TestServer;
    let token: string;
    let integration: string;
    /** The writer cites its last passage first, then its first, in deltas that split markers and leave code open. */
    const provider: AnswerProvider = {
      provider: 'fake',
      model: 'fake-1',
      async *stream(request): AsyncGenerator<AnswerChunk> {
        const last = request.passages.length;
        for (const delta of [`Prices differ [${last}`, `]. Pro includes SSO [1][`, `${last}]. Run \`lore --seconds [1]`]) yield { type: 'text', delta };
        yield { type: 'end', reason: 'stop', usage: { promptTokens: 10, completionTokens: 5 } };
      },
    };

    before(async () => {
      server = await startServer(backend, { answerProvider: provider });
      ({ token } = await server.createOrg('Acme'));
      const collection = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Docs' } })).body.data.id;
      const entries = DOCS.slice(0, 3).map((d) => ({ source_type: 'doc', source_id: d.id, title: d.title, raw_text: d.text, source_url: d.url }));
      await server.call('POST', `/api/v1/collections/${collection}/entries/batch`, { token, body: { entries } });
      integration = (await server.call('POST', '/api/v1/integrations', { token, body: { type: 'chatbot', name: 'Bot', collection_ids: [collection] } })).body.data.id;
    });
    after(() => server.close());

    it('numbers sources by first citation in summaries (JSON and SSE) and chats, and closes code the writer left open', async () => {
      // Asked as chat asks it: the same passages ("Pro" is a name the Starter plan's page lacks).
      const query = 'query=How+much+does+the+Pro+plan+cost%3F';
      const summary = await server.call('GET', `/api/v1/integrations/${integration}/summarise?${query}&stream=false`, { token });
      assert.equal(summary.status, 200);
      const passages: { title: string }[] = summary.body.data;
      assert.ok(passages.length >= 2, 'the writer is given several passages');
      const url = (title: string) => DOCS.find((d) => d.title === title)!.url;
      const references = [passages.at(-1)!.title, passages[0]!.title].map((title, i) => ({ ref: i + 1, title, url: url(title) }));
      const text = 'Prices differ [1]. Pro includes SSO [2][1]. Run `lore --seconds` [2]';
      assert.deepEqual([summary.body.summary, summary.body.references], [text, references]);

      const { events } = parseSse((await server.call('GET', `/api/v1/integrations/${integration}/summarise?${query}`, { token })).body);
      const shown: string[] = [];
      for (const event of events) {
        if (event.type === 'text_delta') shown.push(event.delta);
        if (event.type === 'citation') {
          // Each source is announced right after the delta that first cites it.
          const marker = `[${event.citation.ref}]`;
          assert.ok(shown.join('').includes(marker) && !shown.slice(0, -1).join('').includes(marker), `${marker} after ${JSON.stringify(shown)}`);
          assert.deepEqual(event.citation, references[event.citation.ref - 1]);
        }
      }
      assert.equal(shown.join(''), text);
      assert.deepEqual(events.filter((e) => e.type === 'citation').map((e) => e.citation), references);

      const chat = await server.call('POST', `/api/v1/integrations/${integration}/chat`, { token, body: { message: 'How much does the Pro plan cost?', stream: false } });
      assert.deepEqual(chat.body, { conversation_id: chat.headers['x-conversation-id'], message: text, references });
      const [stored] = await server.container.db.query<{ content: string; citations: { ref: number; url: string }[] }>(
        "SELECT content, citations FROM conversation_messages WHERE conversation_id = $1 AND role = 'assistant'",
        [chat.body.conversation_id],
      );
      assert.deepEqual([stored!.content, stored!.citations.map((c) => [c.ref, c.url])], [text, references.map((r) => [r.ref, r.url])]);
    });
  });

  describe(`the offline writer on German docs [${backend}]`, () => {
    // Sections as `lore import --sections` makes them, from Express's German folder (which holds
    // English pages too). The embedder is constant: the passages come in the lexical side's order.
    const SECTIONS = [
      {
        id: 'shutdown',
        title: 'Angemessenes Herunterfahren',
        text: '## Angemessenes Herunterfahren\n\nDer Prozessmanager sendet zuerst ein SIGTERM-Signal an die Anwendung. Sobald die Anwendung dieses Signal erhält, sollte sie aufhören, neue Anfragen anzunehmen.',
      },
      { id: 'faq', title: 'FAQ', text: '## Wie kann ich meine Anwendung strukturieren?\n\nDie Antwort hängt vom Umfang Ihrer Anwendung und dem beteiligten Team ab.' },
      { id: 'engines', title: 'Developing template engines', text: '# Developing template engines\n\nUse the `app.engine(ext, callback)` method to create your own template engine.' },
      { id: 'views', title: 'Template-Engines verwenden', text: "# Template-Engines verwenden\n\nUm die Template-Engine festzulegen, setzen Sie `app.set('view engine', 'pug')`." },
    ];
    let server: TestServer;
    let token: string;
    let integration: string;
    before(async () => {
      server = await startServer(backend, { embedder: constantEmbedder });
      ({ token } = await server.createOrg('Acme'));
      const entries = SECTIONS.map((s) => ({ source_type: 'doc', source_id: s.id, title: s.title, raw_text: s.text, source_url: `https://expressjs.example/de/${s.id}` }));
      ({ integration } = await chatbotOver(server, token, 'Dokumentation', entries));
    });
    after(() => server.close());

    const chat = async (message: string) => {
      const reply = await server.call('POST', `/api/v1/integrations/${integration}/chat`, { token, body: { message, stream: false } });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      return { text: reply.body.message as string, urls: (reply.body.references as { url: string }[]).map((r) => r.url) };
    };

    it('answers a German how-to from the section that holds it, not from an FAQ heading sharing one of its words', async () => {
      // Read as German ("ich"), the question's split verb finds "Herunterfahren" and ranks its section first.
      const reply = await chat('Wie fahre ich die Anwendung sauber herunter?');
      assert.match(reply.text, /^Der Prozessmanager sendet zuerst ein SIGTERM-Signal/);
      assert.deepEqual(reply.urls, ['https://expressjs.example/de/shutdown']);
      // The FAQ's own question is still answered by it.
      assert.match((await chat('Wie kann ich meine Anwendung strukturieren?')).text, /^Die Antwort hängt/);
    });

    it('does not let an English page holding one of a German question\'s words hold all of it', async () => {
      const reply = await chat('Wie lege ich die Template-Engine fest?');
      assert.match(reply.text, /view engine/);
      assert.equal(reply.urls[0], 'https://expressjs.example/de/views');
    });
  });

  describe(`the page of a section [${backend}]`, () => {
    let server: TestServer;
    let token: string;
    let integration: string;
    const asked: { title: string | null; pageTitle?: string }[][] = [];
    const termsGiven: NonNullable<AnswerRequest['terms']>[] = [];
    const provider: AnswerProvider = {
      provider: 'fake',
      model: 'fake-1',
      async *stream(request): AsyncGenerator<AnswerChunk> {
        asked.push(request.passages.map(({ title, pageTitle }) => ({ title, ...(pageTitle !== undefined && { pageTitle }) })));
        termsGiven.push(request.terms ?? []);
        yield { type: 'text', delta: 'Pre-bundled [1].' };
        yield { type: 'end', reason: 'stop', usage: { promptTokens: 10, completionTokens: 5 } };
      },
    };
    before(async () => {
      server = await startServer(backend, { answerProvider: provider, embedder: constantEmbedder });
      ({ token } = await server.createOrg('Acme'));
      const entries = [
        { source_type: 'file', source_id: 'guide/dep-pre-bundling.md#the-why', title: 'The Why', raw_text: '## The Why\n\nVite pre-bundles dependencies to convert CommonJS modules to ESM.', meta: { page_title: 'Dependency Pre-Bundling' } },
        { source_type: 'file', source_id: 'guide/features.md', title: 'Features', raw_text: 'Vite pre-bundles dependencies and serves source files over native ESM.', meta: { page_title: 42 } },
      ];
      ({ integration } = await chatbotOver(server, token, 'Docs', entries));
    });
    after(() => server.close());

    it("gives the writer a section's page title from its meta.page_title, and nothing for an entry without one", async () => {
      const reply = await server.call('POST', `/api/v1/integrations/${integration}/chat`, { token, body: { message: 'Why does Vite pre-bundle dependencies?', stream: false } });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      const given = asked.at(-1)!;
      assert.deepEqual(given.find((p) => p.title === 'The Why'), { title: 'The Why', pageTitle: 'Dependency Pre-Bundling' });
      assert.deepEqual(given.find((p) => p.title === 'Features'), { title: 'Features' }, 'a meta.page_title that is not text is not one');
    });

    it("gives the writer the question's terms its collection holds, each with its idf there: a word in one entry weighs more than one in both", async () => {
      const reply = await server.call('POST', `/api/v1/integrations/${integration}/chat`, { token, body: { message: 'Does Vite convert CommonJS modules for Zorblax?', stream: false } });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      const idf = new Map(termsGiven.at(-1)!.map((t) => [t.term, t.idf]));
      assert.ok(idf.get('commonj')! > idf.get('vite')!, JSON.stringify([...idf]));
      assert.ok(idf.get('vite')! > 0);
      assert.equal(idf.has('zorblax'), false, 'a word the collection lacks has no idf');
    });
  });
}
