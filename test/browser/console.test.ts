// The console (/console) in real Chromium against a real Lore: sign-in, analytics numbers
// checked against the traffic the test made (searches, clicks → CTR, chat answers, thumbs),
// the management pages' main actions end to end, another organisation seeing none of it,
// the master key's organisations, and screenshots at 1280 and 375 px, light and dark, saved
// to test-results/screenshots/ for review.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { MASTER_KEY } from '../helpers.js';
import { browserSkip, TEST, eventually, launchBrowser, startTogether, startLore, withPage, type Lore, type WidgetRef } from './fixtures.js';

const OUT = fileURLToPath(new URL('../../test-results/screenshots/', import.meta.url));
const SEARCHES = ['reset password', 'reset password', 'invoices', 'export my data', 'zzqx wvut', 'enterprise plan single sign-on'];
const CLICKS = [1, 1, 2];

/** Signs in on the console page with `token`, by keyboard. */
async function signIn(page: Page, token: string) {
  await page.getByLabel('Token').fill(token);
  await page.keyboard.press('Enter');
  await page.locator('header.top').waitFor();
}

/** The browser logs refused API calls; the console's answers to them are what is checked. */
const REFUSED = { allow: [/status of 40[14]/] };
const tile = (page: Page, name: string) => page.getByTestId(`tile-${name}`).locator('.tile-value');

describe('browser: the console', { skip: browserSkip }, () => {
  let lore: Lore;
  let browser: Browser;
  let searchWidget: WidgetRef;
  let conversation: string;
  let collection: string;

  before(async () => {
    [lore, browser] = await startTogether(startLore(), launchBrowser());
    const { server, org, site } = lore;
    searchWidget = await lore.widget('search');
    for (const query of SEARCHES) {
      const res = await server.call('GET', `/api/v1/integrations/${lore.searchBox}/search?query=${encodeURIComponent(query)}`, { token: org.token });
      assert.equal(res.status, 200);
    }
    for (const rank of CLICKS) {
      const res = await server.call('POST', `/api/v1/${searchWidget.key.replace('/', '/widgets/')}/events`, { body: { name: 'click', rank, url: `${site.origin}/docs/reset`, source: 'result' }, headers: { origin: site.origin } });
      assert.equal(res.status, 200);
    }
    const chat = await server.call('POST', `/api/v1/integrations/${lore.chatbot}/chat`, { token: org.token, body: { message: 'How do I reset my password?', stream: false } });
    assert.equal(chat.status, 200);
    conversation = chat.body.conversation_id;
    const [answer] = await server.container.db.query<{ id: string }>("SELECT id::text AS id FROM conversation_messages WHERE conversation_id = $1 AND role = 'assistant'", [conversation]);
    await server.call('POST', `/api/v1/integrations/${lore.chatbot}/events`, { token: org.token, body: { event_type: 'thumbs_down', meta: { message_id: answer!.id } } });
    await server.container.searchLog.flush();
    collection = (await server.call('GET', '/api/v1/collections', { token: org.token })).body.data[0].id;
    mkdirSync(OUT, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await lore?.close();
  });

  it('signs in with an organisation token and shows the analytics of the traffic made', TEST, async () => {
    await withPage(browser, `${lore.api}/console`, REFUSED, async ({ page }) => {
      await page.getByLabel('Token').fill('lore_not_a_real_token');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').filter({ hasText: 'does not know this token' }).waitFor();

      await signIn(page, lore.org.token);
      await eventually(async () => assert.equal(await tile(page, 'searches').textContent(), String(SEARCHES.length)));
      const ctr = ((CLICKS.length / SEARCHES.length) * 100).toFixed(1);
      assert.equal(await tile(page, 'ctr').textContent(), `${ctr} %`);
      assert.equal(await tile(page, 'answers').textContent(), '1');
      assert.equal(await tile(page, 'feedback').textContent(), '0 / 1');
      assert.ok(await page.locator('.chart canvas').count() > 0, 'the activity chart is drawn');
      const top = page.locator('.card', { has: page.getByRole('heading', { name: 'Top queries' }) });
      assert.deepEqual(await top.locator('tbody tr').first().locator('td').allTextContents().then((t) => t.slice(0, 2)), ['reset password', '2']);
      const positions = page.getByRole('list', { name: 'Clicks by result position' }).locator('li');
      assert.deepEqual(await positions.allTextContents(), ['#12', '#21']);

      const download = page.waitForEvent('download');
      await top.getByRole('button', { name: 'Export CSV' }).click();
      assert.match((await download).suggestedFilename(), /^lore-queries-top-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);

      // The transcript behind the thumbs down.
      await page.locator('.card', { has: page.getByRole('heading', { name: 'Feedback on answers' }) }).getByRole('link', { name: 'How do I reset my password?' }).click();
      await page.locator('li.message[data-role="assistant"]').waitFor();
      assert.match(await page.locator('li.message[data-role="assistant"] .feedback').textContent() ?? '', /Not helpful: 1/);
      assert.ok(await page.locator('.sources a').count() > 0, 'the sources the answer cited');
    });
  });

  it('renders an answer’s markdown in the transcript as the widget does, its [n] linked, and a hostile answer inert', TEST, async () => {
    const [message] = await lore.server.container.db.query<{ id: string }>("SELECT id::text AS id FROM conversation_messages WHERE conversation_id = $1 AND role = 'assistant'", [conversation]);
    const hostile = 'Open **Settings**, then *Security* [1].\n\n- first\n- second\n\nRun `lore serve`. <img src=x onerror="window.pwned=1"> <script>window.pwned=2</script> [click](javascript:window.pwned=3)';
    await lore.server.container.db.query('UPDATE conversation_messages SET content = $1 WHERE id = $2', [hostile, message!.id]);
    await withPage(browser, `${lore.api}/console#/conversations/${conversation}`, {}, async ({ page }) => {
      await signIn(page, lore.org.token);
      const answer = page.locator('li.message[data-role="assistant"] .content');
      await answer.locator('strong').waitFor();
      assert.equal(await answer.locator('strong').textContent(), 'Settings');
      assert.equal(await answer.locator('em').textContent(), 'Security');
      assert.deepEqual(await answer.locator('li').allTextContents(), ['first', 'second']);
      assert.equal(await answer.locator('code').textContent(), 'lore serve');
      const text = (await answer.textContent()) ?? '';
      assert.doesNotMatch(text, /\*\*|`/, 'no raw markdown');
      const cite = answer.locator('a.cite');
      assert.equal(await cite.textContent(), '1');
      assert.equal(await cite.getAttribute('href'), `${lore.site.origin}/docs/reset`, 'the first source the answer cited');
      // The raw HTML is shown as text; nothing of it runs or loads.
      assert.match(text, /<img src=x onerror="window.pwned=1">/);
      assert.equal(await answer.locator('img, script, [onerror]').count(), 0);
      assert.equal(await answer.locator('a[href^="javascript:"]').count(), 0);
      assert.equal(await page.evaluate(() => (window as { pwned?: number }).pwned), undefined);
      // The visitor's question stays plain text.
      assert.equal(await page.locator('li.message[data-role="user"] .content').textContent(), 'How do I reset my password?');
    });
  });

  it('edits and deletes an entry, and creates and revokes an API key', TEST, async () => {
    await withPage(browser, `${lore.api}/console#/collections`, {}, async ({ page }) => {
      await signIn(page, lore.org.token);
      await page.getByRole('link', { name: 'Help center' }).click();
      await page.getByText('5 entries').waitFor();
      await page.getByLabel('Find entries').fill('limits');
      await page.getByRole('button', { name: 'Find', exact: true }).click();
      await page.getByText('1 entry', { exact: true }).waitFor();
      await page.getByLabel('Find entries').fill('');
      await page.getByRole('button', { name: 'Find', exact: true }).click();
      await page.getByText('5 entries').waitFor();
      page.on('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Invoices and billing' }).click();
      await page.getByLabel('Title').fill('Invoices, billing and payment');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('button', { name: 'Invoices, billing and payment' }).waitFor();
      await page.getByRole('button', { name: 'API rate limits' }).click();
      await page.getByRole('button', { name: 'Delete entry' }).click();
      await page.getByText('4 entries').waitFor();
      const entries = (await lore.server.call('GET', `/api/v1/collections/${collection}/entries`, { token: lore.org.token })).body.data as { title: string }[];
      assert.deepEqual(entries.map((e) => e.title).sort(), ['Enterprise plan', 'Export your data', 'Invoices, billing and payment', 'Reset your password']);

      await page.getByRole('link', { name: 'API keys' }).click();
      await page.getByLabel('Name').fill('CMS sync');
      await page.getByLabel('Help center').check();
      await page.getByRole('button', { name: 'Create key' }).click();
      const key = await page.getByTestId('new-key').textContent();
      assert.match(key ?? '', /^lore_key_/);
      const me = await lore.server.call('GET', '/api/v1/me', { token: key! });
      assert.equal(me.status, 200, 'the key shown works');
      assert.match(await page.getByRole('row', { name: /CMS sync/ }).textContent() ?? '', /Help center/, 'limited to the collection ticked');
      await page.getByRole('row', { name: /CMS sync/ }).getByRole('button', { name: 'Revoke' }).click();
      await page.getByText('No API keys').waitFor();
      assert.equal((await lore.server.call('GET', '/api/v1/me', { token: key! })).status, 401, 'revoked');

      await page.getByRole('link', { name: 'Widgets' }).click();
      const snippet = await page.getByLabel('Embed snippet').inputValue();
      assert.equal(snippet, `<script src="${lore.api}/widget/v1/service.js" data-search="${searchWidget.key}" defer></script>`);
    });
  });

  it('adds a website crawler to a collection and shows its run’s report', TEST, async () => {
    await withPage(browser, `${lore.api}/console#/collections/${collection}`, {}, async ({ page }) => {
      await signIn(page, lore.org.token);
      await page.getByLabel('Start URL').fill(`${lore.site.origin}/docs/limits`);
      await page.getByLabel('Max pages').fill('5');
      await page.getByLabel('One entry per section').check();
      await page.getByRole('button', { name: 'Add crawler' }).click();
      const crawler = page.getByTestId('crawler');
      await crawler.waitFor();
      assert.match(await crawler.textContent() ?? '', /Every 24 h.* · one entry a section/);
      await lore.server.container.crawlerRunner.tick(); // the server's periodic look for due crawlers
      await page.getByRole('button', { name: 'Run now' }).waitFor();
      await eventually(async () => {
        await page.reload();
        await page.getByTestId('last-run').waitFor({ timeout: 2000 });
      });
      assert.match(await page.getByTestId('last-run').textContent() ?? '', /Last run .*: 1 page fetched — \d+ new/);
      for (const [name, width] of [['desktop', 1280], ['mobile', 375]] as const) {
        await page.setViewportSize({ width, height: 900 });
        const shot = `${OUT}console-crawlers-${name}.png`;
        await page.locator('[aria-labelledby="crawlers-title"]').screenshot({ path: shot });
        console.log(`screenshot: ${shot}`);
      }
      // A run whose process died mid-crawl (as a kill -9 leaves it): the console says so, with when it was last seen.
      await lore.server.container.db.query(
        `UPDATE crawlers SET run = '{}'::jsonb, progress = '{"found": 9, "fetched": 4, "written": 3, "failed": 0}'::jsonb,
           seen_at = clock_timestamp() - interval '40 seconds', leased_until = clock_timestamp() - interval '10 seconds' WHERE collection_id = $1`,
        [collection],
      );
      await page.reload();
      assert.match(await page.getByTestId('progress').textContent() ?? '', /^Interrupted \(last seen .+; it goes on from here shortly\): 4 of 9 pages fetched, 3 written, 0 failed$/);
      assert.match(await crawler.textContent() ?? '', /interrupted/);
      for (const [name, width] of [['desktop', 1280], ['mobile', 375]] as const) {
        await page.setViewportSize({ width, height: 900 });
        const shot = `${OUT}console-crawlers-interrupted-${name}.png`;
        await page.locator('[aria-labelledby="crawlers-title"]').screenshot({ path: shot });
        console.log(`screenshot: ${shot}`);
      }
      await lore.server.container.db.query(`UPDATE crawlers SET run = NULL, progress = NULL, seen_at = NULL, leased_until = '-infinity' WHERE collection_id = $1`, [collection]);
    });
  });

  it('edits a widget’s settings beside a live preview of the real widget', TEST, async () => {
    await withPage(browser, `${lore.api}/console#/widgets`, {}, async ({ page }) => {
      await signIn(page, lore.org.token);
      await page.getByRole('button', { name: 'Edit settings' }).click();
      const editor = page.getByRole('dialog', { name: /Settings of/ });
      await editor.getByLabel('Variant').selectOption('inline');
      await editor.getByLabel('Placeholder').fill('Search the help center');
      // The real widget, inline in the preview, with the placeholder as typed (not yet saved).
      const input = page.locator('#lore-preview input');
      await eventually(async () => assert.equal(await input.getAttribute('placeholder'), 'Search the help center'));
      await input.fill('reset password');
      await page.locator('#lore-preview').getByText('Reset your password').first().waitFor();
      await editor.getByRole('button', { name: 'Save' }).click();
      await editor.waitFor({ state: 'detached' });
      const stored = (await lore.server.call('GET', `/api/v1/widgets/${searchWidget.id}`, { token: lore.org.token })).body.data.config;
      assert.deepEqual([stored.variant, stored.placeholder], ['inline', 'Search the help center']);
      const keys = (await lore.server.call('GET', '/api/v1/api-keys', { token: lore.org.token })).body.data as { name: string; permissions: string[] }[];
      assert.deepEqual(keys.filter((k) => k.name === 'Console preview').map((k) => k.permissions.sort()), [['chat', 'search', 'summarize']], 'the preview’s key, listed and revocable');
    });
  });

  it('searches in the playground with each hit’s lexical and vector parts, and shows the passages an answer was given', TEST, async () => {
    await withPage(browser, `${lore.api}/console#/playground`, {}, async ({ page }) => {
      await signIn(page, lore.org.token);
      await page.getByLabel('Integration').selectOption({ label: 'Search' });
      await page.getByLabel('Query').fill('how do I reset my password');
      await page.getByRole('button', { name: 'Search' }).click();
      const first = page.getByTestId('hits').locator('tbody tr').first();
      await first.waitFor();
      assert.match(await first.locator('strong').textContent() ?? '', /Reset your password/);
      const [similarity, lexical, vector] = ((await first.locator('td').nth(1).textContent()) ?? '').match(/[\d.]+/g)!.map(Number);
      assert.ok(lexical! > 0 && vector! > 0 && Math.abs(lexical! + vector! - similarity!) < 0.002, `${similarity} = ${lexical} + ${vector}`);
      assert.equal(await first.locator('mark').first().textContent(), 'reset');

      await page.getByRole('button', { name: 'Ask for an answer' }).click();
      const answer = page.getByTestId('answer');
      await answer.waitFor();
      assert.match(await answer.locator('.content').textContent() ?? '', /Settings/);
      assert.ok(await answer.locator('.passages li').count() >= 1, 'the passages the writer was given');
    });
    // The organisation's own searches are not its visitors': the analytics leave them out.
    await lore.server.container.searchLog.flush();
    const queries = (await lore.server.call('GET', '/api/v1/analytics/queries?limit=100', { token: lore.org.token })).body.data as { query: string }[];
    assert.ok(queries.some((q) => q.query === 'reset password'), 'a visitor’s search is listed');
    assert.ok(!queries.some((q) => q.query.includes('how do i reset')), JSON.stringify(queries));
  });

  it('shows another organisation nothing of this one', TEST, async () => {
    const other = await lore.server.createOrg('Initech');
    await withPage(browser, `${lore.api}/console`, REFUSED, async ({ page }) => {
      await signIn(page, other.token);
      // Its own empty console, then another organisation's conversation by its id.
      await page.getByText('No visitor activity in this period yet').waitFor();
      await page.goto(`${lore.api}/console#/conversations/${conversation}`);
      await page.getByRole('alert').filter({ hasText: 'Conversation not found' }).waitFor();
      await page.getByRole('link', { name: 'Collections' }).click();
      await page.getByText('No collections yet').waitFor();
      assert.doesNotMatch(await page.content(), /Help center|reset password/i);

      // A new organisation's first steps: a collection, an integration over it, a widget.
      await page.getByLabel('New collection').fill('Initech docs');
      await page.getByRole('button', { name: 'Create' }).click();
      await page.getByRole('link', { name: 'Initech docs' }).waitFor();
      await page.getByRole('link', { name: 'Widgets' }).click();
      await page.getByText('No integrations yet').waitFor();
      const form = page.locator('form', { has: page.getByRole('heading', { name: 'New integration' }) });
      await form.getByLabel('Name').fill('Initech search');
      await form.getByLabel('Initech docs').check();
      await form.getByRole('button', { name: 'Create integration' }).click();
      await page.getByRole('heading', { name: 'Initech search' }).waitFor();
      await page.getByPlaceholder('docs.example.com').fill('docs.initech.example');
      await page.getByRole('button', { name: 'Add widget' }).click();
      assert.match(await page.getByLabel('Embed snippet').inputValue(), /data-search="org_\w+\/wgt_\w+"/);
      assert.match(await page.locator('.widget').textContent() ?? '', /Websites: docs\.initech\.example/);
      page.on('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      const settings = page.getByRole('form', { name: 'Settings of Initech search' });
      await settings.getByLabel('Name').fill('Initech docs search');
      await settings.getByLabel('Placeholder').fill('Search Initech');
      const typos = settings.getByLabel(/Correct typos/);
      assert.equal(await typos.isChecked(), true);
      await typos.uncheck();
      for (const [name, width] of [['desktop', 1280], ['mobile', 375]] as const) {
        await page.setViewportSize({ width, height: 900 });
        const shot = `${OUT}console-integration-settings-${name}.png`;
        await settings.screenshot({ path: shot });
        console.log(`screenshot: ${shot}`);
      }
      await page.setViewportSize({ width: 1280, height: 900 });
      await settings.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('heading', { name: /Initech docs search/ }).waitFor();
      const stored = (await lore.server.call('GET', '/api/v1/integrations', { token: other.token })).body.data[0];
      assert.deepEqual([stored.name, stored.settings.placeholder, stored.settings.typo_tolerance], ['Initech docs search', 'Search Initech', false]);
      await page.getByRole('button', { name: 'Delete widget' }).click();
      await page.getByText('No widget over this integration yet.').waitFor();

      // The collection renamed, then deleted.
      page.removeAllListeners('dialog');
      page.on('dialog', (dialog) => void (dialog.type() === 'prompt' ? dialog.accept('Initech handbook') : dialog.accept()));
      await page.getByRole('link', { name: 'Collections' }).click();
      await page.getByRole('link', { name: 'Initech docs' }).click();
      await page.getByRole('button', { name: 'Rename' }).click();
      await page.getByRole('heading', { name: 'Initech handbook' }).waitFor();
      await page.getByRole('button', { name: 'Delete collection' }).click();
      await page.getByText('No collections yet').waitFor();
    });
  });

  it('lists organisations with the master key', TEST, async () => {
    await withPage(browser, `${lore.api}/console`, REFUSED, async ({ page }) => {
      await signIn(page, MASTER_KEY);
      await page.getByRole('cell', { name: 'Acme' }).waitFor();
      await page.getByLabel('New organisation').fill('Umbrella');
      await page.getByRole('button', { name: 'Create' }).click();
      await page.getByRole('status').filter({ hasText: 'shown once' }).waitFor();
      await page.getByRole('cell', { name: 'Umbrella' }).waitFor();
      await page.getByLabel('Answer credits of Umbrella').fill('250');
      await page.getByLabel('Answer credits of Umbrella').press('Enter');
      await eventually(async () => {
        const orgs = (await lore.server.call('GET', '/api/v1/admin/organisations?per_page=100', { token: MASTER_KEY })).body.data as { name: string; answer_credits: number | null }[];
        assert.equal(orgs.find((o) => o.name === 'Umbrella')?.answer_credits, 250);
      });
      // Into an organisation's console with a token issued for it (asked first)…
      const tokens = async () => (await lore.server.container.db.query<{ id: string }>('SELECT id FROM api_tokens WHERE organisation_id = $1 AND revoked_at IS NULL ORDER BY created_at', [lore.org.id])).map((t) => t.id);
      const before = await tokens();
      let asked = 0;
      page.on('dialog', (dialog) => void (asked++, dialog.accept()));
      const openAcme = async () => {
        await page.getByRole('row', { name: /Acme/ }).getByRole('button', { name: 'Open its console' }).click();
        // Acme's analytics.
        await eventually(async () => assert.ok(Number(await tile(page, 'searches').textContent()) >= SEARCHES.length));
        await page.getByRole('cell', { name: 'reset password', exact: true }).waitFor();
      };
      const backToMaster = async () => {
        await page.getByRole('button', { name: 'Sign out' }).click();
        await signIn(page, MASTER_KEY);
      };
      await openAcme();
      assert.equal(asked, 1);
      const issued = await tokens();
      assert.equal(issued.length, before.length + 1);
      // …and with the same token the next time, without asking,
      await backToMaster();
      await openAcme();
      assert.deepEqual([asked, await tokens()], [1, issued], 'no new token');
      // until it is revoked: then a new one, asked first.
      assert.equal((await lore.server.call('DELETE', `/api/v1/admin/tokens/${issued.at(-1)}`, { token: MASTER_KEY })).status, 204);
      await backToMaster();
      await openAcme();
      assert.equal(asked, 2);
      assert.equal((await tokens()).length, issued.length);
    });
  });

  it('fits 1280 and 375 px, light and dark (screenshots)', TEST, async () => {
    for (const [name, viewport] of [['desktop', { width: 1280, height: 900 }], ['mobile', { width: 375, height: 800 }]] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        await withPage(browser, `${lore.api}/console`, { viewport, colorScheme }, async ({ page }) => {
          await signIn(page, lore.org.token);
          await page.locator('.chart canvas').first().waitFor();
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          assert.ok(overflow <= 0, `${name} ${colorScheme}: the page scrolls sideways by ${overflow} px`);
          const path = `${OUT}console-overview-${name}-${colorScheme}.png`;
          await page.screenshot({ path, fullPage: true });
          console.log(`screenshot: ${path}`);
          // The other pages, as they look at this size and in this theme.
          const shots: [string, (page: Page) => Promise<void>][] = [
            ['playground', async (p) => {
              await p.getByLabel('Query').fill('how do I reset my password');
              await p.getByRole('button', { name: 'Search' }).click();
              await p.getByTestId('hits').waitFor();
            }],
            ['widgets', async (p) => {
              await p.getByRole('button', { name: 'Edit settings' }).first().click();
              await p.locator('#lore-preview input, #lore-preview-open').first().waitFor();
            }],
            ['conversations', async (p) => void (await p.locator('tbody tr').first().waitFor())],
          ];
          for (const [route, ready] of shots) {
            await page.goto(`${lore.api}/console#/${route}`);
            await ready(page);
            const overflowing = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
            assert.ok(overflowing <= 0, `${route} ${name} ${colorScheme}: the page scrolls sideways by ${overflowing} px`);
            const shot = `${OUT}console-${route}-${name}-${colorScheme}.png`;
            await page.screenshot({ path: shot, fullPage: true });
            console.log(`screenshot: ${shot}`);
          }
        });
      }
    }
  });
});
