/**
 * Content sources: how fast a website is crawled into Lore and a folder imported, and how
 * much of that time is the embedding model (the floor).
 *
 * - A generated docs site on loopback: `--pages` pages (default 300), each SciFact abstracts
 *   under `<h2 id>` headings (2–4 a page) inside a page with navigation, header and footer,
 *   linked from an index and listed in /sitemap.xml. `lore crawl`'s code (crawlSite) reads it
 *   into a fresh collection of a Lore started in this process (PGlite, or DATABASE_URL), once
 *   unthrottled (`--delay-ms 0`, concurrency 2), then again unchanged, then at the command's
 *   defaults (250 ms between requests) into another collection; then the server's own crawler
 *   (a collection's crawler, run by this process's runner: pages written and saved as they
 *   come, resumable) at its defaults into a third.
 * - The folder import (importFolder) of the repository's own docs (README.md and docs/).
 * - The floor: the embedder alone on exactly the chunks the crawl stored, batch by batch.
 *
 *   npm run bench:sources
 *   npm run bench:sources -- --pages 1000
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { crawlSite } from '../src/cli/siteCrawl.js';
import { draftChunks } from '../src/domain/ingestion/pipeline.js';
import { importFolder } from '../src/cli/folderImport.js';
import { startLore } from './harness.js';
import { jsonl } from './jsonl.js';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '300' },
    data: { type: 'string', default: path.resolve('../shared/data/scifact/corpus.jsonl') },
  },
});
const pageCount = Number(values.pages);

interface Doc { _id: string; title: string; text: string }
const docs = jsonl<Doc>(values.data);
const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Page i: abstracts under headings, in a page with the chrome a docs site has. */
const pages: string[] = [];
for (let i = 0, d = 0; i < pageCount; i++) {
  const sections = docs.slice(d, d + 2 + (i % 3));
  d += sections.length;
  const body = sections.map((s) => `<h2 id="s-${s._id}">${escape(s.title)}</h2><p>${escape(s.text)}</p>`).join('\n');
  const related = [1, 2, 3].map((k) => `<a href="/docs/p${(i + k) % pageCount}">Page ${(i + k) % pageCount}</a>`).join(' ');
  pages.push(
    `<!doctype html><html><head><title>Page ${i} — Bench docs</title></head><body>` +
      `<header><a href="/docs/">Bench docs</a><nav><a href="/docs/">Home</a> ${related}</nav></header>` +
      `<main><article><h1>Page ${i}: ${escape(sections[0]!.title)}</h1>${body}</article></main>` +
      `<footer>© Bench · <a href="/docs/p0">First page</a></footer></body></html>`,
  );
}
const index = `<!doctype html><html><head><title>Bench docs</title></head><body><main><h1>Bench docs</h1><p>Every page of the benchmark's site, listed for the crawler to find.</p><ul>${pages.map((_, i) => `<li><a href="/docs/p${i}">Page ${i}</a></li>`).join('')}</ul></main></body></html>`;

let origin = '';
const site = createServer((req, res) => {
  const url = new URL(req.url!, origin);
  const page = /^\/docs\/p(\d+)$/.exec(url.pathname);
  res.setHeader('content-type', 'text/html; charset=utf-8');
  if (url.pathname === '/docs/') return res.end(index);
  if (page && Number(page[1]) < pages.length) return res.end(pages[Number(page[1])]);
  if (url.pathname === '/robots.txt') return res.end(`User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n`);
  if (url.pathname === '/sitemap.xml') {
    res.setHeader('content-type', 'application/xml');
    return res.end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${pages.map((_, i) => `<url><loc>${origin}/docs/p${i}</loc></url>`).join('')}</urlset>`);
  }
  res.statusCode = 404;
  res.end('not found');
});
await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

// The server's crawler fetches the loopback site only with private networks allowed.
process.env.LORE_CRAWL_PRIVATE_NETWORKS = 'on';
const lore = await startLore('bench-sources');
const { call, container, embedder, token } = lore;
await embedder.embed(['warm up']);
const collection = async (name: string) => (await call('POST', '/api/v1/collections', { name })).data.id as string;
const timed = async <T>(run: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now();
  const result = await run();
  return [result, (performance.now() - started) / 1000];
};
const crawl = (into: string, delayMs: number) =>
  crawlSite({ start: `${origin}/docs/`, collection: into, server: lore.url, token, maxPages: pageCount + 10, concurrency: 2, delayMs, include: [], exclude: [], keepGone: false, progress: false });

const fast = await collection('crawl');
const [first, crawlSeconds] = await timed(() => crawl(fast, 0));
const [again, recrawlSeconds] = await timed(() => crawl(fast, 0));
const polite = await collection('crawl-polite');
const [, politeSeconds] = await timed(() => crawl(polite, 250));
const served = await collection('crawler');
const [serverRun, serverSeconds] = await timed(async () => {
  const crawler = (await call('POST', `/api/v1/collections/${served}/crawlers`, { start_url: `${origin}/docs/`, max_pages: pageCount + 10 })).data.id as string;
  // The runner looks every 15 s; a round now takes it at once and waits for its run.
  await container.crawlerRunner.tick();
  return (await call('GET', `/api/v1/collections/${served}/crawlers/${crawler}`)).data.last_run;
});

// The floor: the embedder alone on the chunks the first crawl stored, in batches like the crawl's.
const stored = await container.db.query<{ title: string | null; raw_text: string }>('SELECT title, raw_text FROM entries WHERE collection_id = $1 ORDER BY seq', [fast]);
const texts = stored.map((e) => draftChunks({ title: e.title, raw_text: e.raw_text, meta: {}, searchable_meta: {}, source_url: null, source_type: 'web', source_id: '' }, embedder.model).map((c) => c.embedText));
const [, embedSeconds] = await timed(async () => {
  for (let i = 0; i < texts.length; i += 25) await embedder.embed(texts.slice(i, i + 25).flat());
});
const chunks = texts.reduce((n, t) => n + t.length, 0);

const folder = mkdtempSync(path.join(os.tmpdir(), 'lore-bench-docs-'));
cpSync('docs', folder, { recursive: true });
cpSync('README.md', path.join(folder, 'README.md'));
const docsCollection = await collection('docs');
const [imported, importSeconds] = await timed(() => importFolder({ dir: folder, collection: docsCollection, server: lore.url, token, baseUrl: 'https://docs.example.com/', prune: false, ignore: [], progress: false }));
const [, reimportSeconds] = await timed(() => importFolder({ dir: folder, collection: docsCollection, server: lore.url, token, baseUrl: 'https://docs.example.com/', prune: false, ignore: [], progress: false }));
const docsChars = readFileSync('README.md', 'utf8').length;
rmSync(folder, { recursive: true, force: true });

const rate = (n: number, s: number) => `${(n / s).toFixed(1)}/s (${n} in ${s.toFixed(1)} s)`;
console.log(`\ncontent sources (${container.db.backend}; a generated site of ${pageCount} pages + index on loopback, ${chunks} chunks)`);
console.log(`${'crawl + index, unthrottled'.padEnd(40)} ${rate(first.fetched, crawlSeconds)} pages; ${first.created} new, ${first.failed.length} failed, ${first.skipped.length} skipped`);
console.log(`${'  of which the embedder alone'.padEnd(40)} ${embedSeconds.toFixed(1)} s = ${((embedSeconds / crawlSeconds) * 100).toFixed(0)} % of the crawl (${(chunks / embedSeconds).toFixed(1)} chunks/s)`);
console.log(`${'re-crawl, unchanged'.padEnd(40)} ${rate(again.fetched, recrawlSeconds)} pages; ${again.unchanged} unchanged, ${again.created + again.updated} written`);
console.log(`${'crawl + index, defaults (250 ms apart)'.padEnd(40)} ${rate(pageCount + 1, politeSeconds)} pages`);
console.log(`${'server crawler, defaults (250 ms apart)'.padEnd(40)} ${rate(serverRun.report.fetched, serverSeconds)} pages; ${serverRun.report.created} new, ${serverRun.outcome}`);
console.log(`${'folder import of README.md + docs/'.padEnd(40)} ${rate(imported.files, importSeconds)} files; ${imported.created} new (README alone ${docsChars.toLocaleString('en')} characters)`);
console.log(`${'  again, unchanged'.padEnd(40)} ${rate(imported.files, reimportSeconds)} files`);

await lore.close();
site.close();
