// ServiceSdk.headless in real Chromium, on a host page of another origin with a strict CSP.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserSkip, TEST, captureEvents, eventually, failedLoad, js, launchBrowser, startTogether, openPage, startLore, withPage, type Lore, type WidgetRef } from './fixtures.js';

describe('browser: headless client', { skip: browserSkip }, () => {
  let lore: Lore;
  let browser: Browser;
  let chatWidget: WidgetRef;
  let searchWidget: WidgetRef;
  let brokeWidget: WidgetRef;
  let chatPage: string;
  let searchPage: string;

  /** A page whose script creates the client as `window.client`. */
  const clientPage = (key: string) => lore.site.page({ script: `window.client = ServiceSdk.headless(${js(key)});` });

  before(async () => {
    [lore, browser] = await startTogether(startLore(), launchBrowser());
    chatWidget = await lore.widget('chat');
    searchWidget = await lore.widget('search');
    const broke = await lore.brokeOrg();
    brokeWidget = await lore.widget('chat', {}, { integration: broke.chatbot, token: broke.token });
    chatPage = clientPage(chatWidget.key);
    searchPage = clientPage(searchWidget.key);
  });
  after(async () => {
    await browser?.close();
    await lore?.close();
  });

  it('is ready at once and searches with a limit', TEST, async () => {
    await withPage(browser, searchPage, {}, async (tab) => {
      const result = await tab.page.evaluate(async () => {
        const client = (window as any).client;
        const hits = await client.search('How do I reset my password?', { limit: 2 });
        const one = await client.search('download invoices as PDF', { limit: 1 });
        return { sessionId: client.sessionId, titles: hits.map((h: any) => h.title), urls: hits.map((h: any) => h.source_url), one: one.map((h: any) => h.title) };
      });
      assert.ok(result.titles.length >= 1 && result.titles.length <= 2, JSON.stringify(result));
      assert.equal(result.titles[0], 'Reset your password');
      assert.equal(result.urls[0], `${lore.site.origin}/docs/reset`);
      assert.deepEqual(result.one, ['Invoices and billing']);
      assert.match(result.sessionId, /^[A-Za-z0-9_-]{1,64}$/);
    });
  });

  it('fetches the presentation config', TEST, async () => {
    await withPage(browser, chatPage, {}, async (tab) => {
      const config = await tab.page.evaluate(() => (window as any).client.fetchConfig());
      assert.equal(config.type, 'chatbot');
      assert.equal(config.name, 'Helper');
      assert.equal(config.debounce, 1000);
    });
  });

  it('chat streams tokens and statuses, resolves with the reply, and continues a conversation', TEST, async () => {
    await withPage(browser, chatPage, {}, async (tab) => {
      const first = await tab.page.evaluate(async () => {
        const deltas: string[] = [];
        const fulls: string[] = [];
        const statuses: string[] = [];
        const reply = await (window as any).client.chat('What does the Enterprise plan include?', {
          onToken: (delta: string, full: string) => { deltas.push(delta); fulls.push(full); },
          onStatus: (status: string) => statuses.push(status),
        });
        return { reply, deltas, fulls, statuses };
      });
      const { reply, deltas, fulls, statuses } = first;
      assert.deepEqual(Object.keys(reply).filter((k) => ['text', 'conversationId', 'answerId', 'sources', 'actions'].includes(k)).sort(), ['actions', 'answerId', 'conversationId', 'sources', 'text']);
      assert.match(reply.text, /single sign-on/);
      assert.ok(deltas.length > 1, `streamed in several deltas, got ${deltas.length}`);
      assert.equal(deltas.join(''), reply.text, 'the deltas add up to the text');
      fulls.forEach((full, i) => assert.equal(full, deltas.slice(0, i + 1).join(''), 'full is the text so far'));
      assert.ok(statuses.includes('searching'), `statuses: ${statuses}`);
      for (const status of statuses) assert.ok(['searching', 'web_searching', 'sending', 'offering'].includes(status), status);
      assert.ok(reply.conversationId, 'a conversation id');
      assert.ok(reply.answerId, 'an answer id');
      assert.ok(reply.sources.some((s: any) => s.title === 'Enterprise plan' && s.url === `${lore.site.origin}/docs/enterprise`), JSON.stringify(reply.sources));
      assert.ok(Array.isArray(reply.actions));
      const demo = reply.actions.find((a: any) => a.type === 'open_form');
      assert.ok(demo, `the cited entry's meta.action is offered: ${JSON.stringify(reply.actions)}`);
      assert.equal(demo.label, 'Book a demo');
      assert.equal(demo.form, 'demo');
      assert.ok(demo.id);

      const followUp = await tab.page.evaluate(
        (conversationId) => (window as any).client.chat('Does it include audit logs?', { conversationId }),
        reply.conversationId,
      );
      assert.equal(followUp.conversationId, reply.conversationId, 'the follow-up continues the conversation');
      assert.notEqual(followUp.answerId, reply.answerId);
      assert.match(followUp.text, /audit logs/);
    });
  });

  it('summarize resolves with {summarized, text}, streaming tokens', TEST, async () => {
    await withPage(browser, searchPage, {}, async (tab) => {
      const result = await tab.page.evaluate(async () => {
        let last = '';
        let count = 0;
        const summary = await (window as any).client.summarize('How do I reset my password?', { onToken: (_d: string, full: string) => { last = full; count++; } });
        return { summary, last, count };
      });
      assert.equal(result.summary.summarized, true);
      assert.match(result.summary.text, /reset/i);
      assert.equal(result.last, result.summary.text);
      assert.ok(result.count > 1);
    });
  });

  it('keeps sessionId for the tab across reloads; a new tab gets a new one; search sends it', TEST, async () => {
    await withPage(browser, searchPage, {}, async (tab) => {
      const sessionOf = () => tab.page.evaluate(() => (window as any).client.sessionId as string);
      const first = await sessionOf();
      await tab.page.reload();
      assert.equal(await sessionOf(), first, 'same tab after reload');
      const other = await tab.context.newPage();
      await other.goto(searchPage);
      const second = await other.evaluate(() => (window as any).client.sessionId as string);
      assert.notEqual(second, first, 'a new tab has its own session');

      const sent = tab.page.waitForRequest((r) => r.url().includes('/search?'));
      await tab.page.evaluate(() => (window as any).client.search('export data'));
      assert.equal(new URL((await sent).url()).searchParams.get('session_id'), first);
    });
  });

  it('402: chat resolves with the search hits from the response instead of failing', TEST, async () => {
    await withPage(browser, clientPage(brokeWidget.key), { allow: [failedLoad(402)] }, async (tab) => {
      const reply = await tab.page.evaluate(() => (window as any).client.chat('How do I reset my password?'));
      assert.ok(Array.isArray(reply.hits) && reply.hits.length > 0, JSON.stringify(reply));
      assert.equal(reply.hits[0].title, 'Reset your password');
    });
  });

  it('trackEvent reaches the server with url, rank, source and the session', TEST, async () => {
    await withPage(browser, searchPage, {}, async (tab) => {
      const { bodies, answers } = await captureEvents(tab.page);
      const sessionId = await tab.page.evaluate(() => {
        const client = (window as any).client;
        client.trackEvent('click', { url: 'http://localhost/docs/reset', rank: 2, source: 'result' });
        return client.sessionId as string;
      });
      await eventually(() => assert.deepEqual(bodies, [{ name: 'click', url: 'http://localhost/docs/reset', rank: 2, source: 'result', session_id: sessionId }], 'sent by the page'));
      const events = await eventually(async () => {
        const rows = await lore.events(searchWidget.id);
        assert.equal(rows.length, 1, `stored events; the server answered: ${answers.join(' | ')}`);
        return rows;
      });
      assert.deepEqual(events, [{ name: 'click', url: 'http://localhost/docs/reset', rank: 2, source: 'result', session_id: sessionId }]);
    });
  });

  it('token: a preview page off the websites list works with the widget secret as bearer, and context goes with chat', TEST, async () => {
    const unlisted = await lore.widget('chat', {}, { websites: ['www.elsewhere.example'] });
    const page = lore.site.page({ script: `window.client = ServiceSdk.headless(${js(unlisted.key)}, { token: ${js(unlisted.secret)}, context: { plan: 'pro' } });` });
    await withPage(browser, page, {}, async (tab) => {
      const sent: any[] = [];
      tab.page.on('request', (request) => {
        if (request.method() === 'POST' && request.url().endsWith('/chat')) sent.push({ auth: request.headers().authorization, body: request.postDataJSON() });
      });
      const reply = await tab.page.evaluate(async () => {
        const client = (window as any).client;
        return { config: (await client.fetchConfig()).name, text: (await client.chat('How do I reset my password?')).text };
      });
      assert.equal(reply.config, 'Helper');
      assert.match(reply.text, /reset/i);
      assert.equal(sent[0].auth, `Bearer ${unlisted.secret}`);
      assert.deepEqual(sent[0].body.context, { url: page, title: sent[0].body.context.title, plan: 'pro' });
    });
    // Without the token the same page is refused (no CORS for it).
    const refused = lore.site.page({ script: `window.client = ServiceSdk.headless(${js(unlisted.key)}, { context: false });` });
    const other = await openPage(browser, refused, { allow: [/CORS|Failed to load resource|blocked/i] });
    try {
      const error = await other.page.evaluate(() => (window as any).client.chat('hi').then(() => 'ok', (e: Error) => e.name));
      assert.equal(error, 'LoreApiError');
    } finally {
      await other.close();
    }
  });

  it('conversation operations for a signed visitor: list, get, keep/release, delete one and all; identify(null) forgets', TEST, async () => {
    const user = { id: 'visitor-9', hash: createHmac('sha256', chatWidget.identity).update('visitor-9').digest('hex') };
    const page = lore.site.page({ script: `window.client = ServiceSdk.headless(${js(chatWidget.key)}, { user: ${js(user)} });` });
    await withPage(browser, page, {}, async (tab) => {
      const result = await tab.page.evaluate(async () => {
        const client = (window as any).client;
        const first = await client.chat('How do I reset my password?');
        await client.chat('And how do I export my data?', { conversationId: first.conversationId });
        const second = await client.chat('Where are my invoices?');
        const listed = await client.listConversations();
        const transcript = await client.getConversation(first.conversationId);
        const kept = (await client.keepConversation(first.conversationId)).kept;
        const released = (await client.keepConversation(first.conversationId, false)).kept;
        await client.deleteConversation(first.conversationId);
        const afterOne = (await client.listConversations()).map((c: any) => c.id);
        await client.deleteConversations();
        const afterAll = await client.listConversations();
        client.identify(null);
        const anonymous = await client.listConversations().then(() => 'listed', (e: Error) => e.message);
        return { ids: listed.map((c: any) => c.id), first: first.conversationId, second: second.conversationId, roles: transcript.messages.map((m: any) => m.role), kept, released, afterOne, afterAll, anonymous };
      });
      assert.deepEqual(result.ids, [result.second, result.first], 'newest first');
      assert.deepEqual(result.roles, ['user', 'assistant', 'user', 'assistant']);
      assert.equal(result.kept, true);
      assert.equal(result.released, false);
      assert.deepEqual(result.afterOne, [result.second]);
      assert.deepEqual(result.afterAll, []);
      assert.match(result.anonymous, /identify/);
    });
  });
});
