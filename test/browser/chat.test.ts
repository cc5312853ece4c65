// The chat widget (ServiceSdk.chat) in real Chromium, on a host page of another origin with a
// strict CSP; driven through the data-lore markers of docs/WIDGET.md.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkip, TEST, captureEvents, eventually, failedLoad, js, launchBrowser, startTogether, startLore, WAIT, withPage, type HostPage, type Lore, type Opened, type PageOptions, type WidgetRef } from './fixtures.js';
import { ChatWidget } from './pageObjects.js';

const SHOTS = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));
const PROMPTS = ['How do I reset my password?', 'What does the Enterprise plan include?'];

describe('browser: chat widget', { skip: browserSkip }, () => {
  let lore: Lore;
  let browser: Browser;
  let widget: WidgetRef;
  let french: WidgetRef;
  let broke: WidgetRef;

  /** A page mounting `ServiceSdk.chat(key, options)` as `window.chat`, plus `extra` page script. */
  const chatPage = (options: Record<string, unknown> = {}, page: HostPage & { key?: string; extra?: string } = {}) =>
    lore.site.page({ ...page, script: `window.chat = ServiceSdk.chat(${js(page.key ?? widget.key)}, ${js(options)}).mount();\n${page.extra ?? ''}` });

  /** Opens `url`, waits for the widget, runs `fn`, then checks the page stayed clean. */
  const withChat = (url: string, fn: (chat: ChatWidget, tab: Opened) => Promise<void>, options: PageOptions = {}) =>
    withPage(browser, url, options, async (tab) => {
      const chat = new ChatWidget(tab.page);
      await chat.waitMounted();
      await fn(chat, tab);
    });

  const handle = (page: Page, call: string) => page.evaluate(`window.chat.${call}`);

  before(async () => {
    [lore, browser] = await startTogether(startLore(), launchBrowser());
    widget = await lore.widget('chat', { prompts: PROMPTS });
    french = await lore.widget('chat', { default_language: 'fr' });
    const org = await lore.brokeOrg();
    broke = await lore.widget('chat', {}, { integration: org.chatbot, token: org.token });
  });
  after(async () => {
    await browser?.close();
    await lore?.close();
  });

  it('bubble: the launcher opens, close and Escape close, handle open/close/toggle; focus returns to the launcher', TEST, async () => {
    await withChat(chatPage(), async (chat, tab) => {
      await chat.launcher.waitFor({ state: 'visible', timeout: WAIT });
      assert.equal(await chat.isOpen(), false);
      await chat.open();
      await chat.input.waitFor({ state: 'visible', timeout: WAIT });
      await chat.closeButton.click();
      await chat.expectOpen(false);
      await chat.expectFocus('launcher');

      await handle(tab.page, 'open()');
      await chat.expectOpen(true);
      await handle(tab.page, 'close()');
      await chat.expectOpen(false);
      await handle(tab.page, 'toggle()');
      await chat.expectOpen(true);
      await handle(tab.page, 'toggle()');
      await chat.expectOpen(false);

      await chat.open();
      await chat.input.focus();
      await tab.page.keyboard.press('Escape');
      await chat.expectOpen(false);
      await chat.expectFocus('launcher');
    });
  });

  it('asks by typing + Enter and by handle.ask(): tokens stream (streaming → done) with citations', TEST, async () => {
    await withChat(chatPage(), async (chat, tab) => {
      await chat.open();
      await chat.recordStates();
      await chat.ask('How do I reset my password?');
      await eventually(async () => assert.deepEqual(await chat.messages('user').allInnerTexts(), ['How do I reset my password?']));
      const answer = await chat.lastAnswer();
      assert.match(answer, /reset/i);
      const states = await chat.states();
      assert.ok(states.indexOf('message:streaming') >= 0 && states.indexOf('message:streaming') < states.lastIndexOf('message:done'), `states: ${states}`);
      const citations = await chat.citations();
      assert.ok(citations.some((c) => /Reset your password/.test(c.text) && c.href === `${lore.site.origin}/docs/reset`), JSON.stringify(citations));
      assert.equal(await chat.input.inputValue(), '', 'the composer is cleared');

      await handle(tab.page, 'close()');
      await chat.expectOpen(false);
      await handle(tab.page, `ask(${js('What does the Enterprise plan include?')})`);
      await chat.expectOpen(true);
      await eventually(async () => assert.equal(await chat.messages('assistant').count(), 2));
      assert.match(await chat.lastAnswer(), /single sign-on/);
      assert.ok((await chat.citations()).some((c) => /Enterprise plan/.test(c.text)));
    });
  });

  it('inline citation markers ([1]) in an answer link to their source', TEST, async () => {
    await withChat(chatPage(), async (chat) => {
      await chat.open();
      await chat.ask('How do I reset my password?');
      await chat.lastAnswer();
      const inline = await chat.lastAssistant.locator('[data-lore="answer"] a').evaluateAll((links) => links.map((a) => `${a.textContent} → ${a.getAttribute('href')}`));
      assert.ok(inline.length > 0, 'the answer has inline citation markers');
      assert.deepEqual(inline, inline.map(() => `1 → ${lore.site.origin}/docs/reset`), 'inline citation markers link to their source');
    });
  });

  it('prompt chips: a click sends; hidden after the first message; back after a new conversation', TEST, async () => {
    await withChat(chatPage(), async (chat) => {
      await chat.open();
      await eventually(async () => assert.deepEqual(await chat.chips(), PROMPTS));
      await chat.prompts.nth(1).click();
      await eventually(async () => assert.deepEqual(await chat.messages('user').allInnerTexts(), [PROMPTS[1]]));
      assert.match(await chat.lastAnswer(), /Enterprise/);
      assert.deepEqual(await chat.chips(), [], 'chips are hidden once a message was sent');
      await chat.newButton.click();
      await eventually(async () => assert.equal(await chat.messages('user').count(), 0));
      await eventually(async () => assert.deepEqual(await chat.chips(), PROMPTS));
    });
  });

  it('prefill() opens the panel and fills the composer, capped at 280 characters, without sending', TEST, async () => {
    await withChat(chatPage(), async (chat, tab) => {
      let chats = 0;
      tab.page.on('request', (r) => { if (r.url().endsWith('/chat')) chats++; });
      await handle(tab.page, `prefill(${js('a'.repeat(300))})`);
      await chat.expectOpen(true);
      await eventually(async () => assert.equal(await chat.input.inputValue(), 'a'.repeat(280)));
      assert.equal(await chat.messages('user').count(), 0);
      assert.equal(chats, 0, 'nothing was sent');
    });
  });

  it('queues calls made before mount() and before the widget is ready; mount() returns the same handle, twice', TEST, async () => {
    const url = lore.site.page({
      script: `
        const handle = ServiceSdk.chat(${js(widget.key)});
        handle.open();
        handle.ask('How do I export my data?');
        window.sameHandle = handle.mount() === handle && handle.mount() === handle;
        window.chat = handle;`,
    });
    await withChat(url, async (chat, tab) => {
      assert.equal(await tab.page.evaluate('window.sameHandle'), true);
      await chat.expectOpen(true);
      assert.match(await chat.lastAnswer(), /export/i);
      assert.equal(await chat.messages('user').count(), 1);
      assert.equal(await tab.page.locator('[data-lore-widget="chat"]').count(), 1, 'mounted once');
    });
  });

  it('a trigger element replaces the launcher and toggles the panel', TEST, async () => {
    const url = chatPage({ trigger: '#help' }, { html: '<button id="help" type="button">Help</button>' });
    await withChat(url, async (chat, tab) => {
      await tab.page.click('#help');
      await chat.expectOpen(true);
      assert.equal(await chat.launcher.count(), 0, 'no default launcher');
      await handle(tab.page, 'close()');
      await chat.expectOpen(false);
      await tab.page.click('#help');
      await chat.expectOpen(true);
      await tab.page.click('#help');
      await chat.expectOpen(false);
    });
  });

  describe('sidebar', () => {
    const padding = (page: Page, selector: string) => page.$eval(selector, (el) => {
      const style = getComputedStyle(el);
      return { left: style.paddingLeft, right: style.paddingRight };
    });

    it('right side, width 2000 clamped to 720, the root element padded while open', TEST, async () => {
      await withChat(chatPage({ variant: 'sidebar', width: 2000 }), async (chat, tab) => {
        await handle(tab.page, 'open()');
        await chat.expectOpen(true);
        await eventually(async () => {
          const box = (await chat.panel.boundingBox())!;
          assert.equal(Math.round(box.width), 720);
          assert.equal(Math.round(box.x + box.width), 1280, 'flush right');
        });
        await eventually(async () => assert.deepEqual(await padding(tab.page, 'html'), { left: '0px', right: '720px' }));
        await handle(tab.page, 'close()');
        await chat.expectOpen(false);
        await eventually(async () => assert.deepEqual(await padding(tab.page, 'html'), { left: '0px', right: '0px' }));
      });
    });

    it('left side, width 100 clamped to 280, padding the content element', TEST, async () => {
      const url = chatPage({ variant: 'sidebar', side: 'left', width: 100, content: '#content' }, { html: '<div id="content"><p>Page text</p></div>' });
      await withChat(url, async (chat, tab) => {
        await handle(tab.page, 'open()');
        await chat.expectOpen(true);
        await eventually(async () => {
          const box = (await chat.panel.boundingBox())!;
          assert.equal(Math.round(box.width), 280);
          assert.equal(Math.round(box.x), 0, 'flush left');
        });
        await eventually(async () => assert.deepEqual(await padding(tab.page, '#content'), { left: '280px', right: '0px' }));
        assert.deepEqual(await padding(tab.page, 'html'), { left: '0px', right: '0px' }, 'only the content element is padded');
      });
    });

    it('is full-bleed without page padding at 640 px wide or less', TEST, async () => {
      await withChat(chatPage({ variant: 'sidebar', width: 400 }), async (chat, tab) => {
        await handle(tab.page, 'open()');
        await chat.expectOpen(true);
        await eventually(async () => {
          const box = (await chat.panel.boundingBox())!;
          assert.equal(Math.round(box.x), 0);
          assert.equal(Math.round(box.width), 600);
        });
        assert.deepEqual(await padding(tab.page, 'html'), { left: '0px', right: '0px' });
      }, { viewport: { width: 600, height: 800 } });
    });
  });

  it('inline variant renders into its target, without launcher', TEST, async () => {
    const url = chatPage({ variant: 'inline', target: '#slot' }, { html: '<h1>Support</h1><div id="slot"></div>' });
    await withChat(url, async (chat, tab) => {
      assert.equal(await tab.page.locator('#slot > [data-lore-widget="chat"]').count(), 1, 'the host is inside the target');
      assert.equal(await chat.launcher.count(), 0);
      await chat.input.waitFor({ state: 'visible', timeout: WAIT });
      await chat.ask('How do I download invoices?');
      assert.match(await chat.lastAnswer(), /invoice/i);
    });
  });

  it('thumbs up / down send feedback events and show as pressed', TEST, async () => {
    await withChat(chatPage(), async (chat, tab) => {
      const { bodies, answers } = await captureEvents(tab.page);
      await chat.open();
      await chat.ask('How do I reset my password?');
      await chat.lastAnswer();
      const up = chat.lastAssistant.locator('[data-lore="feedback-up"]');
      const down = chat.lastAssistant.locator('[data-lore="feedback-down"]');
      await up.click();
      await chat.expectAttr(up, 'aria-pressed', 'true');
      await down.click();
      await chat.expectAttr(down, 'aria-pressed', 'true');
      await chat.expectAttr(up, 'aria-pressed', 'false');
      await eventually(async () => assert.deepEqual(bodies.map((b) => b.name), ['thumbs_up', 'thumbs_down'], 'events sent by the page'));
      assert.ok(bodies.every((b) => b.answer_id && b.session_id), JSON.stringify(bodies));
      await eventually(async () => assert.deepEqual((await lore.events(widget.id)).map((e) => e.name).filter((n) => n.startsWith('thumbs')), ['thumbs_up', 'thumbs_down'], `events stored by the server; it answered: ${answers.join(' | ')}`));
    });
  });

  it('page action: a cited entry’s action shows a button; a click dispatches service:action and calls on() handlers; off() removes', TEST, async () => {
    const extra = `
      window.got = [];
      window.addEventListener('service:action', (e) => window.got.push({ via: 'event', detail: e.detail }));
      const handler = (detail) => window.got.push({ via: 'handler', detail });
      window.chat.on('action', handler);
      window.removeHandler = () => window.chat.off('action', handler);`;
    await withChat(chatPage({}, { extra }), async (chat, tab) => {
      await chat.open();
      await chat.ask('What does the Enterprise plan include?');
      await chat.lastAnswer();
      const button = chat.lastAssistant.locator('[data-lore="action"]');
      await button.waitFor({ state: 'visible', timeout: WAIT });
      assert.equal((await button.innerText()).trim(), 'Book a demo');
      await button.click();
      const got = await eventually(async () => {
        const seen: any[] = await tab.page.evaluate('window.got');
        assert.deepEqual(seen.map((g) => g.via).sort(), ['event', 'handler']);
        return seen;
      });
      const { detail } = got[0];
      assert.deepEqual(got[1].detail, detail, 'the same detail for the event and the handlers');
      assert.equal(detail.action.type, 'open_form');
      assert.equal(detail.action.label, 'Book a demo');
      assert.equal(detail.action.form, 'demo');
      assert.ok(detail.action.id && detail.conversationId && detail.answerId, JSON.stringify(detail));
      assert.equal(detail.widget, widget.key);

      await tab.page.evaluate('window.removeHandler(); window.got = []');
      await chat.ask('Tell me about the Enterprise plan demo');
      await eventually(async () => assert.equal(await chat.messages('assistant').count(), 2));
      await chat.lastAnswer();
      const second = chat.lastAssistant.locator('[data-lore="action"]');
      await second.click({ timeout: WAIT });
      await eventually(async () => assert.deepEqual((await tab.page.evaluate<any[]>('window.got')).map((g) => g.via), ['event']));
    });
  });

  it('destroy() removes the widget', TEST, async () => {
    await withChat(chatPage(), async (chat, tab) => {
      await chat.open();
      await handle(tab.page, 'destroy()');
      await eventually(async () => assert.equal(await tab.page.locator('[data-lore-widget]').count(), 0));
      await handle(tab.page, 'open()');
      assert.equal(await tab.page.locator('[data-lore-widget]').count(), 0, 'a destroyed handle stays gone');
    });
  });

  describe('theme', () => {
    const launcherColour = (chat: ChatWidget) => chat.launcher.evaluate((el) => getComputedStyle(el).backgroundColor);

    it('dark with accent_dark', TEST, async () => {
      await withChat(chatPage({ theme: 'dark', accent_dark: '#ff0000' }), async (chat) => {
        assert.equal(await chat.theme(), 'dark');
        assert.equal(await launcherColour(chat), 'rgb(255, 0, 0)');
      });
    });

    it('light with accent_light', TEST, async () => {
      await withChat(chatPage({ theme: 'light', accent_light: '#00aa00' }), async (chat) => {
        assert.equal(await chat.theme(), 'light');
        assert.equal(await launcherColour(chat), 'rgb(0, 170, 0)');
      });
    });

    it('auto follows the system colour scheme', TEST, async () => {
      await withChat(chatPage({ theme: 'auto' }), async (chat) => assert.equal(await chat.theme(), 'dark'), { colorScheme: 'dark' });
      await withChat(chatPage({ theme: 'auto' }), async (chat) => assert.equal(await chat.theme(), 'light'), { colorScheme: 'light' });
    });
  });

  describe('locale', () => {
    /** The host's lang and the (translated) label of the send button, with the panel open. */
    const ui = async (locale: string, key = widget.key) => {
      let seen = { lang: '', send: '' };
      await withChat(chatPage({}, { key }), async (chat, tab) => {
        await handle(tab.page, 'open()');
        await chat.expectOpen(true);
        const send = chat.el('send');
        seen = { lang: (await chat.lang()) ?? '', send: (await send.getAttribute('aria-label', { timeout: WAIT })) ?? (await send.innerText()) };
      }, { locale });
      return seen;
    };

    it('follows the browser language when supported, mapping zh-TW and pt-PT', TEST, async () => {
      const english = await ui('en-US');
      assert.deepEqual(english, { lang: 'en', send: 'Send' });
      const german = await ui('de-DE');
      assert.equal(german.lang, 'de');
      assert.notEqual(german.send, english.send, 'a visible UI string is translated');
      assert.equal((await ui('zh-TW')).lang, 'zh-Hant');
      assert.equal((await ui('pt-PT')).lang, 'pt-BR');
      assert.equal((await ui('zh-CN')).lang, 'zh-Hans');
    });

    it('falls back to default_language, then English', TEST, async () => {
      const french_ = await ui('sv-SE', french.key);
      assert.equal(french_.lang, 'fr');
      assert.notEqual(french_.send, 'Send');
      assert.equal((await ui('sv-SE')).lang, 'en');
    });
  });

  it('402: shows plain search hits instead of an answer', TEST, async () => {
    await withChat(chatPage({}, { key: broke.key }), async (chat) => {
      await chat.open();
      await chat.ask('How do I reset my password?');
      const hits = chat.el('hit');
      await hits.first().waitFor({ state: 'visible', timeout: WAIT });
      const first = hits.first();
      assert.match(await first.innerText(), /Reset your password/);
      assert.equal(await first.getAttribute('href'), `${lore.site.origin}/docs/reset`);
    }, { allow: [failedLoad(402)] });
  });

  it('not covered: says so and offers the closest pages as links, not as sources', TEST, async () => {
    // Turkish, which the bundled model knows badly: the question's article is absent, yet its
    // passages are close by their cosine (test/evidence.test.ts shows the same over HTTP).
    const turkish: { paragraphs: { id: string; text: string }[]; unrelated: string[] } = JSON.parse(readFileSync(new URL('../fixtures/xquad-tr-evidence.json', import.meta.url), 'utf8'));
    const token = lore.org.token;
    const collection = (await lore.server.call('POST', '/api/v1/collections', { token, body: { name: 'Türkçe' } })).body.data.id;
    const entries = turkish.paragraphs.map((p) => ({ source_type: 'xquad', source_id: p.id, title: `Paragraf ${p.id}`, raw_text: p.text, source_url: `${lore.site.origin}/docs/tr-${p.id.replace(/[^a-z]/gi, '').toLowerCase() || 'p'}` }));
    assert.equal((await lore.server.call('POST', `/api/v1/collections/${collection}/entries/batch`, { token, body: { entries } })).status, 200);
    const integration = (await lore.server.call('POST', '/api/v1/integrations', { token, body: { type: 'chatbot', name: 'Türkçe', collection_ids: [collection] } })).body.data.id;
    const turkishWidget = await lore.widget('chat', {}, { integration });
    await withChat(chatPage({}, { key: turkishWidget.key }), async (chat, { page }) => {
      await chat.open();
      await chat.ask(turkish.unrelated[0]!);
      const message = chat.el('message').last();
      await eventually(async () => assert.equal(await message.getAttribute('data-state'), 'done'));
      assert.equal(await message.locator('[data-lore=answer]').innerText(), 'Üzgünüm, belgelerimizde bunun bir yanıtını bulamadım.');
      const pages = message.locator('[data-lore=related-page]');
      assert.ok((await pages.count()) > 0, 'the closest pages are offered');
      for (const href of await pages.evaluateAll((links) => links.map((a) => a.getAttribute('href')))) assert.ok(entries.some((e) => e.source_url === href), String(href));
      assert.equal(await message.locator('[data-lore=citation]').count(), 0, 'nothing cited');
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: `${SHOTS}chat-not-covered.png` });
    });
  });

  it('a signed visitor (user {id, hash}) finds their latest conversation on the next visit and continues it', TEST, async () => {
    const signed = await lore.widget('chat', { prompts: PROMPTS });
    const user = { id: 'visitor-7', hash: createHmac('sha256', signed.identity).update('visitor-7').digest('hex') };
    await withChat(chatPage({ user }, { key: signed.key }), async (chat) => {
      await chat.open();
      await chat.ask('How do I export my data?');
      assert.match(await chat.lastAnswer(), /export/i);
    });
    await withChat(chatPage({ user }, { key: signed.key }), async (chat) => {
      await chat.open();
      await eventually(async () => assert.deepEqual(await chat.messages('user').allInnerTexts(), ['How do I export my data?']));
      assert.match(await chat.lastAnswer(), /export/i);
      assert.deepEqual(await chat.chips(), []);
      await chat.ask('How do I reset my password?');
      await eventually(async () => assert.equal(await chat.messages('assistant').count(), 2));
      assert.match(await chat.lastAnswer(), /reset/i);
    });
    const rows = await lore.server.container.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM conversation_messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.widget_id = $1 AND c.visitor_id = 'visitor-7' GROUP BY c.id`,
      [signed.id]);
    assert.deepEqual(rows.map((r) => r.n), [4], 'one conversation of two turns');
    // An anonymous visitor of the same widget starts empty, with the chips.
    await withChat(chatPage({}, { key: signed.key }), async (chat) => {
      await chat.open();
      assert.deepEqual(await chat.chips(), PROMPTS);
      assert.equal(await chat.messages().count(), 0);
    });
  });

  it('speech input: a mic where the browser has speech recognition (dictation is sent), none without it or when off', TEST, async () => {
    // A stand-in for the Web Speech API: it "hears" one question, then ends.
    const hears = `window.SpeechRecognition = class {
      start() { setTimeout(() => { this.onresult?.({ results: [Object.assign([{ transcript: 'How do I export my data?' }], { isFinal: true })] }); this.onend?.(); }, 50); }
      stop() { this.onend?.(); }
    };`;
    await withChat(chatPage({ speech_input: true }), async (chat) => {
      await chat.open();
      await chat.el('mic').click({ timeout: WAIT });
      await eventually(async () => assert.deepEqual(await chat.messages('user').allInnerTexts(), ['How do I export my data?']));
      assert.match(await chat.lastAnswer(), /export/i);
    }, { init: hears });
    await withChat(chatPage({ speech_input: true }), async (chat) => {
      await chat.open();
      assert.equal(await chat.el('mic').count(), 0);
    }, { init: 'delete window.SpeechRecognition; delete window.webkitSpeechRecognition;' });
    await withChat(chatPage({ speech_input: false }), async (chat) => {
      await chat.open();
      assert.equal(await chat.el('mic').count(), 0);
    }, { init: hears });
  });
});
