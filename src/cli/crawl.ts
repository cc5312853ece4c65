/** `lore crawl URL --collection ID`: a website into a collection of a running server (the work is in siteCrawl.ts). */
import { list, print, required, serverUrl, SOURCE_FLAGS, sourceToken, UsageError, usage, type Command } from './command.js';

export const crawlCommand: Command = {
  name: 'crawl',
  forms: [{ synopsis: 'URL --collection ID', summary: 'crawl a website into a collection of a running server' }],
  about: 'Same origin and path prefix, robots.txt obeyed, sitemaps read; unchanged pages are not sent\nagain, pages now 404/410 are deleted.',
  flags: {
    ...SOURCE_FLAGS,
    'max-pages': { type: 'string', value: 'N', help: 'pages fetched at most (default 1000)' },
    concurrency: { type: 'string', value: 'N', help: 'requests at a time (default 2)' },
    'delay-ms': { type: 'string', value: 'MS', help: 'pause between requests (default 250)' },
    include: { type: 'string', value: 'PATTERN', multiple: true, help: 'crawl only paths that match (gitignore syntax; repeatable)' },
    exclude: { type: 'string', value: 'PATTERN', multiple: true, help: 'leave out paths that match (repeatable)' },
    'keep-gone': { type: 'boolean', help: 'keep the entries of pages now 404/410' },
    sections: { type: 'boolean', help: 'one entry per section of a page (## sections; a long one split at ###)' },
  },
  args: [1, 1, 'a start URL'],
  async run(values, [start]) {
    const collection = required(values, 'collection', this);
    const { cleanUrl } = await import('../crawler/crawl.js');
    if (!cleanUrl(start!)) throw new UsageError(`${start} is not an http(s) URL to start from`, usage(this));
    const number = (name: string, fallback: number, min: number, max: number) => {
      const raw = values[name];
      if (raw === undefined) return fallback;
      const n = Number(raw);
      if (!/^\d+$/.test(String(raw)) || n < min || n > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, not "${raw}"`, usage(this));
      return n;
    };
    const options = { maxPages: number('max-pages', 1000, 1, 100_000), concurrency: number('concurrency', 2, 1, 16), delayMs: number('delay-ms', 250, 0, 60_000) };
    const server = serverUrl(values, this);
    const token = sourceToken(values, this);
    const { crawlSite, formatCrawlReport } = await import('./siteCrawl.js');
    const report = await crawlSite({ start: start!, collection, server, token, ...options, include: list(values, 'include'), exclude: list(values, 'exclude'), keepGone: values['keep-gone'] === true, sections: values.sections === true });
    print(values, report, formatCrawlReport(start!, collection, report, values.sections === true));
  },
};
