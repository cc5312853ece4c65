/**
 * The README is documentation that runs: every shell block of README.md and docs/*.md is run
 * in order, as pasted, in one bash session against a fresh Lore started as `npm start` starts
 * it (built, on its embedded defaults, the master key it prints copied as a reader would).
 * A step fails on an error status, an unset variable, a placeholder left to fill in, an error
 * body, or output missing what its `# →` line shows. Blocks that cannot run here say why in
 * a `<!-- doc-test: skip — reason -->` comment before them.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { marked, type Tokens } from 'marked';
import { placeholders, problems, shellBlocks, steps, type ShellBlock, type Step } from './docBlocks.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const FILES = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

let lore: ReturnType<typeof spawn> | undefined;
let port = 0;
let masterKey = '';
const work = mkdtempSync(path.join(tmpdir(), 'lore-readme-'));
const before_ = new Set(readdirSync(ROOT));

before(async () => {
  // As `npm start` does: build what changed, then serve dist/ on the embedded defaults.
  execFileSync(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  port = await freePort();
  lore = spawn(process.execPath, ['dist/cli.js', 'serve'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), LORE_DATA_DIR: path.join(work, 'data'), LORE_DEMO: 'off', LORE_MASTER_KEY: '', LORE_LOG_FORMAT: 'json', LORE_LOG_LEVEL: 'warn', DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  lore.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    lore!.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      // The line a reader copies from the first start's output.
      const key = /^\s*(?:export )?LORE_MASTER_KEY=(\S+)/m.exec(stdout);
      if (key) masterKey = key[1]!;
      if (/Lore is listening on /.test(stdout)) resolve();
    });
    lore!.once('exit', (code) => reject(new Error(`Lore exited (${code}) before listening: ${stderr.slice(-2000)}`)));
  });
  assert.ok(masterKey, `the first start printed no LORE_MASTER_KEY line:\n${stdout}`);
});

after(() => {
  lore?.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
  // What the walk-through wrote into the checkout (activity.csv, say) goes with it.
  for (const name of readdirSync(ROOT)) if (!before_.has(name) && !name.startsWith('.') && statSync(path.join(ROOT, name)).isFile()) rmSync(path.join(ROOT, name));
});

/**
 * Runs every step in one bash session (variables carry over, as in a reader's terminal), each
 * step's output in its own file; stops at the first failing command.
 */
function run(all: { block: ShellBlock; step: Step }[]): { code: number; outputs: string[] } {
  const dir = path.join(work, 'steps');
  mkdirSync(dir, { recursive: true });
  const script = ['set -euo pipefail', 'cd "$LORE_DOCTEST_ROOT"'];
  all.forEach(({ step }, i) => {
    script.push(`printf '%s' ${i} > "$LORE_DOCTEST_DIR/current"`, '{', step.commands, `} > "$LORE_DOCTEST_DIR/${i}.out" 2>&1`);
  });
  writeFileSync(path.join(dir, 'script.sh'), `${script.join('\n')}\n`);
  const env: Record<string, string | undefined> = { ...process.env, PORT: String(port), LORE_DOCTEST_ROOT: ROOT, LORE_DOCTEST_DIR: dir, LORE_MASTER_KEY: masterKey, npm_config_update_notifier: 'false' };
  for (const name of ['LORE_URL', 'LORE_TOKEN', 'TOKEN', 'DATABASE_URL', 'LORE_DATA_DIR']) delete env[name];
  const result = spawnSync('bash', [path.join(dir, 'script.sh')], { env, encoding: 'utf8', timeout: 8 * 60_000 });
  const outputs = all.map((_, i) => (existsSync(path.join(dir, `${i}.out`)) ? readFileSync(path.join(dir, `${i}.out`), 'utf8') : ''));
  if (result.status !== 0) {
    const current = Number(readFileSync(path.join(dir, 'current'), 'utf8'));
    const { block, step } = all[current]!;
    assert.fail(`${block.file}:${step.line}: exit ${result.status ?? result.signal}\n${step.commands}\n--- output ---\n${outputs[current]}${result.stderr}`);
  }
  return { code: result.status ?? 1, outputs };
}

test('the README and docs/*.md shell blocks run as pasted and print what they show', { timeout: 10 * 60_000 }, (t) => {
  const blocks = FILES.flatMap((f) => shellBlocks(path.join(ROOT, f)).map((b) => ({ ...b, file: f })));
  const runnable = blocks.filter((b) => !b.skip);
  for (const b of blocks.filter((b) => b.skip)) t.diagnostic(`skipped ${b.file}:${b.line}: ${b.skip}`);
  assert.ok(runnable.length >= 10, `only ${runnable.length} runnable shell blocks found`);
  const all = runnable.flatMap((block) => steps(block).map((step) => ({ block, step })));
  for (const { block, step } of all) {
    assert.deepEqual(placeholders(step.commands), [], `${block.file}:${step.line}: a value left for the reader to fill in`);
  }
  const { outputs } = run(all);
  const failures = all.flatMap(({ block, step }, i) => problems(outputs[i]!, step.expected).map((p) => `${block.file}:${step.line}: ${p}\n  output: ${outputs[i]!.slice(0, 400)}`));
  if (process.env.LORE_DOCTEST_VERBOSE) all.forEach(({ block, step }, i) => t.diagnostic(`${block.file}:${step.line}\n${step.commands}\n→ ${outputs[i]}`));
  assert.deepEqual(failures, []);
  t.diagnostic(`${all.length} steps of ${runnable.length} blocks ran`);
});

test("the README's MCP client configurations connect as pasted (the URL one, and the command one over stdio)", { timeout: 2 * 60_000 }, async () => {
  const created = await fetch(`http://127.0.0.1:${port}/api/v1/admin/organisations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${masterKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Assistants' }),
  });
  const { token } = (await created.json()) as { token: string };
  type Server = { url?: string; headers?: Record<string, string>; command?: string; args?: string[]; env?: Record<string, string> };
  // The README's JSON blocks naming mcpServers, with what a reader fills in: the address, the token, the checkout.
  const fill = (text: string) => text.replaceAll('http://127.0.0.1:3000', `http://127.0.0.1:${port}`).replaceAll('lore_…', token).replaceAll('/path/to/lore/', `${ROOT}/`);
  const configs = marked.lexer(readFileSync(path.join(ROOT, 'README.md'), 'utf8'))
    .filter((t): t is Tokens.Code => t.type === 'code' && t.lang === 'json' && t.text.includes('mcpServers'))
    .map((block) => (JSON.parse(fill(block.text)) as { mcpServers: Record<string, Server> }).mcpServers.lore!);
  assert.deepEqual(configs.map((c) => (c.url ? 'url' : 'command')), ['url', 'command']);
  for (const server of configs) {
    const client = new Client({ name: 'readme', version: '1.0.0' });
    const transport = server.url
      ? new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } })
      : new StdioClientTransport({ command: server.command!, args: server.args, env: { PATH: process.env.PATH ?? '', ...server.env }, stderr: 'pipe' });
    await client.connect(transport);
    try {
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), ['answer', 'get_entry', 'search']);
      const result = (await client.callTool({ name: 'search', arguments: { query: 'invoices' } })) as { isError?: boolean; content: { type: string; text: string }[] };
      assert.equal(result.isError, undefined, JSON.stringify(result));
      assert.match(result.content[0]!.text, /invoices/i);
    } finally {
      await client.close();
    }
  }
});
