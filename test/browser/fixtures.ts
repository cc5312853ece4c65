// Real-Chromium test fixtures (DocSearch's e2e/fixtures.ts style): one browser and one Lore
// server per test file, host pages on a second origin with a strict CSP, and small helpers
// that wait for the page instead of sleeping.
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { constantEmbedder, MASTER_KEY, startServer, type TestServer } from '../helpers.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Why the browser suites are skipped, or undefined when a Chromium is present. */
export const browserSkip: string | undefined = existsSync(CHROMIUM_PATH)
  ? undefined
  : `no Chromium at ${CHROMIUM_PATH}: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH; browser tests skipped`;

/** Launches the system Chromium headless; never downloads a browser. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
}

/** Options of every browser test: a hung page fails the test instead of the whole run. */
export const TEST = { timeout: 120_000 };

/** Generous: the machine is small and noisy. Waits end as soon as the condition holds. */
export const WAIT = 20_000;

/**
 * Retries `check` (an assertion that throws, or a function returning a value) until it
 * passes or `timeout` runs out, then rethrows its last error. An expectation that waits,
 * not a timed assertion.
 */
export async function eventually<T>(check: () => T | Promise<T>, timeout = WAIT): Promise<T> {
  const end = Date.now() + timeout;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > end) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export interface HostPage {
  /** Body HTML (no inline scripts or styles: the CSP forbids them). */
  html?: string;
  /** Page script, served as an external file after the SDK script. */
  script?: string;
  /** Host stylesheet, served as an external file. */
  css?: string;
  /** Extra markup for <head>, e.g. the analytics script tag. */
  head?: string;
  /** Load /widget/v1/service.js first (default true); `2` includes it twice. */
  sdk?: boolean | 2;
  /** Serve without the strict CSP (default true): the XSS corpus must prove the sanitizer, not the CSP. */
  csp?: boolean;
}

/**
 * The host site: a second origin (http://localhost:<port>) serving test pages with a strict
 * CSP, plus plain documents under /docs/<slug> (the knowledge base's source URLs) and SVG
 * images under /img/<name>.svg (thumbnails).
 */
export interface Site {
  origin: string;
  host: string;
  /** Registers a page and returns its URL; the page's script is `<url>page.js`. */
  page(page: HostPage): string;
  close(): Promise<void>;
}

export async function startSite(api: () => string): Promise<Site> {
  const pages = new Map<string, HostPage>();
  let next = 0;
  const csp = () => `default-src 'none'; script-src ${api()} 'self'; connect-src ${api()}; img-src * data:; style-src 'self'`;
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const page = /^\/p\/(\d+)\/(page\.js|page\.css)?$/.exec(path);
    const def = page ? pages.get(page[1]!) : undefined;
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...(def?.csp === false ? {} : { 'content-security-policy': csp() }) });
      res.end(body);
    };
    if (page && def) {
      if (page[2] === 'page.js') return send(200, 'text/javascript', def.script ?? '');
      if (page[2] === 'page.css') return send(200, 'text/css', def.css ?? '');
      const sdk = def.sdk === false ? '' : `<script src="${api()}/widget/v1/service.js"></script>\n`.repeat(def.sdk === 2 ? 2 : 1);
      return send(200, 'text/html; charset=utf-8', `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Host page ${page[1]}</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="page.css">${def.head ?? ''}</head>
<body>${def.html ?? ''}
${sdk}<script src="page.js"></script>
</body></html>`);
    }
    const doc = /^\/docs\/([a-z-]+)$/.exec(path);
    if (doc) return send(200, 'text/html; charset=utf-8', `<!doctype html><title>${doc[1]}</title><link rel="icon" href="data:,"><h1>${doc[1]}</h1>`);
    const img = /^\/img\/([a-z]+)\.svg$/.exec(path);
    if (img) {
      const colour = { blue: '#2563eb', green: '#16a34a', orange: '#ea580c' }[img[1]!] ?? '#888';
      return send(200, 'image/svg+xml', `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="100"><rect width="160" height="100" fill="${colour}"/></svg>`);
    }
    send(404, 'text/plain', 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://localhost:${port}`;
  return {
    origin,
    host: `localhost:${port}`,
    page(def) {
      const id = String(++next);
      pages.set(id, def);
      return `${origin}/p/${id}/`;
    },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

export interface WidgetRef {
  key: string;
  id: string;
  secret: string;
  /** Signs visitor ids (hex HMAC-SHA256) for `user: {id, hash}`. */
  identity: string;
}

export interface Lore {
  server: TestServer;
  /** API origin, e.g. http://127.0.0.1:41234 (also the origin of the SDK scripts). */
  api: string;
  site: Site;
  org: { id: number; token: string; publicId: string };
  chatbot: string;
  searchBox: string;
  /** Creates a widget for the site's origin over the API. */
  widget(type: 'chat' | 'search', config?: Record<string, unknown>, options?: { websites?: string[]; integration?: string; token?: string }): Promise<WidgetRef>;
  /** Events stored for a widget (server-side truth), oldest first. */
  events(widgetId: string): Promise<Array<{ name: string; url: string | null; rank: number | null; source: string | null; session_id: string | null }>>;
  /** A second organisation with no answer credits left, with the same knowledge base. */
  brokeOrg(): Promise<{ chatbot: string; searchBox: string; token: string }>;
  close(): Promise<void>;
}

/** Entries of the fixed knowledge base; URLs point at the site so clicks land somewhere real. */
export function knowledgeBase(site: string) {
  return [
    {
      source_type: 'doc', source_id: 'reset', title: 'Reset your password', source_url: `${site}/docs/reset`,
      raw_text: 'To reset your password, open Settings and choose Security. Click Reset password and we email you a reset link. The reset link expires after one hour.',
      meta: { image: `${site}/img/blue.svg` },
    },
    {
      source_type: 'doc', source_id: 'billing', title: 'Invoices and billing', source_url: `${site}/docs/billing`,
      raw_text: 'Invoices are sent by email on the first day of each month. You can download past invoices as PDF files from the Billing page. Payment is accepted by credit card or bank transfer.',
      meta: { image: `${site}/img/green.svg` },
    },
    {
      source_type: 'doc', source_id: 'enterprise', title: 'Enterprise plan', source_url: `${site}/docs/enterprise`,
      raw_text: 'The Enterprise plan includes single sign-on, audit logs and a dedicated success manager. Enterprise customers get a 99.9 percent uptime guarantee. Book a demo with our sales team to see the Enterprise plan.',
      meta: { action: { type: 'open_form', label: 'Book a demo', form: 'demo' }, image: `${site}/img/orange.svg` },
    },
    {
      source_type: 'doc', source_id: 'export', title: 'Export your data', source_url: `${site}/docs/export`,
      raw_text: 'You can export all your data as a CSV or JSON file. Go to Settings, then Data, and click Export. Large exports are prepared in the background and sent to your email address.',
    },
    {
      source_type: 'doc', source_id: 'limits', title: 'API rate limits', source_url: `${site}/docs/limits`,
      raw_text: 'The API allows 600 requests per minute per key. When you exceed the rate limit the API answers with status 429 and a Retry-After header.',
    },
  ];
}

/**
 * A suite's server and browser, started side by side. When either fails to start, the other
 * is closed before the error is thrown: a browser or server left open keeps the test process
 * alive, and the run would hang instead of failing.
 */
export async function startTogether<A extends { close(): Promise<unknown> }, B extends { close(): Promise<unknown> }>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const [first, second] = await Promise.allSettled([a, b]);
  if (first.status === 'fulfilled' && second.status === 'fulfilled') return [first.value, second.value];
  await Promise.allSettled([first.status === 'fulfilled' && first.value.close(), second.status === 'fulfilled' && second.value.close()]);
  throw first.status === 'rejected' ? first.reason : (second as PromiseRejectedResult).reason;
}

/**
 * Starts Lore on a real port (PGlite, real embedding model unless `constant`), the host site,
 * an organisation with the knowledge base, a chatbot and a search_box integration.
 */
export async function startLore(options: { constant?: boolean } = {}): Promise<Lore> {
  let api = '';
  const site = await startSite(() => api);
  const server = await startServer('pglite', options.constant ? { embedder: constantEmbedder } : {});
  api = (await server.app.listen({ port: 0, host: '127.0.0.1' })).replace('localhost', '127.0.0.1');

  const call = async (method: string, url: string, body: unknown, token: string) => {
    const res = await server.call(method, `/api/v1${url}`, { token, body });
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const seed = async (token: string) => {
    const collection = (await call('POST', '/collections', { name: 'Help center' }, token)).data.id as string;
    await call('POST', `/collections/${collection}/entries/batch`, { entries: knowledgeBase(site.origin) }, token);
    const chatbot = (await call('POST', '/integrations', { type: 'chatbot', name: 'Helper', collection_ids: [collection] }, token)).data.id as string;
    const searchBox = (await call('POST', '/integrations', { type: 'search_box', name: 'Search', collection_ids: [collection] }, token)).data.id as string;
    return { chatbot, searchBox };
  };

  let org: Lore['org'];
  let chatbot: string, searchBox: string;
  try {
    const created = await server.createOrg('Acme');
    const [row] = await server.container.db.query<{ public_id: string }>('SELECT public_id FROM organisations WHERE id = $1', [created.id]);
    org = { id: created.id, token: created.token, publicId: row!.public_id };
    ({ chatbot, searchBox } = await seed(org.token));
  } catch (error) {
    // A listening server and site would keep the test process alive after the suite fails.
    await Promise.allSettled([site.close(), server.close()]);
    throw error;
  }

  return {
    server, api, site, org, chatbot, searchBox,
    async widget(type, config = {}, opts = {}) {
      const integration = opts.integration ?? (type === 'chat' ? chatbot : searchBox);
      const body = { type, name: type === 'chat' ? 'Helper' : 'Docs search', integration_id: integration, websites: opts.websites ?? [site.host], config };
      const res = await call('POST', '/widgets', body, opts.token ?? org.token);
      return { key: res.data.key, id: res.data.id, secret: res.secret_key, identity: res.identity_secret };
    },
    async events(widgetId) {
      const rows = await server.container.db.query<any>('SELECT name, url, rank, source, session_id FROM widget_events WHERE widget_id = $1 ORDER BY id', [widgetId]);
      return rows.map((r) => ({ ...r }));
    },
    async brokeOrg() {
      const broke = await server.createOrg('Broke');
      const ids = await seed(broke.token);
      const res = await server.call('PATCH', `/api/v1/admin/organisations/${broke.id}`, { token: MASTER_KEY, body: { answer_credits: 0 } });
      if (res.status !== 200) throw new Error(`answer_credits: ${res.status}`);
      return { ...ids, token: broke.token };
    },
    async close() {
      await site.close();
      await server.close();
    },
  };
}

export interface Watched {
  page: Page;
  /** CSP violations, uncaught page errors and console errors seen so far. */
  problems(): Promise<string[]>;
}

/**
 * Opens a page in `context` and records what should never happen on an embed: CSP
 * violations (a `securitypolicyviolation` listener installed before any page script),
 * uncaught errors and console errors. `allow` filters expected console noise (e.g. the
 * browser's "Failed to load resource … 402" line).
 */
export async function watch(context: BrowserContext, allow: RegExp[] = []): Promise<Watched> {
  const page = await context.newPage();
  const seen: string[] = [];
  page.on('pageerror', (error) => seen.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !allow.some((re) => re.test(message.text()))) seen.push(`console: ${message.text()}`);
  });
  return {
    page,
    async problems() {
      const csp = await page.evaluate(() => (window as any).__csp ?? []).catch(() => []);
      return [...csp.map((v: string) => `csp: ${v}`), ...seen];
    },
  };
}

/** A browser context with the CSP-violation recorder; close it at the end of the test. */
export async function newContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US', ...options });
  // tsx compiles the functions passed to page.evaluate with esbuild's keepNames, which calls
  // a `__name` helper that exists only in Node: give the page a no-op one.
  await context.addInitScript('globalThis.__name = (fn) => fn;');
  await context.addInitScript(() => {
    const w = window as any;
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`));
  });
  return context;
}

export interface Opened extends Watched {
  context: BrowserContext;
  /** Asserts no CSP violation, page error or console error happened. */
  assertClean(): Promise<void>;
  close(): Promise<void>;
}

/** Context options, plus console errors to `allow` and a script to run first in every page (`init`). */
export type PageOptions = BrowserContextOptions & { allow?: RegExp[]; init?: string };

/** A fresh context and page at `url`, watched for problems (see `watch`). */
export async function openPage(browser: Browser, url: string, options: PageOptions = {}): Promise<Opened> {
  const { allow, init, ...contextOptions } = options;
  const context = await newContext(browser, contextOptions);
  if (init) await context.addInitScript(init);
  const watched = await watch(context, allow);
  await watched.page.goto(url);
  return {
    ...watched,
    context,
    async assertClean() {
      const problems = await watched.problems();
      if (problems.length) throw new Error(`problems on the page:\n${problems.join('\n')}`);
    },
    close: () => context.close(),
  };
}

/** Runs `fn` on a fresh page at `url`, then asserts the page stayed clean; always closes it. */
export async function withPage<T>(browser: Browser, url: string, options: PageOptions, fn: (tab: Opened) => Promise<T>): Promise<T> {
  const tab = await openPage(browser, url, options);
  try {
    const result = await fn(tab);
    await tab.assertClean();
    return result;
  } catch (error) {
    // Keep what the page looked like, and what went wrong on it, for the failure report.
    const path = fileURLToPath(new URL(`../../test-results/failures/${basename(process.argv[1] ?? 'test', '.test.ts')}-${Date.now()}.png`, import.meta.url));
    mkdirSync(dirname(path), { recursive: true });
    const saved = await tab.page.screenshot({ path }).then(() => true, () => false);
    const problems = await tab.problems().catch(() => []);
    const note = `${saved ? `\n(page screenshot: ${path})` : ''}${problems.length ? `\n(page problems: ${problems.join(' | ')})` : ''}`;
    if (error instanceof Error) {
      error.message += note;
      error.stack = `${error.stack}${note}`;
    }
    throw error;
  } finally {
    await tab.close();
  }
}

/**
 * Collects the JSON bodies of the page's POST …/events requests from now on, and the server's
 * answers (`<status> <body>`). Goes through page.route: a `sendBeacon` Blob body is invisible
 * to page.on('request').
 */
export async function captureEvents(page: Page): Promise<{ bodies: any[]; answers: string[] }> {
  const captured = { bodies: [] as any[], answers: [] as string[] };
  await page.route(/\/widgets\/[^/]+\/events$/, async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    captured.bodies.push(JSON.parse(route.request().postData() ?? 'null'));
    try {
      const response = await route.fetch();
      captured.answers.push(`${response.status()} ${await response.text()}`);
      await route.fulfill({ response });
    } catch (error) {
      // A beacon still in flight when the test closed its page (it had what it waited for):
      // its response is disposed, and nobody is left to answer. Anything else is a failure.
      if (!page.isClosed() && !/disposed|closed/i.test(String(error))) throw error;
    }
  });
  return captured;
}

/** The browser's own log line for a response with an error status the test expects. */
export const failedLoad = (status: number) => new RegExp(`Failed to load resource: the server responded with a status of ${status}`);

/** JSON literal for embedding values in page scripts. */
export const js = (value: unknown) => JSON.stringify(value);
