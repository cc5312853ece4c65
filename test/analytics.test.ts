/**
 * The analytics API over what the test itself does through the real routes: searches (some
 * finding nothing), clicks from a widget and from the events API, chats (one with nothing
 * relevant), thumbs up and down naming answers. Numbers are checked against that traffic, for
 * one integration and the whole organisation, as JSON and CSV; another organisation sees none
 * of it, and bad windows are 422.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { backends, startServer, TIMESTAMP, type TestServer } from './helpers.js';

const ORIGIN = 'https://docs.example.com';
const sse = (body: string) =>
  body.split('\n\n').map((b) => b.slice(6)).filter((d) => d.startsWith('{')).map((d) => JSON.parse(d) as { type: string; message_id?: string });

for (const backend of backends()) {
  describe(`analytics [${backend}]`, () => {
    let server: TestServer;
    let token: string;
    let otherToken: string;
    let box: string;
    let bot: string;
    let searchWidget: string;
    let chatWidget: string;
    /** What the test did, to compare with what the API reports. */
    const searched: { query: string; results: number; top: number | null }[] = [];
    let answered: string;
    let unanswered: string;
    let answeredConversation: string;
    let otherAnswer: string;
    let summary: string;

    const widgetPath = (key: string) => `/api/v1/${key.replace('/', '/widgets/')}`;
    const get = (path: string, as = token) => server.call('GET', `/api/v1/analytics/${path}`, { token: as });
    const chat = async (message: string) => {
      const res = await server.call('POST', `${widgetPath(chatWidget)}/chat`, { body: { message }, headers: { origin: ORIGIN } });
      assert.equal(res.status, 200);
      return sse(res.body).find((e) => e.type === 'text_delta')!.message_id!;
    };

    before(async () => {
      server = await startServer(backend);
      token = (await server.createOrg('Acme')).token;
      const collection = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Docs' } })).body.data.id;
      const entries = [
        { title: 'Reset your password', raw_text: 'To reset your password, open Settings, then Security, and choose Reset password. A link is emailed to you.' },
        { title: 'Invoices', raw_text: 'Invoices are emailed on the first day of each month. Download past invoices from Billing.' },
        { title: 'Export your data', raw_text: 'Export all your data as CSV from Settings, then Data export.' },
      ];
      for (const body of entries) assert.equal((await server.call('POST', `/api/v1/collections/${collection}/entries`, { token, body })).status, 201);
      box = (await server.call('POST', '/api/v1/integrations', { token, body: { type: 'search_box', name: 'Box', collection_ids: [collection] } })).body.data.id;
      bot = (await server.call('POST', '/api/v1/integrations', { token, body: { type: 'chatbot', name: 'Bot', collection_ids: [collection] } })).body.data.id;
      searchWidget = (await server.call('POST', '/api/v1/widgets', { token, body: { type: 'search', name: 'Search', integration_id: box, websites: ['docs.example.com'] } })).body.data.key;
      chatWidget = (await server.call('POST', '/api/v1/widgets', { token, body: { type: 'chat', name: 'Chat', integration_id: bot, websites: ['docs.example.com'] } })).body.data.key;

      // Searches through the API, with what each found.
      const queries = ['reset password', 'Reset password ', 'reset password', 'invoices', 'invoices', 'qqzx vbnm', 'qqzx vbnm', '=HYPERLINK("http://evil.example")', 'download something',
        // A visitor's line breaks: a spreadsheet must not start a row, nor a formula, there.
        "pricing\n=cmd|' /C calc'!A0", 'billing\r@SUM(1+1)\r\n+tax'];
      for (const query of queries) {
        const res = await server.call('GET', `/api/v1/integrations/${box}/search?query=${encodeURIComponent(query)}&threshold=0.2`, { token });
        assert.equal(res.status, 200);
        const hits = res.body.data as { score_breakdown: { similarity: number } }[];
        searched.push({ query: query.trim().toLowerCase(), results: res.body.meta.total, top: hits.length ? Math.max(...hits.map((h) => h.score_breakdown.similarity)) : null });
      }
      // Clicks: three from the search widget, one reported through the events API.
      for (const rank of [1, 1, 2]) {
        const res = await server.call('POST', `${widgetPath(searchWidget)}/events`, { body: { name: 'click', url: `${ORIGIN}/reset`, rank, source: 'result' }, headers: { origin: ORIGIN } });
        assert.equal(res.status, 200);
      }
      assert.equal((await server.call('POST', `/api/v1/integrations/${box}/events`, { token, body: { event_type: 'click', meta: { url: `${ORIGIN}/invoices`, rank: 3 } } })).status, 200);
      await server.call('POST', `${widgetPath(searchWidget)}/events`, { body: { name: 'open' }, headers: { origin: ORIGIN } });

      // Chats: one answered from the docs, one with nothing relevant.
      answered = await chat('How do I reset my password?');
      unanswered = await chat('qqzx vbnm wxyz?');
      // Feedback: two thumbs down and one up on the answer (widget and API), one on an unknown answer.
      for (const name of ['thumbs_down', 'thumbs_down', 'thumbs_up']) {
        const res = await server.call('POST', `${widgetPath(chatWidget)}/events`, { body: { name, answer_id: answered, source: 'chat' }, headers: { origin: ORIGIN } });
        assert.equal(res.status, 200);
      }
      assert.equal((await server.call('POST', `/api/v1/integrations/${bot}/events`, { token, body: { event_type: 'thumbs_up', meta: { message_id: answered } } })).status, 200);
      await server.call('POST', `${widgetPath(chatWidget)}/events`, { body: { name: 'thumbs_up', answer_id: 'summary-1', source: 'summary' }, headers: { origin: ORIGIN } });
      // Summaries: one answered (and liked in the search widget), one with nothing relevant.
      const summarised = await server.call('GET', `/api/v1/integrations/${box}/summarise?query=${encodeURIComponent('how do I reset my password')}`, { token });
      summary = sse(summarised.body).find((e) => e.type === 'text_delta')!.message_id!;
      assert.equal((await server.call('GET', `/api/v1/integrations/${box}/summarise?query=qqzx+vbnm+wxyz&stream=false`, { token })).body.has_relevant_results, false);
      await server.call('POST', `${widgetPath(searchWidget)}/events`, { body: { name: 'thumbs_up', answer_id: summary, source: 'summary' }, headers: { origin: ORIGIN } });

      // Another organisation: its own chat, and feedback in Acme's widget naming its answer.
      otherToken = (await server.createOrg('Globex')).token;
      const otherCollection = (await server.call('POST', '/api/v1/collections', { token: otherToken, body: { name: 'Secret' } })).body.data.id;
      await server.call('POST', `/api/v1/collections/${otherCollection}/entries`, { token: otherToken, body: { title: 'Plans', raw_text: 'Globex secret launch plans: the moon base opens in March.' } });
      const otherBot = (await server.call('POST', '/api/v1/integrations', { token: otherToken, body: { type: 'chatbot', name: 'Globex bot', collection_ids: [otherCollection] } })).body.data.id;
      const otherChat = await server.call('POST', `/api/v1/integrations/${otherBot}/chat`, { token: otherToken, body: { message: 'When does the moon base open?' } });
      otherAnswer = sse(otherChat.body).find((e) => e.type === 'text_delta')!.message_id!;
      await server.call('POST', `${widgetPath(chatWidget)}/events`, { body: { name: 'thumbs_down', answer_id: otherAnswer }, headers: { origin: ORIGIN } });

      await server.container.searchLog.flush();
      answeredConversation = (await server.container.db.query<{ id: string }>('SELECT conversation_id::text AS id FROM conversation_messages WHERE id = $1', [answered]))[0]!.id;
    });
    after(() => server.close());

    it('counts searches, searches without results, clicks and chat answers by day and by hour', async () => {
      const res = await get(`activity?integration_id=${box}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.length, 30, 'a point a day, today and the 29 days before');
      const today = res.body.data.at(-1);
      assert.equal(today.period, `${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
      assert.deepEqual(today, { period: today.period, searches: searched.length, no_results: searched.filter((s) => s.results === 0).length, clicks: 4, chat_answers: 0, summaries: 2 });
      assert.ok(res.body.data.slice(0, -1).every((p: { searches: number }) => p.searches === 0));
      assert.deepEqual(Object.keys(res.body.meta).sort(), ['from', 'integration_id', 'interval', 'to']);

      const all = await get('activity?interval=hour&from=' + new Date(Date.now() - 3 * 3600_000).toISOString());
      assert.equal(all.status, 200, JSON.stringify(all.body));
      const sum = (key: string) => all.body.data.reduce((n: number, p: Record<string, number>) => n + p[key]!, 0);
      assert.deepEqual([sum('searches'), sum('clicks'), sum('chat_answers')], [searched.length, 4, 2], 'the whole organisation: both integrations');
      assert.ok(all.body.data.length >= 4 && all.body.data.length <= 5, `${all.body.data.length} hours`);
    });

    it('counts whole days from the daily counts and any other window from the searches themselves, alike', async () => {
      const day = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
      const rows = await server.container.db.query<{ searches: number }>('SELECT sum(searches)::int AS searches FROM search_daily');
      assert.equal(rows[0]!.searches, searched.length, 'search_daily holds the searches logged');
      for (const path of [`activity?integration_id=${box}`, `queries?kind=top&limit=100`, `clicks`]) {
        const daily = await get(`${path}${path.includes('?') ? '&' : '?'}from=${day}`);
        const exact = await get(`${path}${path.includes('?') ? '&' : '?'}from=${day}T00:00:00.001Z`);
        assert.equal(daily.status, 200);
        assert.deepEqual(daily.body.data, exact.body.data, path);
      }
    });

    it('lists top queries, those without results and those with only weak results', async () => {
      const top = await get(`queries?integration_id=${box}&limit=3`);
      assert.equal(top.status, 200);
      assert.deepEqual(top.body.data.map((q: { query: string; searches: number }) => [q.query, q.searches]), [['reset password', 3], ['qqzx vbnm', 2], ['invoices', 2]], 'by searches, then the latest first');
      assert.match(top.body.data[0].last_searched_at, TIMESTAMP);

      const none = await get('queries?kind=no_results');
      const expectedNone = [...new Set(searched.filter((s) => s.results === 0).map((s) => s.query))].sort();
      assert.ok(expectedNone.includes('qqzx vbnm'), 'the test has a search that finds nothing');
      assert.deepEqual(none.body.data.map((q: { query: string }) => q.query).sort(), expectedNone);
      assert.ok(none.body.data.every((q: { avg_results: number; avg_top_score: number | null }) => q.avg_results === 0 && q.avg_top_score === null));

      const weak = await get('queries?kind=low_similarity');
      const expectedWeak = [...new Set(searched.filter((s) => s.results > 0 && s.top! < 0.5).map((s) => s.query))].sort();
      assert.ok(expectedWeak.length > 0 && expectedWeak.length < new Set(searched.map((s) => s.query)).size, JSON.stringify(searched));
      assert.deepEqual(weak.body.data.map((q: { query: string }) => q.query).sort(), expectedWeak);
    });

    it('gives the click-through rate and the positions clicked', async () => {
      const res = await get(`clicks?integration_id=${box}`);
      assert.deepEqual(res.body.data, {
        searches: searched.length,
        clicks: 4,
        click_through_rate: Math.round((4 / searched.length) * 10_000) / 10_000,
        positions: [{ rank: 1, clicks: 2 }, { rank: 2, clicks: 1 }, { rank: 3, clicks: 1 }],
      });
      const chatOnly = await get(`clicks?integration_id=${bot}`);
      assert.deepEqual(chatOnly.body.data, { searches: 0, clicks: 0, click_through_rate: null, positions: [] });
    });

    it('shows feedback by answer with its question, never another organisation’s answer', async () => {
      const res = await get('feedback');
      assert.equal(res.status, 200);
      assert.deepEqual([res.body.data.thumbs_up, res.body.data.thumbs_down], [4, 3]);
      const liked = res.body.data.answers.find((a: { answer_id: string }) => a.answer_id === summary);
      assert.deepEqual([liked.question, liked.answer, liked.conversation_id, liked.thumbs_up], ['how do I reset my password', null, null, 1], 'a summary: its question, no stored text');
      const [first, ...rest] = res.body.data.answers;
      assert.deepEqual(
        { ...first, last_feedback_at: undefined },
        { answer_id: answered, thumbs_up: 2, thumbs_down: 2, last_feedback_at: undefined, conversation_id: answeredConversation, question: 'How do I reset my password?', answer: first.answer },
      );
      assert.match(first.answer, /Settings/);
      const foreign = rest.find((a: { answer_id: string }) => a.answer_id === otherAnswer);
      assert.deepEqual([foreign.answer, foreign.question, foreign.conversation_id], [null, null, null], 'an id naming another organisation’s answer shows nothing of it');
      assert.ok(!JSON.stringify(res.body).includes('moon'));
      assert.deepEqual(rest.find((a: { answer_id: string }) => a.answer_id === 'summary-1')?.answer, null);
    });

    it('lists chat answers that had nothing relevant, and conversations with their transcripts', async () => {
      const res = await get(`unanswered?integration_id=${bot}`);
      assert.deepEqual(res.body.data.map((a: { kind: string; answer_id: string; question: string }) => [a.kind, a.answer_id, a.question]), [['chat', unanswered, 'qqzx vbnm wxyz?']]);
      const summaries = await get(`unanswered?integration_id=${box}`);
      assert.deepEqual(summaries.body.data.map((a: { kind: string; question: string; answer: string | null; conversation_id: string | null }) => [a.kind, a.question, a.answer, a.conversation_id]), [['summary', 'qqzx vbnm wxyz', null, null]]);

      const list = await get(`conversations?integration_id=${bot}`);
      assert.equal(list.body.meta.total, 2);
      const item = list.body.data.find((c: { id: string }) => c.id === answeredConversation);
      assert.deepEqual([item.message_count, item.integration_id, item.title], [2, bot, 'How do I reset my password?']);
      assert.equal(typeof item.widget_id, 'string');

      const transcript = await get(`conversations/${answeredConversation}`);
      assert.equal(transcript.status, 200);
      assert.deepEqual(transcript.body.data.messages.map((m: { role: string; thumbs_up: number; thumbs_down: number }) => [m.role, m.thumbs_up, m.thumbs_down]), [['user', 0, 0], ['assistant', 2, 2]]);
      assert.ok(transcript.body.data.messages[1].citations.length > 0);
      assert.equal((await get('conversations/00000000-0000-0000-0000-000000000000')).status, 404);
      assert.equal((await get('conversations/not-a-uuid')).status, 404);
    });

    it('exports rows as CSV, with formulas defused', async () => {
      const res = await get(`queries?integration_id=${box}&format=csv&limit=100`);
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
      assert.match(String(res.headers['content-disposition']), /^attachment; filename="lore-queries-top-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv"$/);
      const lines = (res.body as string).trim().split('\r\n');
      assert.equal(lines[0], 'query,searches,avg_results,avg_top_score,last_searched_at');
      assert.match(lines[1]!, /^reset password,3,/);
      assert.equal((parse(res.body as string) as string[][]).length, 1 + new Set(searched.map((s) => s.query)).size);
      const formula = lines.find((l) => l.includes('hyperlink'))!;
      assert.match(formula, /^"'=hyperlink\(""http:\/\/evil\.example""\)",1,/);
      const activity = await get('activity?format=csv');
      assert.equal((activity.body as string).split('\r\n')[0], 'period,searches,no_results,clicks,chat_answers,summaries');
    });

    it('exports CSV that no reader can take a formula from: line breaks inside cells are quoted and defused', async () => {
      const formula = /^[=+\-@\t\r]/;
      const exports = ['activity', 'queries?kind=top&limit=100', 'queries?kind=no_results', 'queries?kind=low_similarity', 'clicks', 'feedback', 'unanswered', `queries?integration_id=${box}&limit=100`];
      for (const path of exports) {
        const res = await get(`${path}${path.includes('?') ? '&' : '?'}format=csv`);
        assert.equal(res.status, 200, path);
        const csv = res.body as string;
        // A real CSV parser ending rows at any line break outside quotes, as spreadsheets and
        // Python's csv module do: every record has the header's width, and no cell starts a formula.
        const records = parse(csv, { record_delimiter: ['\r\n', '\n', '\r'] }) as string[][];
        assert.ok(records.length >= 1, path);
        for (const record of records) {
          assert.equal(record.length, records[0]!.length, `${path}: ${JSON.stringify(record)}`);
          for (const cell of record) assert.doesNotMatch(cell, formula, `${path}: ${JSON.stringify(cell)}`);
        }
        // A reader that splits lines at any CR or LF (as spreadsheets do with a bare one).
        for (const line of csv.split(/\r\n|\r|\n/)) assert.doesNotMatch(line, formula, `${path}: ${JSON.stringify(line)}`);
      }
      const queries = parse((await get('queries?limit=100&format=csv')).body as string, { columns: true }) as { query: string }[];
      assert.ok(queries.some((q) => q.query === "pricing\n'=cmd|' /c calc'!a0"), 'the planted query is one cell of one row, defused after its break');
      assert.ok(queries.some((q) => q.query === "billing\r'@sum(1+1)\r\n'+tax"));
    });

    it('shows another organisation nothing of this one', async () => {
      for (const path of [`activity?integration_id=${box}`, `queries?integration_id=${box}`, `clicks?integration_id=${bot}`, `conversations/${answeredConversation}`]) {
        const res = await get(path, otherToken);
        assert.equal(res.status, 404, path);
      }
      const activity = await get('activity', otherToken);
      assert.equal(activity.body.data.reduce((n: number, p: { searches: number }) => n + p.searches, 0), 0);
      const queries = await get('queries', otherToken);
      assert.deepEqual(queries.body.data, []);
      const feedback = await get('feedback', otherToken);
      assert.deepEqual(feedback.body.data, { thumbs_up: 0, thumbs_down: 0, answers: [] }, 'feedback given in Acme’s widget is Acme’s');
      const conversations = await get('conversations', otherToken);
      assert.equal(conversations.body.meta.total, 1);
    });

    it('refuses bad windows and limits with 422, and API keys with 403', async () => {
      const cases: [string, string][] = [
        ['activity?from=yesterday', 'from'],
        ['activity?to=2026-13-45', 'to'],
        ['activity?from=2026-11-20&to=2026-11-10', 'from'],
        ['activity?from=2024-01-01&to=2026-01-01', 'from'],
        ['activity?interval=hour&from=2026-10-01&to=2026-11-01', 'interval'],
        ['activity?interval=week', 'interval'],
        ['queries?limit=0', 'limit'],
        ['queries?limit=5000', 'limit'],
        ['queries?kind=best', 'kind'],
        ['clicks?format=xml', 'format'],
      ];
      for (const [path, field] of cases) {
        const res = await get(path);
        assert.equal(res.status, 422, `${path}: ${JSON.stringify(res.body)}`);
        assert.ok(Object.keys(res.body.errors).some((k) => k.includes(field)), `${path}: ${JSON.stringify(res.body.errors)}`);
      }
      assert.equal((await get(`activity?integration_id=not-an-id`)).status, 404);
      const key = await server.call('POST', '/api/v1/api-keys', { token, body: { name: 'CMS', permissions: ['pages.read'] } });
      assert.equal(key.status, 201, JSON.stringify(key.body));
      assert.equal((await get('activity', key.body.key)).status, 403);
      assert.equal((await get('activity', null as never)).status, 401);
    });
  });
}

// The console's playground sends analytics=false: the organisation testing its own search is not
// a visitor. Only API v1 tokens reach the integration routes; the widget routes ignore the flag.
describe('analytics: the playground’s searches and summaries are not counted', () => {
  let server: TestServer;
  let token: string;
  let box: string;
  let widget: string;

  before(async () => {
    server = await startServer('pglite');
    token = (await server.createOrg('Acme')).token;
    const collection = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Docs' } })).body.data.id;
    await server.call('POST', `/api/v1/collections/${collection}/entries`, { token, body: { title: 'Reset your password', raw_text: 'To reset your password, open Settings, then Security, and choose Reset password.' } });
    box = (await server.call('POST', '/api/v1/integrations', { token, body: { type: 'search_box', name: 'Box', collection_ids: [collection] } })).body.data.id;
    widget = (await server.call('POST', '/api/v1/widgets', { token, body: { type: 'search', name: 'Search', integration_id: box, websites: ['docs.example.com'] } })).body.data.key;
  });
  after(() => server.close());

  const search = (query: string, extra = '') => server.call('GET', `/api/v1/integrations/${box}/search?query=${encodeURIComponent(query)}${extra}`, { token });
  const queries = async () => {
    await server.container.searchLog.flush();
    const res = await server.call('GET', '/api/v1/analytics/queries?kind=top&limit=100', { token });
    assert.equal(res.status, 200);
    return Object.fromEntries(res.body.data.map((q: { query: string; searches: number }) => [q.query, q.searches]));
  };

  it('leaves a search with analytics=false out of the queries and the activity, and counts one without', async () => {
    assert.equal((await search('playground question', '&analytics=false')).status, 200);
    assert.equal((await search('visitor question')).status, 200);
    assert.equal((await search('visitor question', '&analytics=true')).status, 200);
    assert.deepEqual(await queries(), { 'visitor question': 2 });
    const activity = await server.call('GET', '/api/v1/analytics/activity', { token });
    assert.equal(activity.body.data.at(-1).searches, 2);
  });

  it('leaves a summary with analytics=false out of the activity', async () => {
    const summarise = (extra: string) => server.call('GET', `/api/v1/integrations/${box}/summarise?query=how+do+I+reset+my+password&stream=false${extra}`, { token });
    assert.equal((await summarise('&analytics=false')).body.has_relevant_results, true);
    const before = (await server.call('GET', '/api/v1/analytics/activity', { token })).body.data.at(-1).summaries;
    assert.equal(before, 0);
    assert.equal((await summarise('')).status, 200);
    assert.equal((await server.call('GET', '/api/v1/analytics/activity', { token })).body.data.at(-1).summaries, 1);
  });

  it('counts a widget’s search that sends analytics=false all the same', async () => {
    const res = await server.call('GET', `/api/v1/${widget.replace('/', '/widgets/')}/search?query=widget+question&analytics=false`, { headers: { origin: 'https://docs.example.com' } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((await queries())['widget question'], 1);
  });

  it('refuses an analytics value other than true or false with 422', async () => {
    for (const extra of ['&analytics=no', '&analytics=false&analytics=true']) {
      const res = await search('x', extra);
      assert.equal(res.status, 422, `${extra}: ${JSON.stringify(res.body)}`);
      assert.deepEqual(Object.keys(res.body.errors), ['analytics']);
    }
  });

  it('documents the flag in the OpenAPI document of search and summarise', async () => {
    const doc = (await server.call('GET', '/api/v1/openapi.json')).body;
    for (const path of ['/api/v1/integrations/{integration}/search', '/api/v1/integrations/{integration}/summarise']) {
      const param = doc.paths[path].get.parameters.find((p: { name: string; in: string }) => p.name === 'analytics' && p.in === 'query');
      assert.deepEqual(param?.schema.enum, ['true', 'false'], path);
      assert.match(param.description ?? param.schema.description, /playground/);
    }
  });
});
