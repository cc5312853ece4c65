/** Lore as child processes, for tests of crashes, restarts and several processes. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../src/storage/db.js';
import { openPglite } from '../src/storage/pglite.js';
import { openPostgres } from '../src/storage/postgres.js';
import { freshPostgresDatabase, MASTER_KEY, type Backend } from './helpers.js';

/**
 * A fresh database on `backend` for Lore child processes: the environment that points
 * `lore serve` at it (a PGlite data folder, or a throwaway PostgreSQL database), a way for the
 * test to open it itself, and its removal.
 */
export async function processDatabase(backend: Backend, name: string): Promise<{ env: Record<string, string>; open: () => Promise<Db>; drop: () => Promise<void> }> {
  if (backend === 'pglite') {
    const dir = mkdtempSync(path.join(tmpdir(), `lore-${name}-`));
    return { env: { LORE_DATA_DIR: dir, DATABASE_URL: '' }, open: () => openPglite(dir), drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const database = await freshPostgresDatabase();
  return { env: { DATABASE_URL: database.url }, open: () => openPostgres(database.url, 2), drop: database.drop };
}

export interface Lore {
  process: ChildProcess;
  url: string;
  marks: number;
  exited: Promise<number | null>;
  waitMark(after: number): Promise<void>;
  /** What it has written to stdout so far. */
  stdout(): string;
}

/**
 * Starts `lore serve` as a child process on `env` (port chosen by the system, demo off, rate
 * limits off unless `env` sets them) and resolves once it listens. `marks` counts the
 * test-only "write transaction open" lines on its stderr.
 */
export async function startLoreProcess(env: Record<string, string>): Promise<Lore> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
    env: { ...process.env, PORT: '0', LORE_DEMO: 'off', LORE_MASTER_KEY: MASTER_KEY, LORE_LOG_LEVEL: 'warn', LORE_RATE_LIMIT: '0', LORE_RATE_LIMIT_IP: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const lore: Lore = {
    process: child,
    url: '',
    marks: 0,
    exited,
    stdout: () => stdout,
    async waitMark(count) {
      while (lore.marks < count) {
        if (child.exitCode !== null) throw new Error('Lore exited');
        await sleep(10);
      }
    },
  };
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    lore.marks = stderr.split('lore-test: write transaction open').length - 1;
  });
  lore.url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const listening = /Lore is listening on (http:\/\/\S+?) /.exec(stdout);
      if (listening) resolve(listening[1]!);
    });
    void exited.then((code) => reject(new Error(`Lore exited (${code}) before listening: ${stderr.slice(-2000)}`)));
  });
  return lore;
}

export async function call(lore: Lore, method: string, url: string, token: string, body?: unknown) {
  const response = await fetch(`${lore.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text === '' ? null : JSON.parse(text)) as any };
}


/** Runs a `lore` command (`src/cli.ts`) to its end on `env`: its exit code and output. */
export function runLoreCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { env, timeout: timeoutMs }, (error, stdout, stderr) => {
      // A process killed (timeout) or never started has no exit code: -1.
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
