import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { createContainer, createEmbedder } from '../src/container.js';
import { hashSecret } from '../src/domain/access/credentials.js';
import type { AnswerProvider } from '../src/domain/answers/port.js';
import type { Embedder } from '../src/domain/ingestion/port.js';
import { buildApp } from '../src/http/app.js';
import type { Queryable } from '../src/storage/db.js';

export const MASTER_KEY = 'bench-master-key-0123456789abcdef';

export interface StartOptions {
  /** A PostgreSQL server URL; default DATABASE_URL from the environment, else PGlite. */
  databaseUrl?: string;
  /** Replaces the configured embedder (e.g. one that caches vectors between runs). */
  embedder?: Embedder;
  /** A PGlite folder kept after close (default: a temporary one, removed on close). */
  dataDir?: string;
  /** Replaces the configured answer provider (e.g. one that records what it is asked). */
  answerProvider?: AnswerProvider;
}

/**
 * Starts Lore for a benchmark, listening on loopback: PGlite in a temporary folder, or the
 * PostgreSQL server named by `databaseUrl` / DATABASE_URL. Creates an organisation; `call`
 * speaks to the API as it.
 */
export async function startLore(name: string, options: StartOptions = {}) {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), `lore-${name}-`));
  // Load from one token and one IP is the point of a benchmark: rate limits are off unless set.
  const env: NodeJS.ProcessEnv = { LORE_RATE_LIMIT: '0', LORE_RATE_LIMIT_IP: '0', LORE_ANSWER_RATE_LIMIT: '0', LORE_QUERY_CACHE: '0', ...process.env, LORE_DATA_DIR: dataDir, LORE_LOG_LEVEL: 'silent' };
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  const config = loadConfig(env);
  const embedder = options.embedder ?? (await createEmbedder(config));
  const container = await createContainer(config, { embedder, answerProvider: options.answerProvider, masterKeyHash: hashSecret(MASTER_KEY) });
  const app = await buildApp(container.deps);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });

  async function request(token: string, method: string, route: string, body?: unknown): Promise<any> {
    const response = await fetch(url + route, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
    return response.status === 204 ? null : response.json();
  }

  const org = await request(MASTER_KEY, 'POST', '/api/v1/admin/organisations', { name: `${name}-${Date.now()}` });
  const call = (method: string, route: string, body?: unknown) => request(org.token, method, route, body);
  return {
    url,
    token: org.token as string,
    embedder,
    container,
    scope: { organisationId: org.data.id as number },
    call,
    /**
     * A new collection holding `entries`, written through the batch API 50 at a time with
     * `inFlight` batches under way, and an integration of `type` searching it: the integration's id.
     */
    async integrationOver(name: string, entries: readonly object[], type = 'custom', inFlight = 1): Promise<string> {
      const collection = (await call('POST', '/api/v1/collections', { name })).data.id;
      let next = 0;
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (next < entries.length) {
            const batch = entries.slice(next, (next += 50));
            await call('POST', `/api/v1/collections/${collection}/entries/batch`, { entries: batch });
          }
        }),
      );
      return (await call('POST', '/api/v1/integrations', { type, name, collection_ids: [collection] })).data.id as string;
    },
    async close() {
      await app.close();
      await container.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Creates (or re-creates) the database `name` on the server at `serverUrl` and returns its
 * URL, so a benchmark never writes into a database it did not make.
 */
export async function freshDatabase(serverUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Percentile (nearest rank) of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Milliseconds of each stage a search response's `Server-Timing` header reports ("lexical;dur=2.10, …"). */
export function serverTimings(response: Response): Map<string, number> {
  const header = response.headers.get('server-timing') ?? '';
  return new Map([...header.matchAll(/([\w-]+);dur=([\d.]+)/g)].map(([, stage, dur]) => [stage!, Number(dur)]));
}

/** A free TCP port on loopback (for a child server). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Lore's own server (`src/cli.ts serve`) as a child process, as it runs in production, so
 * that its memory and CPU are its own: PGlite in `dataDir`, or PostgreSQL at `databaseUrl`.
 * Rate limits and the demo are off. Resolves once /readyz answers. With LORE_BENCH_CPU_PROF
 * set to a folder, the server writes its CPU profile (`node --cpu-prof`) there on stop.
 */
export async function serveLore(options: { databaseUrl?: string; dataDir?: string }) {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    // Benches measure a search's whole cost: repeated queries skip the model unless asked.
    LORE_QUERY_CACHE: '0',
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    LORE_DEMO: 'off',
    LORE_RATE_LIMIT: '0',
    LORE_RATE_LIMIT_IP: '0',
    LORE_ANSWER_RATE_LIMIT: '0',
    LORE_LOG_LEVEL: 'silent',
    LORE_MASTER_KEY: MASTER_KEY,
  };
  delete env.DATABASE_URL;
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  if (options.dataDir) env.LORE_DATA_DIR = options.dataDir;
  // LORE_BENCH_CPU_PROF=<folder>: the server writes a V8 CPU profile there when it stops.
  const profile = process.env.LORE_BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.LORE_BENCH_CPU_PROF)}`] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', 'src/cli.ts', 'serve'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  for (let waited = 0; ; waited += 200) {
    if (child.exitCode !== null) throw new Error(`lore serve exited with ${child.exitCode}`);
    if (waited > 120_000) throw new Error('lore serve did not become ready in 120 s');
    const ready = await fetch(`${url}/readyz`).then((r) => r.ok, () => false);
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url,
    pid: child.pid!,
    /** CPU seconds (user + system) the process has used so far. */
    cpuSeconds: () => cpuSeconds(child.pid!),
    /** The process's peak resident memory so far, in bytes (VmHWM). */
    peakRss(): number {
      const line = readFileSync(`/proc/${child.pid}/status`, 'utf8').match(/^VmHWM:\s+(\d+) kB/m);
      return line ? Number(line[1]) * 1024 : NaN;
    },
    async close() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const TICKS = 100; // USER_HZ on Linux

/** CPU seconds (user + system) process `pid` has used; NaN when it is gone or not on Linux. */
function cpuSeconds(pid: number | string): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return NaN;
  }
}

/** The processes named postgres (a local server and its backends), by pid. */
function postgresPids(): string[] {
  return readdirSync('/proc').filter((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('postgres');
    } catch {
      return false; // the process ended between listing and reading
    }
  });
}

/** CPU seconds used so far by the local PostgreSQL server's processes. */
export function postgresCpuSeconds(): number {
  return postgresPids().reduce((total, pid) => total + (cpuSeconds(pid) || 0), 0);
}

/**
 * Samples the summed proportional memory (Pss) of the local PostgreSQL server's processes
 * every `everyMs` until stopped; returns the peak in bytes. Linux only; NaN elsewhere.
 */
export function postgresMemory(everyMs = 250) {
  let peak = NaN;
  const sample = () => {
    let total = 0;
    let found = false;
    for (const pid of postgresPids()) {
      try {
        const pss = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8').match(/^Pss:\s+(\d+) kB/m);
        if (pss) {
          total += Number(pss[1]) * 1024;
          found = true;
        }
      } catch {
        // the process ended between listing and reading
      }
    }
    if (found) peak = Number.isNaN(peak) ? total : Math.max(peak, total);
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop(): number {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

/** The source id of every entry an integration searches, by entry id (rankings come back as entry ids), read once an integration. */
export function entrySourceIds(db: Queryable): (integration: string) => Promise<Map<string, string>> {
  const known = new Map<string, Promise<Map<string, string>>>();
  return (integration) => {
    let ids = known.get(integration);
    if (!ids) {
      ids = db
        .query<{ id: string; source_id: string }>(
          'SELECT e.id, e.source_id FROM entries e JOIN integration_collections ic ON ic.collection_id = e.collection_id WHERE ic.integration_id = $1',
          [integration],
        )
        .then((rows) => new Map(rows.map((r) => [r.id, r.source_id])));
      known.set(integration, ids);
    }
    return ids;
  };
}
