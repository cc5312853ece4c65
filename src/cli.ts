#!/usr/bin/env node
/**
 * The `lore` command: one table of commands, each with its own flags (node:util parseArgs,
 * strict) and usage. A usage mistake (unknown command or flag, a missing or bad argument) is
 * one line, with a suggestion when a name is close, then that command's usage: exit 2. Any
 * other failure (a server refusing or unreachable, an unexpected error) is one line: exit 1.
 * Errors go to stderr as `lore: <sentence>`, results to stdout; a stack only with LORE_DEBUG=1.
 */
import { readFileSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { serverAddress, unreachableMessage } from './sources/loreApi.js';

interface Flag {
  type: 'string' | 'boolean';
  /** The value's name in the usage (`--name NAME`). */
  value?: string;
  multiple?: true;
  help: string;
}
type Values = Record<string, string | boolean | string[] | undefined>;

interface Command {
  /** The words that name it: `org create`. */
  name: string;
  /** Its forms: what follows `lore <name>` (positionals, flags it needs) and what it does, in one line. */
  forms: { synopsis: string; summary: string }[];
  /** More about it, for its usage. */
  about?: string;
  flags: Record<string, Flag>;
  /** Positional arguments: how many it needs, and takes at most; what is missing when too few. */
  args: [min: number, max: number, missing?: string];
  run(values: Values, args: string[]): Promise<void>;
}

/** A mistake in how a command was called: said in one line, then the usage (exit 2). */
class UsageError extends Error {
  constructor(message: string, readonly usage: string) {
    super(message);
  }
}

const URL_FLAG: Flag = { type: 'string', value: 'URL', help: "the server's address (default $LORE_URL, else http://127.0.0.1:$PORT or :3000)" };
const JSON_FLAG: Flag = { type: 'boolean', help: 'print the result as JSON' };
const ADMIN_FLAGS: Record<string, Flag> = {
  url: URL_FLAG,
  'master-key': { type: 'string', value: 'KEY', help: 'the admin key the server printed at its first start (default $LORE_MASTER_KEY)' },
  json: JSON_FLAG,
};
const SOURCE_FLAGS: Record<string, Flag> = {
  collection: { type: 'string', value: 'ID', help: 'the collection to write into (required)' },
  token: { type: 'string', value: 'TOKEN', help: 'an organisation API token (default $LORE_TOKEN)' },
  url: URL_FLAG,
  json: JSON_FLAG,
};
const HELP_FLAG: Flag = { type: 'boolean', help: 'show this help' };

const COMMANDS: Command[] = [
  {
    name: 'serve',
    forms: [{ synopsis: '', summary: 'start the server (the default command)' }],
    about: 'Serves the API, the widget scripts, the console and the demo page, configured by environment\nvariables: PORT (default 3000), HOST (default 127.0.0.1), LORE_DATA_DIR, DATABASE_URL,\nLORE_MASTER_KEY, … (see the README).',
    flags: {},
    args: [0, 0],
    run: async () => (await import('./main.js')).serve(),
  },
  {
    name: 'org create',
    forms: [{ synopsis: '--name NAME', summary: 'create an organisation and its first API token' }],
    flags: { name: { type: 'string', value: 'NAME', help: "the organisation's name (required)" }, ...ADMIN_FLAGS },
    args: [0, 0],
    async run(values) {
      const name = required(values, 'name', this);
      const result = (await admin(this, 'POST', '/organisations', { name }, values)) as { data: { id: number; name: string }; token: string };
      print(values, result, `Created organisation ${result.data.id} (${result.data.name}).\nAPI token (shown once): ${result.token}`);
    },
  },
  {
    name: 'org list',
    forms: [{ synopsis: '', summary: 'list organisations (id and name)' }],
    flags: ADMIN_FLAGS,
    args: [0, 0],
    async run(values) {
      const result = (await admin(this, 'GET', '/organisations?per_page=100', undefined, values)) as { data: { id: number; name: string }[] };
      print(values, result, result.data.map((o) => `${o.id}\t${o.name}`).join('\n'));
    },
  },
  {
    name: 'token create',
    forms: [{ synopsis: '--org ID', summary: 'issue another API token for an organisation' }],
    flags: { org: { type: 'string', value: 'ID', help: "the organisation's id (required)" }, ...ADMIN_FLAGS },
    args: [0, 0],
    async run(values) {
      const org = required(values, 'org', this);
      if (!/^\d+$/.test(org)) throw new UsageError(`--org must be an organisation's id (a number), not "${org}"`, usage(this));
      const result = (await admin(this, 'POST', `/organisations/${org}/tokens`, {}, values)) as { token: string };
      print(values, result, `API token (shown once): ${result.token}`);
    },
  },
  {
    name: 'token revoke',
    forms: [{ synopsis: '--id TOKEN_ID', summary: 'revoke an API token' }],
    flags: { id: { type: 'string', value: 'TOKEN_ID', help: 'the token id (the part after lore_, or token_id as created)' }, ...ADMIN_FLAGS },
    args: [0, 0],
    async run(values) {
      const id = required(values, 'id', this);
      await admin(this, 'DELETE', `/tokens/${encodeURIComponent(id)}`, undefined, values);
      print(values, { revoked: id }, `Revoked ${id}.`);
    },
  },
  {
    name: 'export',
    forms: [{ synopsis: 'FILE', summary: "copy the whole instance into FILE (gzip'd JSON lines; - for standard output)" }],
    about: 'Works on the database itself: DATABASE_URL, else the embedded one in LORE_DATA_DIR (default\n./.lore), which no server may be using at the time.',
    flags: {},
    args: [1, 1, 'a FILE (- for standard output)'],
    run: async (_values, [file]) => (await import('./transferCli.js')).exportCommand(file!),
  },
  {
    name: 'import',
    forms: [
      { synopsis: 'DIR --collection ID', summary: "send a folder's Markdown, MDX, HTML, PDF and text files to a collection of a running server" },
      { synopsis: 'FILE [--replace]', summary: 'load an export (lore export; - for standard input) into an empty database' },
    ],
    about: 'A folder: unchanged files are not sent again. An export: no server may be using the database.',
    flags: {
      ...SOURCE_FLAGS,
      'base-url': { type: 'string', value: 'URL', help: "where the folder is published: the entries' source_url" },
      prune: { type: 'boolean', help: 'delete the entries of files that are gone' },
      sections: { type: 'boolean', help: 'one entry per section of a Markdown file (## sections; a long one split at ###)' },
      ignore: { type: 'string', value: 'PATTERN', multiple: true, help: 'leave out what matches (gitignore syntax; repeatable)' },
      replace: { type: 'boolean', help: 'FILE: replace what the database holds' },
    },
    args: [1, 1, 'a DIR (with --collection ID) or an export FILE'],
    async run(values, [target]) {
      if (values.collection === undefined) return importExport(values, target!, this);
      if (values.replace) throw new UsageError('--replace is for loading an export FILE, not for importing a folder with --collection', usage(this));
      const baseUrl = httpUrl(values, 'base-url', this);
      const server = serverUrl(values, this);
      const token = sourceToken(values, this);
      const collection = required(values, 'collection', this);
      const { importFolder, formatImportReport } = await import('./importCli.js');
      const report = await importFolder({ dir: target!, collection, server, token, baseUrl, prune: values.prune === true, sections: values.sections === true, ignore: list(values, 'ignore') });
      print(values, report, formatImportReport(target!, collection, report, values.sections === true));
    },
  },
  {
    name: 'reindex',
    forms: [{ synopsis: '', summary: 'embed again, with the configured model, the chunks another model embedded' }],
    about: 'Works on the database itself, like export (on PostgreSQL it may run beside running servers).',
    flags: { all: { type: 'boolean', help: 'embed every chunk again' }, json: JSON_FLAG },
    args: [0, 0],
    run: async (values) => (await import('./reindexCli.js')).reindexCommand({ all: values.all === true, json: values.json === true }),
  },
  {
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
      const { cleanUrl } = await import('./sources/crawl.js');
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
      const { crawlSite, formatCrawlReport } = await import('./crawlCli.js');
      const report = await crawlSite({ start: start!, collection, server, token, ...options, include: list(values, 'include'), exclude: list(values, 'exclude'), keepGone: values['keep-gone'] === true, sections: values.sections === true });
      print(values, report, formatCrawlReport(start!, collection, report, values.sections === true));
    },
  },
  {
    name: 'help',
    forms: [{ synopsis: '[COMMAND]', summary: "show the commands, or a command's usage and flags" }],
    flags: {},
    args: [0, 2],
    run: async (_values, words) => void process.stdout.write(`${words.length === 0 ? overview() : lookUp(words, true).usage}\n`),
  },
];

function usage(command: Command): string {
  const flags = Object.entries({ ...command.flags, help: HELP_FLAG }).map(([name, flag]) => {
    const head = `${name === 'help' ? '-h, ' : ''}--${name}${flag.value ? ` ${flag.value}` : ''}`;
    return `  ${head.padEnd(20)}  ${flag.help}`;
  });
  const forms = command.forms.flatMap(({ synopsis, summary }) => [`  lore ${command.name}${synopsis ? ` ${synopsis}` : ''}${flags.length > 1 ? ' [flags]' : ''}`, `      ${summary}`]);
  return ['Usage:', ...forms, ...(command.about ? ['', command.about] : []), '', 'Flags:', ...flags].join('\n');
}

function overview(): string {
  const forms = COMMANDS.flatMap((c) => c.forms.map(({ synopsis, summary }) => `  ${`${c.name}${synopsis ? ` ${synopsis}` : ''}`.padEnd(26)}  ${summary}`));
  return [
    'Usage: lore COMMAND [flags]',
    '',
    'Commands:',
    ...forms,
    '',
    'lore help COMMAND (or lore COMMAND --help) explains its flags; lore --version prints the version.',
    'org, token, import DIR and crawl call a running server: --url, else $LORE_URL, else',
    'http://127.0.0.1:$PORT (port 3000 when PORT is unset). export, import FILE and reindex open',
    'the database itself: DATABASE_URL when set, else the embedded one in LORE_DATA_DIR (./.lore).',
  ].join('\n');
}

/**
 * The command `words` name (`import`, `org create`) and the words left after its name, or a
 * UsageError naming the closest. With `group`, a word that starts several commands (`org`)
 * alone gives their usages together.
 */
function lookUp(words: string[], group = false): { command?: Command; usage: string; rest: string[] } {
  const [noun = 'serve', verb] = words;
  const family = COMMANDS.filter((c) => c.name.split(' ')[0] === noun);
  const single = family.find((c) => c.name === noun);
  if (single) return { command: single, usage: usage(single), rest: words.slice(1) };
  if (family.length === 0) {
    const close = closest(noun, [...new Set(COMMANDS.map((c) => c.name.split(' ')[0]!))]);
    throw new UsageError(`unknown command "${noun}"${close ? ` (did you mean ${close}?)` : ''}`, overview());
  }
  const together = family.map(usage).join('\n\n');
  const command = family.find((c) => c.name === `${noun} ${verb}`);
  if (command) return { command, usage: usage(command), rest: words.slice(2) };
  if (group && verb === undefined) return { usage: together, rest: [] };
  const verbs = family.map((c) => c.name.split(' ')[1]!);
  if (verb === undefined) throw new UsageError(`${noun} needs a subcommand: ${verbs.join(' or ')}`, together);
  const close = closest(verb, verbs);
  throw new UsageError(`unknown command "${noun} ${verb}"${close ? ` (did you mean ${noun} ${close}?)` : ''}`, together);
}

/** The candidate nearest `word` by edit distance, when near enough to be a typo. */
function closest(word: string, candidates: string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(word, name);
    if (distance <= Math.max(1, Math.floor(name.length / 3)) && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** Levenshtein distance. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/** `args` parsed by `command`'s own flags; parseArgs' errors said as one line each. */
function parse(command: Command, args: string[]): { values: Values; positionals: string[] } {
  const flags = { ...command.flags, help: HELP_FLAG };
  const options = Object.fromEntries(Object.entries(flags).map(([name, f]) => [name, { type: f.type, ...(f.multiple && { multiple: true }), ...(name === 'help' && { short: 'h' }) }]));
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true }) as { values: Values; positionals: string[] };
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (!code?.startsWith('ERR_PARSE_ARGS_')) throw error;
    const quoted = /'([^']*)'/.exec((error as Error).message)?.[1] ?? '';
    const name = /--[\w-]+/.exec(quoted)?.[0] ?? quoted.split(' ')[0]!;
    throw new UsageError(parseProblem(code, name, (error as Error).message, command), usage(command));
  }
}

function parseProblem(code: string, name: string, message: string, command: Command): string {
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const bare = name.replace(/^-+/, '').replace(/=.*$/, '');
    const close = name.startsWith('--') ? closest(bare, Object.keys(command.flags)) : undefined;
    const owner = COMMANDS.find((c) => Object.hasOwn(c.flags, bare))?.name;
    const hint = close ? ` (did you mean --${close}?)` : owner ? ` (${name} is a flag of lore ${owner})` : '';
    return `unknown flag ${name} for lore ${command.name}${hint}`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    if (/does not take an argument/.test(message)) return `${name} takes no value`;
    return `${name} needs a value (${name} ${command.flags[name.slice(2)]?.value ?? 'VALUE'})`;
  }
  return styled(message);
}

function required(values: Values, name: string, command: Command): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`${command.name} needs --${name} ${command.flags[name]!.value}`, usage(command));
  return value;
}

const list = (values: Values, name: string): string[] => (values[name] as string[] | undefined) ?? [];

/** A flag's value that must be an http(s) URL (null when the flag is absent). */
function httpUrl(values: Values, name: string, command: Command): string | null {
  const value = values[name] as string | undefined;
  if (value === undefined) return null;
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) throw new UsageError(`--${name} must be an http(s) URL such as https://docs.example.com/, not "${value}"`, usage(command));
  return value;
}

/** The running server the command calls (see serverAddress). */
function serverUrl(values: Values, command: Command): string {
  const address = serverAddress(values.url as string | undefined);
  if ('problem' in address) throw new UsageError(address.problem, usage(command));
  return address.url;
}

/** The organisation token of a content source: --token, else $LORE_TOKEN. */
function sourceToken(values: Values, command: Command): string {
  const token = String(values.token ?? process.env.LORE_TOKEN ?? '');
  if (!token) throw new UsageError('set LORE_TOKEN or pass --token (an organisation API token)', usage(command));
  return token;
}

/** `lore import FILE` (an export), refusing the flags of the folder import it lacks --collection for. */
async function importExport(values: Values, file: string, command: Command): Promise<void> {
  if (statSync(file, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`${file} is a folder: to import its files into a collection, pass --collection ID`, usage(command));
  const folderOnly = Object.keys(command.flags).find((name) => name !== 'replace' && values[name] !== undefined && values[name] !== false);
  if (folderOnly) throw new UsageError(`--${folderOnly} is for importing a folder: pass --collection ID too`, usage(command));
  const { importCommand } = await import('./transferCli.js');
  return importCommand(file, { replace: values.replace === true });
}

/** Calls an admin route and returns its JSON body; throws a refusal or an unreachable server as one line. */
async function admin(command: Command, method: string, path: string, body: unknown, values: Values): Promise<unknown> {
  const base = serverUrl(values, command);
  const key = String(values['master-key'] ?? process.env.LORE_MASTER_KEY ?? '');
  if (!key) throw new UsageError('set LORE_MASTER_KEY or pass --master-key (the server prints it when it first starts)', usage(command));
  let response: Response;
  try {
    response = await fetch(`${base}/api/v1/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, accept: 'application/json', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new Error(unreachableMessage(base, error));
  }
  const text = await response.text();
  let parsed: { message?: unknown } | null = null;
  try {
    parsed = text ? (JSON.parse(text) as { message?: unknown }) : {};
  } catch {
    // Not JSON: not Lore answering (checked below).
  }
  if (response.status === 401) throw new Error('the master key was refused (401): pass --master-key or set LORE_MASTER_KEY to the key the server printed');
  if (parsed === null) throw new Error(`${base} answered ${response.status} but not as Lore does: is --url (or LORE_URL, PORT) Lore's address?`);
  if (!response.ok) throw new Error(`the server refused (${response.status}): ${typeof parsed.message === 'string' ? parsed.message : text.slice(0, 200)}`);
  return parsed;
}

function print(values: Values, result: unknown, human: string): void {
  process.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : `${human}\n`);
}

async function main(argv: string[]): Promise<void> {
  const [first] = argv;
  if (first === '--version' || first === '-v') {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    return void process.stdout.write(`lore ${version}\n`);
  }
  if (first === '--help' || first === '-h') return void process.stdout.write(`${overview()}\n`);
  // The command's words: the leading arguments that are not flags (`-` alone is a file: stdin/stdout).
  const isFlag = (arg: string) => /^-./.test(arg);
  const leading = argv.slice(0, 2);
  const words = leading.slice(0, leading.some(isFlag) ? leading.findIndex(isFlag) : undefined);
  const end = argv.indexOf('--');
  if (argv.slice(0, end === -1 ? undefined : end).some((a) => a === '--help' || a === '-h')) return void process.stdout.write(`${lookUp(words, true).usage}\n`);
  const found = lookUp(words);
  const command = found.command!;
  const { values, positionals } = parse(command, [...found.rest, ...argv.slice(words.length)]);
  const [min, max, missing] = command.args;
  if (positionals.length > max) throw new UsageError(`unexpected argument "${positionals[max]}" for lore ${command.name}`, found.usage);
  if (positionals.length < min) throw new UsageError(`${command.name} needs ${missing}`, found.usage);
  // An error outside the command's promise (a stream's 'error' event) is said the same way; a server keeps Node's own report.
  if (command.name !== 'serve') for (const event of ['uncaughtException', 'unhandledRejection'] as const) process.on(event, exit);
  await command.run(values, positionals);
}

/**
 * A message as the CLI says it: a sentence from elsewhere (the database, the export format, a
 * runtime error) gets its first word lowercased, unless that word is a name (Lore, PGlite, PORT).
 */
function styled(message: string): string {
  return /^(?!Lore\b)[A-Z][a-z]+\b/.test(message) ? message.charAt(0).toLowerCase() + message.slice(1) : message;
}

/** Ends the command on `error`: a usage mistake exits 2 with the usage, anything else 1. */
function exit(error: unknown): never {
  if (error instanceof UsageError) {
    process.stderr.write(`lore: ${error.message}\n\n${error.usage}\n`);
    process.exit(2);
  }
  process.stderr.write(`lore: ${styled(error instanceof Error ? error.message : String(error))}\n`);
  if (process.env.LORE_DEBUG === '1' && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  process.exit(1);
}

main(process.argv.slice(2)).catch(exit);
