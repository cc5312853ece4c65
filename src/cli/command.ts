/**
 * What every `lore` command shares: the shape of a command, its usage and the overview, the
 * lookup of a command by its words, its flags parsed (node:util parseArgs, strict) and read,
 * the admin API call, and the way a failure is said. A usage mistake (unknown command or flag,
 * a missing or bad argument) is one line, with a suggestion when a name is close, then that
 * command's usage: exit 2. Any other failure is one line: exit 1.
 */
import { parseArgs } from 'node:util';
import { serverAddress, unreachableMessage } from './loreApi.js';

export interface Flag {
  type: 'string' | 'boolean';
  /** The value's name in the usage (`--name NAME`). */
  value?: string;
  multiple?: true;
  help: string;
}
export type Values = Record<string, string | boolean | string[] | undefined>;

export interface Command {
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
export class UsageError extends Error {
  constructor(message: string, readonly usage: string) {
    super(message);
  }
}

const URL_FLAG: Flag = { type: 'string', value: 'URL', help: "the server's address (default $LORE_URL, else http://127.0.0.1:$PORT or :3000)" };
export const JSON_FLAG: Flag = { type: 'boolean', help: 'print the result as JSON' };
export const ADMIN_FLAGS: Record<string, Flag> = {
  url: URL_FLAG,
  'master-key': { type: 'string', value: 'KEY', help: 'the admin key the server printed at its first start (default $LORE_MASTER_KEY)' },
  json: JSON_FLAG,
};
export const SOURCE_FLAGS: Record<string, Flag> = {
  collection: { type: 'string', value: 'ID', help: 'the collection to write into (required)' },
  token: { type: 'string', value: 'TOKEN', help: 'an organisation API token (default $LORE_TOKEN)' },
  url: URL_FLAG,
  json: JSON_FLAG,
};
const HELP_FLAG: Flag = { type: 'boolean', help: 'show this help' };

export function usage(command: Command): string {
  const flags = Object.entries({ ...command.flags, help: HELP_FLAG }).map(([name, flag]) => {
    const head = `${name === 'help' ? '-h, ' : ''}--${name}${flag.value ? ` ${flag.value}` : ''}`;
    return `  ${head.padEnd(20)}  ${flag.help}`;
  });
  const forms = command.forms.flatMap(({ synopsis, summary }) => [`  lore ${command.name}${synopsis ? ` ${synopsis}` : ''}${flags.length > 1 ? ' [flags]' : ''}`, `      ${summary}`]);
  return ['Usage:', ...forms, ...(command.about ? ['', command.about] : []), '', 'Flags:', ...flags].join('\n');
}

/** `lore --help`: every form of the `commands`, and where the commands find a server or a database. */
export function overview(commands: readonly Command[]): string {
  const forms = commands.flatMap((c) => c.forms.map(({ synopsis, summary }) => `  ${`${c.name}${synopsis ? ` ${synopsis}` : ''}`.padEnd(26)}  ${summary}`));
  return [
    'Usage: lore COMMAND [flags]',
    '',
    'Commands:',
    ...forms,
    '',
    'lore help COMMAND (or lore COMMAND --help) explains its flags; lore --version prints the version.',
    'org, token, import DIR, crawl and mcp call a running server: --url, else $LORE_URL, else',
    'http://127.0.0.1:$PORT (port 3000 when PORT is unset). export, import FILE and reindex open',
    'the database itself: DATABASE_URL when set, else the embedded one in LORE_DATA_DIR (./.lore).',
  ].join('\n');
}

/**
 * The command of `commands` that `words` name (`import`, `org create`) and the words left after
 * its name, or a UsageError naming the closest. With `group`, a word that starts several
 * commands (`org`) alone gives their usages together.
 */
export function lookUp(commands: readonly Command[], words: string[], group = false): { command?: Command; usage: string; rest: string[] } {
  const [noun = 'serve', verb] = words;
  const family = commands.filter((c) => c.name.split(' ')[0] === noun);
  const single = family.find((c) => c.name === noun);
  if (single) return { command: single, usage: usage(single), rest: words.slice(1) };
  if (family.length === 0) {
    const close = closest(noun, [...new Set(commands.map((c) => c.name.split(' ')[0]!))]);
    throw new UsageError(`unknown command "${noun}"${close ? ` (did you mean ${close}?)` : ''}`, overview(commands));
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

/** `args` parsed by `command`'s own flags; parseArgs' errors said as one line each (a flag of another of `commands` named). */
export function parse(commands: readonly Command[], command: Command, args: string[]): { values: Values; positionals: string[] } {
  const flags = { ...command.flags, help: HELP_FLAG };
  const options = Object.fromEntries(Object.entries(flags).map(([name, f]) => [name, { type: f.type, ...(f.multiple && { multiple: true }), ...(name === 'help' && { short: 'h' }) }]));
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true }) as { values: Values; positionals: string[] };
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (!code?.startsWith('ERR_PARSE_ARGS_')) throw error;
    const quoted = /'([^']*)'/.exec((error as Error).message)?.[1] ?? '';
    const name = /--[\w-]+/.exec(quoted)?.[0] ?? quoted.split(' ')[0]!;
    throw new UsageError(parseProblem(commands, code, name, (error as Error).message, command), usage(command));
  }
}

function parseProblem(commands: readonly Command[], code: string, name: string, message: string, command: Command): string {
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const bare = name.replace(/^-+/, '').replace(/=.*$/, '');
    const close = name.startsWith('--') ? closest(bare, Object.keys(command.flags)) : undefined;
    const owner = commands.find((c) => Object.hasOwn(c.flags, bare))?.name;
    const hint = close ? ` (did you mean --${close}?)` : owner ? ` (${name} is a flag of lore ${owner})` : '';
    return `unknown flag ${name} for lore ${command.name}${hint}`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    if (/does not take an argument/.test(message)) return `${name} takes no value`;
    return `${name} needs a value (${name} ${command.flags[name.slice(2)]?.value ?? 'VALUE'})`;
  }
  return styled(message);
}

export function required(values: Values, name: string, command: Command): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`${command.name} needs --${name} ${command.flags[name]!.value}`, usage(command));
  return value;
}

export const list = (values: Values, name: string): string[] => (values[name] as string[] | undefined) ?? [];

/** A flag's value that must be an http(s) URL (null when the flag is absent). */
export function httpUrl(values: Values, name: string, command: Command): string | null {
  const value = values[name] as string | undefined;
  if (value === undefined) return null;
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) throw new UsageError(`--${name} must be an http(s) URL such as https://docs.example.com/, not "${value}"`, usage(command));
  return value;
}

/** The running server the command calls (see serverAddress). */
export function serverUrl(values: Values, command: Command): string {
  const address = serverAddress(values.url as string | undefined);
  if ('problem' in address) throw new UsageError(address.problem, usage(command));
  return address.url;
}

/** The organisation token of a content source: --token, else $LORE_TOKEN. */
export function sourceToken(values: Values, command: Command): string {
  const token = String(values.token ?? process.env.LORE_TOKEN ?? '');
  if (!token) throw new UsageError('set LORE_TOKEN or pass --token (an organisation API token)', usage(command));
  return token;
}

/** Calls an admin route and returns its JSON body; throws a refusal or an unreachable server as one line. */
export async function admin(command: Command, method: string, path: string, body: unknown, values: Values): Promise<unknown> {
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

export function print(values: Values, result: unknown, human: string): void {
  process.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : `${human}\n`);
}

/**
 * A message as the CLI says it: a sentence from elsewhere (the database, the export format, a
 * runtime error) gets its first word lowercased, unless that word is a name (Lore, PGlite, PORT).
 */
function styled(message: string): string {
  return /^(?!Lore\b)[A-Z][a-z]+\b/.test(message) ? message.charAt(0).toLowerCase() + message.slice(1) : message;
}

/** Ends the command on `error`: a usage mistake exits 2 with the usage, anything else 1. */
export function exit(error: unknown): never {
  if (error instanceof UsageError) {
    process.stderr.write(`lore: ${error.message}\n\n${error.usage}\n`);
    process.exit(2);
  }
  process.stderr.write(`lore: ${styled(error instanceof Error ? error.message : String(error))}\n`);
  if (process.env.LORE_DEBUG === '1' && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  process.exit(1);
}
