/**
 * Chat uses the page the visitor is on (the chat's `context`: url, title): the page's entries
 * are candidates whatever the question's words and rank first among passages about as
 * relevant; the exact section (URL fragment) before the rest of its page. Only the caller's
 * organisation's entries are ever found by URL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pageBonus, pageKey } from '../src/domain/answers/retrieval.js';
import { backends, startServer, type TestServer } from './helpers.js';

const SITE = 'https://docs.example.com';
const ENTRIES = [
  { source_id: 'api-limits', title: 'API limits', source_url: `${SITE}/api/limits`, raw_text: 'The limits of the API: a request body may hold at most 10 MB, and each token may send 600 requests a minute.' },
  { source_id: 'widget-limits', title: 'Widget limits', source_url: `${SITE}/widgets/limits`, raw_text: 'The limits of the widget: a chat message may hold at most 4,000 characters, and prompts at most 100 characters each.' },
  { source_id: 'setup-linux', title: 'Setup on Linux', source_url: `${SITE}/setup#linux`, raw_text: 'On Linux, install the package with your package manager and run the setup command once.' },
  { source_id: 'setup-macos', title: 'Setup on macOS', source_url: `${SITE}/setup#macos`, raw_text: 'On macOS, install the package with your package manager and run the setup command once.' },
  { source_id: 'changelog', title: 'Changelog', source_url: `${SITE}/changelog`, raw_text: 'Version 2 shipped a new search box with keyboard navigation.' },
];

describe('page keys and bonuses', () => {
  it('keys a page without fragment, query and trailing slashes, and ranks section > page > folder', () => {
    assert.equal(pageKey(`${SITE}/widgets/theme/?utm_source=x#colours`), `${SITE}/widgets/theme`);
    const page = { url: `${SITE}/widgets/theme#colours` };
    assert.ok(pageBonus(page, `${SITE}/widgets/theme#colours`) > pageBonus(page, `${SITE}/widgets/theme#fonts`));
    assert.ok(pageBonus(page, `${SITE}/widgets/theme/`) > pageBonus(page, `${SITE}/widgets/limits`));
    assert.ok(pageBonus(page, `${SITE}/widgets/limits`) > 0, 'same folder');
    assert.equal(pageBonus(page, `${SITE}/api/limits`), 0);
    assert.equal(pageBonus({ url: `${SITE}/changelog` }, `${SITE}/api/limits`), 0, 'the site root is no folder');
    assert.equal(pageBonus(page, null), 0);
  });
});

for (const backend of backends()) {
  describe(`chat page context [${backend}]`, () => {
    let server: TestServer;
    let token: string;
    let chatbot: string;
    before(async () => {
      server = await startServer(backend);
      ({ token } = await server.createOrg('Acme'));
      const collection = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Docs' } })).body.data.id;
      const batch = await server.call('POST', `/api/v1/collections/${collection}/entries/batch`, { token, body: { entries: ENTRIES.map((e) => ({ source_type: 'page', ...e })) } });
      assert.equal(batch.status, 200);
      chatbot = (await server.call('POST', '/api/v1/integrations', { token, body: { type: 'chatbot', name: 'Bot', collection_ids: [collection] } })).body.data.id;
    });
    after(() => server.close());

    /** The chat's answer and the URLs it cited, first cited first. */
    const ask = async (message: string, context?: unknown, as = token, bot = chatbot) => {
      const reply = await server.call('POST', `/api/v1/integrations/${bot}/chat`, { token: as, body: { message, stream: false, ...(context === undefined ? {} : { context }) } });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      const [stored] = await server.container.db.query<{ citations: { url: string }[] }>(
        "SELECT citations FROM conversation_messages WHERE conversation_id = $1 AND role = 'assistant'",
        [reply.body.conversation_id],
      );
      return { text: reply.body.message as string, cited: (stored?.citations ?? []).map((c) => c.url) };
    };

    it('answers "the limits here" from the page the visitor is on', async () => {
      const onApi = await ask('What are the limits here?', { url: `${SITE}/api/limits`, title: 'API limits' });
      assert.equal(onApi.cited[0], `${SITE}/api/limits`);
      assert.match(onApi.text, /10 MB/);
      const onWidget = await ask('What are the limits here?', { url: `${SITE}/widgets/limits/`, title: 'Widget limits' });
      assert.equal(onWidget.cited[0], `${SITE}/widgets/limits`);
      assert.match(onWidget.text, /4,000 characters/);
    });

    it('finds the page when the question matches it only weakly, and prefers the section open over the rest of the page', async () => {
      const without = await ask('What is new here?');
      assert.ok(!without.cited.includes(`${SITE}/changelog`), `without the page: ${without.cited}`);
      const about = await ask('What is new here?', { url: `${SITE}/changelog` });
      assert.deepEqual(about.cited.slice(0, 1), [`${SITE}/changelog`]);
      // Two sections as relevant as each other: the one the visitor has open comes first.
      for (const section of ['linux', 'macos']) {
        const answer = await ask('How do I install it?', { url: `${SITE}/setup#${section}` });
        assert.equal(answer.cited[0], `${SITE}/setup#${section}`, section);
      }
    });

    it('ignores a context without an http(s) url, or none', async () => {
      for (const context of [false, { title: 'No URL' }, { url: 'javascript:alert(1)' }, { url: 'not a url' }, { url: 42 }]) {
        const reply = await server.call('POST', `/api/v1/integrations/${chatbot}/chat`, { token, body: { message: 'What are the limits of the widget?', stream: false, context } });
        assert.equal(reply.status, 200, JSON.stringify(context));
      }
      const big = await server.call('POST', `/api/v1/integrations/${chatbot}/chat`, { token, body: { message: 'hi', context: { url: `${SITE}/a`, note: 'x'.repeat(5000) } } });
      assert.deepEqual([big.status, Object.keys(big.body.errors)], [422, ['context']]);
    });

    it('never finds another organisation’s entry by its URL', async () => {
      const other = await server.createOrg('Other');
      const theirs = (await server.call('POST', '/api/v1/collections', { token: other.token, body: { name: 'Secret' } })).body.data.id;
      await server.call('POST', `/api/v1/collections/${theirs}/entries`, { token: other.token, body: { title: 'Internal', source_url: `${SITE}/internal`, raw_text: 'The internal roadmap: a private beta of the billing API.' } });
      const probe = await ask('What does this page say?', { url: `${SITE}/internal` });
      assert.ok(!probe.cited.includes(`${SITE}/internal`));
      assert.doesNotMatch(probe.text, /roadmap|private beta/);
    });
  });
}
