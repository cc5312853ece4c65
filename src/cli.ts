#!/usr/bin/env node
import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';

const USAGE = `Usage:
  lore [serve]                                   start the server (configured by environment variables)
  lore org create --name NAME [--json]           create an organisation and its first API token
  lore org list [--json]                         list organisations
  lore token create --org ID [--json]            issue another API token for an organisation
  lore token revoke --id TOKEN_ID                revoke an API token
  lore export FILE                               copy the whole instance into FILE (gzip'd JSON lines; - for stdout)
  lore import FILE [--replace]                   load an export into an empty database (--replace: replace what it holds)
  lore reindex [--all] [--json]                  embed again, with the configured model, the chunks another model embedded
                                                 (--all: every chunk), with a progress bar
  lore crawl URL --collection ID [--max-pages N] [--concurrency N] [--delay-ms MS] [--include PATTERN ...]
            [--exclude PATTERN ...] [--keep-gone] [--token TOKEN]
                                                 crawl a website (same origin and path prefix, robots.txt obeyed,
                                                 sitemaps read) into a collection of a running server; unchanged
                                                 pages are not sent again, pages now 404/410 are deleted
  lore import DIR --collection ID [--base-url URL] [--prune] [--sections] [--ignore PATTERN ...] [--token TOKEN]
                                                 import a folder's Markdown, MDX, HTML, PDF and text files into a collection
                                                 of a running server (--token defaults to $LORE_TOKEN); unchanged
                                                 files are skipped, --prune deletes entries of files that are gone,
                                                 --sections makes an entry of each ## section of a Markdown file

Admin commands call a running server: --url (default http://127.0.0.1:$PORT or 3000)
and --master-key (default $LORE_MASTER_KEY). export and import work on the database itself:
DATABASE_URL when set, else the embedded one in LORE_DATA_DIR (default ./.lore), which no
server may be using at the time; so does reindex (on PostgreSQL, beside running servers).`;

/** The running server the commands call: --url, else this machine's $PORT or 3000. */
function serverUrl(values: Record<string, unknown>): string {
  return String(values.url ?? `http://127.0.0.1:${process.env.PORT || 3000}`).replace(/\/+$/, '');
}

/**
 * Runs a content-source command (import DIR, crawl URL) with the organisation token (--token,
 * else $LORE_TOKEN): a failure that ends the run (ImportError) exits 1 with its message.
 */
async function sourceCommand(values: { token?: string }, run: (token: string) => Promise<void>): Promise<void> {
  const token = values.token ?? process.env.LORE_TOKEN ?? '';
  if (!token) fail('Set LORE_TOKEN or pass --token (an organisation API token).');
  const { ImportError } = await import('./sources/loreApi.js');
  try {
    await run(token);
  } catch (error) {
    if (error instanceof ImportError) fail(error.message);
    throw error;
  }
}

/** Calls an admin route; prints the JSON body or a readable summary. Exit code 1 on failure. */
async function admin(method: string, path: string, body: unknown, values: Record<string, unknown>): Promise<unknown> {
  const base = serverUrl(values);
  const key = String(values['master-key'] ?? process.env.LORE_MASTER_KEY ?? '');
  if (!key) fail('Set LORE_MASTER_KEY or pass --master-key (printed when the server first started).');
  let response: Response;
  try {
    response = await fetch(`${base}/api/v1/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, accept: 'application/json', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    fail(`Cannot reach Lore at ${base}: ${(error as Error).message}`);
  }
  const text = await response.text();
  const parsed = text ? (JSON.parse(text) as { message?: string }) : {};
  if (!response.ok) fail(`${response.status}: ${parsed.message ?? text}`);
  return parsed;
}

function fail(message: string): never {
  process.stderr.write(`lore: ${message}\n`);
  process.exit(1);
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      org: { type: 'string' },
      id: { type: 'string' },
      json: { type: 'boolean', default: false },
      url: { type: 'string' },
      'master-key': { type: 'string' },
      replace: { type: 'boolean', default: false },
      collection: { type: 'string' },
      'base-url': { type: 'string' },
      prune: { type: 'boolean', default: false },
      sections: { type: 'boolean', default: false },
      ignore: { type: 'string', multiple: true },
      token: { type: 'string' },
      'max-pages': { type: 'string' },
      concurrency: { type: 'string' },
      'delay-ms': { type: 'string' },
      include: { type: 'string', multiple: true },
      exclude: { type: 'string', multiple: true },
      'keep-gone': { type: 'boolean', default: false },
      all: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [noun = 'serve', verb] = positionals;
  const print = (result: unknown, human: string): void => {
    process.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : `${human}\n`);
  };

  if (values.help) return void process.stdout.write(`${USAGE}\n`);
  if (noun === 'serve') {
    const { serve } = await import('./main.js');
    return serve();
  }
  if (noun === 'org' && verb === 'create') {
    if (!values.name) fail('org create needs --name');
    const result = (await admin('POST', '/organisations', { name: values.name }, values)) as {
      data: { id: number; name: string };
      token: string;
    };
    return print(result, `Created organisation ${result.data.id} (${result.data.name}).\nAPI token (shown once): ${result.token}`);
  }
  if (noun === 'org' && verb === 'list') {
    const result = (await admin('GET', '/organisations?per_page=100', undefined, values)) as { data: { id: number; name: string }[] };
    return print(result, result.data.map((o) => `${o.id}\t${o.name}`).join('\n'));
  }
  if (noun === 'token' && verb === 'create') {
    if (!values.org || !/^\d+$/.test(values.org)) fail('token create needs --org with an organisation id');
    const result = (await admin('POST', `/organisations/${values.org}/tokens`, {}, values)) as { token: string };
    return print(result, `API token (shown once): ${result.token}`);
  }
  if (noun === 'token' && verb === 'revoke') {
    if (!values.id) fail('token revoke needs --id');
    await admin('DELETE', `/tokens/${encodeURIComponent(values.id)}`, undefined, values);
    return print({ revoked: values.id }, `Revoked ${values.id}.`);
  }
  if (noun === 'crawl') {
    if (!verb) fail('crawl needs a start URL: lore crawl URL --collection ID');
    const collection = values.collection ?? fail('crawl needs --collection ID');
    const number = (name: 'max-pages' | 'concurrency' | 'delay-ms', fallback: number, min: number, max: number) => {
      const raw = values[name];
      if (raw === undefined) return fallback;
      const n = Number(raw);
      if (!Number.isInteger(n) || n < min || n > max) fail(`--${name} must be a whole number from ${min} to ${max}`);
      return n;
    };
    return sourceCommand(values, async (token) => {
      const { crawlSite, formatCrawlReport } = await import('./crawlCli.js');
      const report = await crawlSite({
        start: verb,
        collection,
        server: serverUrl(values),
        token,
        maxPages: number('max-pages', 1000, 1, 100_000),
        concurrency: number('concurrency', 2, 1, 16),
        delayMs: number('delay-ms', 250, 0, 60_000),
        include: values.include ?? [],
        exclude: values.exclude ?? [],
        keepGone: values['keep-gone'],
      });
      print(report, formatCrawlReport(verb, collection, report));
    });
  }
  if (noun === 'import' && values.collection !== undefined) {
    if (!verb) fail('import needs a folder: lore import DIR --collection ID');
    const collection = values.collection;
    return sourceCommand(values, async (token) => {
      const { importFolder, formatImportReport } = await import('./importCli.js');
      const report = await importFolder({ dir: verb, collection, server: serverUrl(values), token, baseUrl: values['base-url'] ?? null, prune: values.prune, sections: values.sections, ignore: values.ignore ?? [] });
      print(report, formatImportReport(verb, collection, report));
    });
  }
  if (noun === 'reindex') {
    const { reindexCommand } = await import('./reindexCli.js');
    return reindexCommand({ all: values.all, json: values.json });
  }
  if (noun === 'export' || noun === 'import') {
    if (!verb) fail(`${noun} needs a FILE (- for standard ${noun === 'export' ? 'output' : 'input'})`);
    if (noun === 'import' && statSync(verb, { throwIfNoEntry: false })?.isDirectory()) fail(`${verb} is a folder: to import its files into a collection, pass --collection ID`);
    const { exportCommand, importCommand } = await import('./transferCli.js');
    return noun === 'export' ? exportCommand(verb) : importCommand(verb, { replace: values.replace });
  }
  fail(`unknown command "${positionals.join(' ')}"\n\n${USAGE}`);
}

main(process.argv.slice(2)).catch((error) => fail((error as Error).stack ?? String(error)));
