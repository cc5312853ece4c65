/**
 * A website crawl: from a start URL and the site's sitemaps, the pages in scope, each fetched
 * once, politely, and read as an entry (main content as Markdown, title, canonical URL).
 *
 * - Scope: the start URL's origin and path prefix (`https://x/docs` and `https://x/docs/` →
 *   everything under `/docs/`; a start page named like a file, `https://x/docs/index.html`,
 *   → its folder), narrowed by `include` and `exclude` patterns (gitignore syntax over the
 *   URL's path); robots.txt is obeyed for Lore's user agent.
 * - Seeds: the start URL, `/sitemap.xml` and the robots.txt `Sitemap:` lines (sitemap indexes
 *   followed, malformed sitemaps reported and skipped).
 * - One URL per page: fragments dropped, tracking parameters (`utm_*`, `gclid`, `fbclid`, …)
 *   dropped, a trailing slash dropped, the remaining parameters sorted — that key names the
 *   page (its entry's source_id, or its sections' before `#`: crawlRun.ts), while the page
 *   is fetched and linked at the first form found (slash kept); a page's redirect target and
 *   its canonical link (when in scope) name it, so `/a`, `/a/`, `/a#x` and `/a?utm_source=…`
 *   are one page.
 * - Bounded: `concurrency` requests at a time, `delayMs` (or robots.txt's Crawl-delay) between the starts of two requests,
 *   a page limit, a timeout and a size cap per response; HTML and PDF are read, other
 *   content types reported.
 * - Incremental: a page fetched before is asked with If-None-Match / If-Modified-Since; 304
 *   means unchanged, and the caller compares content hashes for the rest.
 * - Resumable: with a journal, every URL queued is told to it in order, and a crawl given
 *   where an earlier one stopped fetches only what that one had not settled (robots.txt is
 *   read again; sitemaps too unless every seed was queued).
 */
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import ignore, { type Ignore } from 'ignore';
import { DOMParser, parseHTML } from 'linkedom';
import robotsParserModule from 'robots-parser';
import type { CrawlJournal, CrawlProgress, SiteCrawlSettings } from '../domain/crawl/port.js';
import type { Anchors } from '../domain/ingestion/text/sections.js';
import { htmlToMarkdown } from '../importers/html.js';
import { pdfText } from '../importers/pdf.js';

// robots-parser is CommonJS (`module.exports = function`) typed as an ES default export:
// under NodeNext the default import is the function at run time, typed as its module.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

export const USER_AGENT = 'LoreCrawler/1.0 (self-hosted Lore search)';

export interface CrawlOptions extends Pick<SiteCrawlSettings, 'start' | 'maxPages' | 'concurrency' | 'delayMs' | 'timeoutMs' | 'maxBytes' | 'include' | 'exclude' | 'fetch' | 'signal' | 'pause'> {
  /**
   * Pages fetched before, by key (normaliseUrl), with where they were fetched and their
   * validators: fetched again (so a page that is gone is found gone even when nothing links to
   * it any more) and asked conditionally.
   */
  known: ReadonlyMap<string, { location?: string | null; etag?: string | null; lastModified?: string | null }>;
  /** Where an earlier slice of the run stopped, and what to tell of the URLs queued (a resumable run). */
  journal?: Pick<CrawlJournal, 'resume' | 'found' | 'seeded'>;
}

export type CrawlResult =
  /** `url` is the page's key; `location` where it was fetched (a link to it that works). */
  | { kind: 'page'; url: string; location: string; title: string | null; text: string; anchors: Anchors | null; contentHash: string; etag: string | null; lastModified: string | null }
  | { kind: 'unchanged'; url: string }
  | { kind: 'gone'; url: string; status: number }
  | { kind: 'skipped'; url: string; reason: string }
  | { kind: 'failed'; url: string; reason: string };

export type { CrawlProgress };

/** Query parameters that only track where a visitor came from. */
const TRACKING = /^(?:utm_\w+|gclid|fbclid|msclkid|mc_cid|mc_eid|_ga|_gl|ref|ref_src)$/i;
const HTML_TYPES = /^(?:text\/html|application\/xhtml\+xml)\b/i;
const PDF_TYPE = /^application\/pdf\b/i;
const SITEMAP_LIMIT = 50;

/** The one URL of a page, its key (see the module comment); null for what is not http(s). */
export function normaliseUrl(raw: string, base?: string): string | null {
  const url = cleanUrl(raw, base);
  if (!url) return null;
  const parsed = new URL(url);
  const params = [...parsed.searchParams].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  parsed.search = params.length ? `?${new URLSearchParams(params).toString()}` : '';
  if (parsed.pathname.length > 1 && parsed.pathname.endsWith('/')) parsed.pathname = parsed.pathname.replace(/\/+$/, '');
  return parsed.toString();
}

/** A URL as it is fetched: without fragment, credentials and tracking parameters; null for what is not http(s). */
export function cleanUrl(raw: string, base?: string): string | null {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.hash = '';
  url.username = '';
  url.password = '';
  const params = [...url.searchParams].filter(([key]) => !TRACKING.test(key));
  url.search = params.length ? `?${new URLSearchParams(params).toString()}` : '';
  return url.toString();
}

/** The crawl's scope: origin, path prefix, patterns. */
export function crawlScope(start: string, include: readonly string[], exclude: readonly string[]) {
  const origin = new URL(start).origin;
  const startPath = new URL(start).pathname;
  const fileLike = /\.[a-z0-9]+$/i.test(startPath.slice(startPath.lastIndexOf('/') + 1));
  const prefix = startPath.endsWith('/') ? startPath : fileLike ? startPath.slice(0, startPath.lastIndexOf('/') + 1) : `${startPath}/`;
  const included: Ignore | null = include.length ? ignore().add([...include]) : null;
  const excluded: Ignore = ignore().add([...exclude]);
  return (url: string): boolean => {
    const parsed = new URL(url);
    if (parsed.origin !== origin) return false;
    if (!(`${parsed.pathname}/`.startsWith(prefix) || parsed.pathname.startsWith(prefix))) return false;
    const relative = parsed.pathname.slice(1) || '.';
    if (relative !== '.' && excluded.ignores(relative)) return false;
    return included === null || relative === '.' || included.ignores(relative);
  };
}

/**
 * Crawls the site, yielding a result per URL in scope (pages, unchanged pages, gone pages,
 * skipped and failed ones) until the page limit; `progress` is kept up to date. On `pause`
 * it starts no more requests, yields those in flight, and returns 'paused' (a politeness
 * wait is cut: its URL stays unfetched); `signal` cuts requests in flight.
 */
export async function* crawl(options: CrawlOptions, progress: CrawlProgress = { found: 0, fetched: 0 }): AsyncGenerator<CrawlResult, 'finished' | 'paused'> {
  const doFetch = options.fetch ?? fetch;
  const start = normaliseUrl(options.start);
  if (!start) throw new Error(`not an http(s) URL: ${options.start}`);
  const inScope = crawlScope(options.start, options.include, options.exclude);
  const origin = new URL(start).origin;

  // Politeness: one request starts at most every delayMs (or the site's Crawl-delay, up to
  // 30 s), whatever the concurrency.
  let delayMs = options.delayMs;
  let nextStart = 0;
  async function politely<T>(work: () => Promise<T>): Promise<T> {
    const wait = nextStart - Date.now();
    nextStart = Math.max(Date.now(), nextStart) + delayMs;
    if (wait > 0) await sleep(wait, undefined, options.pause && { signal: options.pause });
    return work();
  }
  const timeout = () => (options.signal ? AbortSignal.any([AbortSignal.timeout(options.timeoutMs), options.signal]) : AbortSignal.timeout(options.timeoutMs));
  const get = (url: string, headers: Record<string, string> = {}) =>
    politely(() => doFetch(url, { headers: { 'user-agent': USER_AGENT, ...headers }, redirect: 'follow', signal: timeout() }));

  // robots.txt as RFC 9309 reads it: missing (4xx) allows everything; a server error or no
  // answer disallows everything, so a site that cannot say what it allows is not crawled.
  const robotsUrl = `${origin}/robots.txt`;
  let robotsText = '';
  const results: CrawlResult[] = [];
  try {
    const response = await get(robotsUrl);
    if (response.ok) robotsText = (await readCapped(response, 512 * 1024)).toString('utf8');
    else {
      await response.body?.cancel();
      if (response.status >= 500) {
        robotsText = 'User-agent: *\nDisallow: /\n';
        results.push({ kind: 'failed', url: robotsUrl, reason: `HTTP ${response.status}: nothing is crawled while robots.txt cannot be read` });
      }
    }
  } catch (error) {
    robotsText = 'User-agent: *\nDisallow: /\n';
    results.push({ kind: 'failed', url: robotsUrl, reason: `${describe(error)}: nothing is crawled while robots.txt cannot be read` });
  }
  const robots = robotsParser(robotsUrl, robotsText);
  const crawlDelay = robots.getCrawlDelay(USER_AGENT);
  if (crawlDelay !== undefined && Number.isFinite(crawlDelay)) delayMs = Math.max(delayMs, Math.min(30_000, crawlDelay * 1000));
  const allowed = (url: string) => robots.isAllowed(url, USER_AGENT) !== false;

  // Pages to fetch: their key and where to fetch them.
  const journal = options.journal;
  const resume = journal?.resume ?? null;
  const queue: { url: string; location: string }[] = [];
  const seen = new Set<string>();
  const enqueue = (raw: string, base?: string) => {
    const location = cleanUrl(raw, base);
    const url = location && normaliseUrl(location);
    if (!url || !location || seen.has(url) || !inScope(url)) return;
    seen.add(url);
    if (!allowed(location)) {
      journal?.found({ url, location }, true);
      results.push({ kind: 'skipped', url, reason: 'disallowed by robots.txt' });
      return;
    }
    journal?.found({ url, location }, false);
    queue.push({ url, location });
    progress.found++;
  };
  if (resume) {
    // The frontier as the last slice left it (a scope narrowed since drops what left it).
    progress.found = resume.found;
    progress.fetched = resume.fetched;
    for (const url of resume.settled) seen.add(url);
    for (const target of resume.pending) {
      seen.add(target.url);
      if (inScope(target.url) && allowed(target.location)) queue.push(target);
    }
  }
  enqueue(options.start);
  for (const [url, page] of options.known) enqueue(page.location ?? url);

  // Sitemaps: /sitemap.xml and robots.txt's, indexes followed.
  const sitemaps = resume?.seeded ? [] : [...new Set([`${origin}/sitemap.xml`, ...robots.getSitemaps()])];
  for (let i = 0; i < sitemaps.length && i < SITEMAP_LIMIT; i++) {
    const sitemap = sitemaps[i]!;
    try {
      const response = await get(sitemap);
      if (!response.ok) {
        await response.body?.cancel();
        continue;
      }
      const xml = (await readCapped(response, options.maxBytes)).toString('utf8');
      const document = new DOMParser().parseFromString(xml, 'text/xml');
      const root = document.documentElement?.localName;
      if (root === 'sitemapindex') for (const loc of document.querySelectorAll('sitemap > loc')) sitemaps.push(new URL(loc.textContent!.trim(), sitemap).toString());
      else if (root === 'urlset') for (const loc of document.querySelectorAll('url > loc')) enqueue(loc.textContent!.trim(), sitemap);
      else results.push({ kind: 'skipped', url: sitemap, reason: 'not a sitemap (no <urlset> or <sitemapindex>)' });
    } catch (error) {
      // Paused while waiting its turn: the sitemaps are read again when the run goes on.
      if (options.pause?.aborted) break;
      results.push({ kind: 'skipped', url: sitemap, reason: `unreadable sitemap (${describe(error)})` });
    }
  }
  if (!options.pause?.aborted) journal?.seeded();
  yield* results.splice(0);

  let fetched = resume?.fetched ?? 0;
  const running = new Set<Promise<void>>();
  const visit = async (target: { url: string; location: string }) => {
    const result = await fetchPage(target.url, target.location);
    if (result === null) {
      // Paused before its request went out: it stays to fetch.
      queue.unshift(target);
      fetched--;
      return;
    }
    results.push(result);
    progress.fetched++;
  };
  async function fetchPage(url: string, location: string): Promise<CrawlResult | null> {
    const known = options.known.get(url);
    const headers: Record<string, string> = {};
    if (known?.etag) headers['if-none-match'] = known.etag;
    if (known?.lastModified) headers['if-modified-since'] = known.lastModified;
    let response: Response;
    try {
      if (options.pause?.aborted) return null;
      response = await get(location, headers);
    } catch (error) {
      if ((error as Error).name === 'AbortError' && options.pause?.aborted) return null;
      return { kind: 'failed', url, reason: describe(error) };
    }
    const finalUrl = normaliseUrl(response.url || location) ?? url;
    if (finalUrl !== url) {
      // Redirected: the target names the page (once), unless it leaves the scope.
      await response.body?.cancel();
      if (!inScope(finalUrl)) return { kind: 'skipped', url, reason: `redirects out of scope to ${finalUrl}` };
      enqueue(response.url);
      return { kind: 'skipped', url, reason: `redirects to ${finalUrl}` };
    }
    if (response.status === 304) return { kind: 'unchanged', url };
    if (response.status === 404 || response.status === 410) {
      await response.body?.cancel();
      return { kind: 'gone', url, status: response.status };
    }
    if (!response.ok) {
      await response.body?.cancel();
      return { kind: 'failed', url, reason: `HTTP ${response.status}` };
    }
    const type = response.headers.get('content-type') ?? '';
    if (!HTML_TYPES.test(type) && !PDF_TYPE.test(type)) {
      await response.body?.cancel();
      return { kind: 'skipped', url, reason: `not HTML (${type.split(';')[0] || 'no content type'})` };
    }
    let body: Buffer;
    try {
      body = await readCapped(response, options.maxBytes);
    } catch (error) {
      return { kind: 'skipped', url, reason: describe(error) };
    }
    const validators = { etag: response.headers.get('etag'), lastModified: response.headers.get('last-modified') };
    if (PDF_TYPE.test(type)) {
      try {
        const { title, text } = await pdfText(new Uint8Array(body));
        return text.trim() ? page(url, response.url || location, title, text, null, validators) : { kind: 'skipped', url, reason: 'PDF without text' };
      } catch (error) {
        return { kind: 'failed', url, reason: `unreadable PDF (${describe(error)})` };
      }
    }
    const html = body.toString('utf8');
    const { document } = parseHTML(html);
    // Links resolve against where the page really is (its trailing slash matters) or its <base>.
    let base = response.url || location;
    try {
      base = new URL(document.querySelector('base[href]')?.getAttribute('href') ?? '', base).toString();
    } catch {
      // A malformed <base> is ignored, as browsers do.
    }
    const robotsMeta = document.querySelector('meta[name="robots" i]')?.getAttribute('content') ?? '';
    if (!/nofollow/i.test(robotsMeta)) for (const link of document.querySelectorAll('a[href]')) enqueue(link.getAttribute('href')!, base);
    const readable = htmlToMarkdown(html);
    const canonical = readable.canonical ? normaliseUrl(readable.canonical, base) : null;
    if (canonical && canonical !== url && inScope(canonical)) {
      // Another URL is this page's own: read it there (once).
      enqueue(readable.canonical!, base);
      return { kind: 'skipped', url, reason: `canonical URL is ${canonical}` };
    }
    if (/noindex/i.test(robotsMeta)) return { kind: 'skipped', url, reason: 'noindex' };
    if (!readable.markdown.trim()) return { kind: 'skipped', url, reason: 'no text' };
    return page(url, response.url || location, readable.title, readable.markdown, readable.anchors, validators);
  }

  while (queue.length > 0 || running.size > 0) {
    while (queue.length > 0 && running.size < options.concurrency && fetched < options.maxPages && !options.pause?.aborted) {
      const target = queue.shift()!;
      fetched++;
      const task: Promise<void> = visit(target).finally(() => running.delete(task));
      running.add(task);
    }
    if (running.size === 0) break;
    await Promise.race(running);
    yield* results.splice(0);
  }
  yield* results.splice(0);
  if (options.pause?.aborted && queue.length > 0 && fetched < options.maxPages) return 'paused';
  for (const { url } of queue) yield { kind: 'skipped', url, reason: `over the page limit (${options.maxPages})` };
  return 'finished';
}

function page(
  url: string,
  location: string,
  title: string | null,
  text: string,
  anchors: Anchors | null,
  validators: { etag: string | null; lastModified: string | null },
): CrawlResult {
  const contentHash = createHash('sha256').update(title ?? '').update('\0').update(text).update('\0').update(anchors ? JSON.stringify(anchors) : '').digest('hex');
  return { kind: 'page', url, location: cleanUrl(location) ?? location, title, text, anchors, contentHash, ...validators };
}

/** A response body, refused past `maxBytes` (declared or received). */
async function readCapped(response: Response, maxBytes: number): Promise<Buffer> {
  const limit = maxBytes >= 1024 * 1024 ? `${Math.round(maxBytes / 1024 / 1024)} MB` : `${Math.round(maxBytes / 1024)} kB`;
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new Error(`larger than ${limit}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.length;
    // Leaving the loop cancels the rest of the body.
    if (size > maxBytes) throw new Error(`larger than ${limit}`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

function describe(error: unknown): string {
  const cause = (error as Error).cause;
  if (cause instanceof Error) return cause.message;
  if ((error as Error).name === 'TimeoutError') return 'timed out';
  return (error as Error).message ?? String(error);
}
