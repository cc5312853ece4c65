/**
 * The `lore` command as a user runs it (a child process, `node --import tsx src/cli.ts …`):
 * its version and help, usage mistakes (one line naming the mistake, a suggestion when close,
 * the command's usage, exit 2, never a stack), runtime failures (one line, exit 1), and which
 * server address it calls (--url, else LORE_URL, else PORT) as named when nothing answers there.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { before, describe, it } from 'node:test';
import { runLoreCli } from './processes.js';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** A port on this machine that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const unreachable = (address: string) => `lore: cannot reach Lore at ${address} (connection refused). Is it running? Set --url or LORE_URL (or PORT) to its address.\n`;

/** Asserts a usage mistake: exit 2, nothing on stdout, `line` as the only error line, then the usage; no stack. */
function assertUsageError(result: { code: number; stdout: string; stderr: string }, line: string, usage: RegExp): void {
  assert.equal(result.code, 2, result.stderr);
  assert.equal(result.stdout, '');
  assert.deepEqual(result.stderr.split('\n').filter((l) => l.startsWith('lore:')), [line]);
  assert.ok(result.stderr.startsWith(`${line}\n`), result.stderr);
  assert.match(result.stderr, usage);
  assertNoStack(result.stderr);
}

function assertNoStack(stderr: string): void {
  assert.doesNotMatch(stderr, /^\s+at /m, 'no stack frames');
  assert.doesNotMatch(stderr, /TypeError|ERR_PARSE_ARGS|node:internal/);
}

describe('lore (the command line)', () => {
  let closed: number[];
  /** The CLI with no server address, credentials or debug output from this process's environment. */
  let lore: (args: string[], env?: Record<string, string>) => ReturnType<typeof runLoreCli>;
  before(async () => {
    closed = [await closedPort(), await closedPort(), await closedPort()];
    const base = { LORE_URL: '', PORT: String(closed[2]), LORE_MASTER_KEY: 'lore_master_test', LORE_TOKEN: 'lore_test', LORE_DEBUG: '' };
    lore = (args, env = {}) => runLoreCli(args, { ...process.env, ...base, ...env }, 60_000);
  });

  it('prints its version for --version and -v', async () => {
    for (const flag of ['--version', '-v']) {
      const result = await lore([flag]);
      assert.deepEqual(result, { code: 0, stdout: `lore ${VERSION}\n`, stderr: '' }, flag);
    }
  });

  it('shows the overview for help, and a command\'s usage for help COMMAND, COMMAND --help and -h', async () => {
    const overview = await lore(['help']);
    assert.equal(overview.code, 0);
    for (const command of ['serve', 'org create', 'org list', 'token create', 'token revoke', 'export FILE', 'import DIR --collection ID', 'import FILE', 'reindex', 'crawl URL', 'help [COMMAND]']) {
      assert.match(overview.stdout, new RegExp(`^  ${command.replace(/[[\]]/g, '\\$&')} `, 'm'), command);
    }
    const [help, flag, short] = await Promise.all([lore(['help', 'import']), lore(['import', '--help']), lore(['import', './docs', '-h'])]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage:\n  lore import DIR --collection ID \[flags\]\n/);
    assert.match(help.stdout, /^  --collection ID +the collection to write into/m);
    assert.match(help.stdout, /^  --prune +delete the entries of files that are gone/m);
    assert.doesNotMatch(help.stdout, /--master-key|--max-pages/, "only import's flags");
    assert.deepEqual(flag, help);
    assert.deepEqual(short, help);
  });

  it('accepts --help on every command, without running it', async () => {
    const commands = [['serve'], ['org'], ['org', 'create'], ['org', 'list'], ['token', 'create'], ['token', 'revoke'], ['export'], ['import'], ['reindex'], ['crawl'], ['help']];
    const results = await Promise.all(commands.map((words) => lore([...words, '--help'])));
    results.forEach((result, i) => {
      const name = commands[i]!.join(' ');
      assert.equal(result.code, 0, name);
      assert.match(result.stdout, new RegExp(`^Usage:\\n  lore ${name}\\b`), name);
      assert.match(result.stdout, /^  -h, --help +show this help$/m, name);
      assert.equal(result.stderr, '', name);
    });
  });

  it('names a mistyped flag in one line, suggests the close one, shows the usage and exits 2', async () => {
    const result = await lore(['import', './docs', '--colection', 'x']);
    assertUsageError(result, 'lore: unknown flag --colection for lore import (did you mean --collection?)', /^Usage:\n  lore import DIR --collection ID/m);
    assertUsageError(await lore(['org', 'list', '--jsn']), 'lore: unknown flag --jsn for lore org list (did you mean --json?)', /^  lore org list/m);
  });

  it("refuses another command's flag, a flag without its value, and arguments too many or missing (exit 2)", async () => {
    const [foreign, noValue, extra, noName, noFile, noVerb] = await Promise.all([
      lore(['reindex', '--collection', 'x']),
      lore(['org', 'list', '--url']),
      lore(['export', 'a.gz', 'b.gz']),
      lore(['org', 'create']),
      lore(['export']),
      lore(['org']),
    ]);
    assertUsageError(foreign, 'lore: unknown flag --collection for lore reindex (--collection is a flag of lore import)', /^  lore reindex/m);
    assertUsageError(noValue, 'lore: --url needs a value (--url URL)', /^  lore org list/m);
    assertUsageError(extra, 'lore: unexpected argument "b.gz" for lore export', /^  lore export FILE/m);
    assertUsageError(noName, 'lore: org create needs --name NAME', /^  lore org create --name NAME/m);
    assertUsageError(noFile, 'lore: export needs a FILE (- for standard output)', /^  lore export FILE/m);
    assertUsageError(noVerb, 'lore: org needs a subcommand: create or list', /^  lore org create[\s\S]*^  lore org list/m);
  });

  it('names an unknown command, suggesting the close one, with the overview (exit 2)', async () => {
    const [typo, verb, unknown] = await Promise.all([lore(['imprt', './docs']), lore(['org', 'lst']), lore(['frobnicate'])]);
    assertUsageError(typo, 'lore: unknown command "imprt" (did you mean import?)', /^Commands:$/m);
    assertUsageError(verb, 'lore: unknown command "org lst" (did you mean org list?)', /^  lore org list/m);
    assertUsageError(unknown, 'lore: unknown command "frobnicate"', /^Commands:$/m);
  });

  it('calls --url, else LORE_URL, else http://127.0.0.1:$PORT, and names the address it could not reach (exit 1)', async () => {
    const [first, second, third] = closed.map((port) => `http://127.0.0.1:${port}`) as [string, string, string];
    const port = { PORT: String(closed[2]) };
    const [byPort, byEnv, byFlag, importing, crawling] = await Promise.all([
      lore(['org', 'list'], port),
      lore(['org', 'list'], { ...port, LORE_URL: second }),
      lore(['org', 'list', '--url', `${first}/`], { ...port, LORE_URL: second }),
      lore(['import', '.', '--collection', 'x'], { ...port, LORE_URL: second }),
      lore(['crawl', 'https://docs.example.test/', '--collection', 'x'], port),
    ]);
    for (const [result, address] of [[byPort, third], [byEnv, second], [byFlag, first], [importing, second], [crawling, third]] as const) {
      assert.deepEqual([result.code, result.stdout, result.stderr], [1, '', unreachable(address)]);
    }
  });

  it('refuses a server address that is not one (exit 2)', async () => {
    const [flag, env, port] = await Promise.all([
      lore(['org', 'list', '--url', 'localhost:3000']),
      lore(['token', 'revoke', '--id', 'abc'], { LORE_URL: 'ftp://example.test/' }),
      lore(['org', 'list'], { PORT: 'eighty' }),
    ]);
    assertUsageError(flag, `lore: --url must be the server's http(s) address, such as http://127.0.0.1:3000, not "localhost:3000"`, /^  lore org list/m);
    assertUsageError(env, `lore: LORE_URL must be the server's http(s) address, such as http://127.0.0.1:3000, not "ftp://example.test/"`, /^  lore token revoke/m);
    assertUsageError(port, "lore: PORT=eighty is not a port to call: set --url or LORE_URL to the server's address", /^  lore org list/m);
  });

  it('says an unexpected failure in one line, its stack only with LORE_DEBUG=1 (exit 1)', async () => {
    // A server that answers, but not as Lore does: JSON without the list, then not JSON at all.
    const answers = ['{}', '<html>not Lore</html>'];
    const server = createHttpServer((_request, response) => response.end(answers.shift()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const odd = await lore(['org', 'list', '--url', url]);
      assert.deepEqual([odd.code, odd.stdout, odd.stderr], [1, '', "lore: cannot read properties of undefined (reading 'map')\n"]);
      const html = await lore(['org', 'list', '--url', url]);
      assert.deepEqual([html.code, html.stderr], [1, `lore: ${url} answered 200 but not as Lore does: is --url (or LORE_URL, PORT) Lore's address?\n`]);
      answers.push('{}');
      const debug = await lore(['org', 'list', '--url', url], { LORE_DEBUG: '1' });
      assert.equal(debug.code, 1);
      assert.match(debug.stderr, /^lore: cannot read properties of undefined \(reading 'map'\)\nTypeError: [^\n]+\n\s+at /);
    } finally {
      server.close();
    }
  });
});
