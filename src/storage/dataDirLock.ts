/**
 * One process per PGlite data folder. PGlite is an embedded database: two processes opening
 * the same folder each keep their own copy in memory and overwrite each other's files, so an
 * acknowledged write can be lost. The folder's `lore.lock` holds the owner's pid and host;
 * a lock whose process is gone (a crash, kill -9) is stale and taken over.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';

export class DataDirLockedError extends Error {
  constructor(
    readonly lockFile: string,
    readonly holder: { pid: number; host: string },
  ) {
    super(
      `Another Lore process (pid ${holder.pid} on ${holder.host}) is using the embedded database in ${path.dirname(lockFile)}. ` +
        'PGlite serves one process: stop the other one, or set DATABASE_URL to a PostgreSQL server to run several. ' +
        `If no such process runs, delete ${lockFile}.`,
    );
  }
}

/** Takes the folder's lock; returns its release. Throws DataDirLockedError while a live process holds it. */
export function lockDataDir(dataDir: string): () => void {
  const file = path.join(dataDir, 'lore.lock');
  const me = { pid: process.pid, host: hostname() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${JSON.stringify({ ...me, since: new Date().toISOString() })}\n`);
      closeSync(fd);
      return () => release(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readHolder(file);
    // Another host's pid cannot be checked here: a shared folder is refused outright.
    if (holder && (holder.host !== me.host || alive(holder.pid))) throw new DataDirLockedError(file, holder);
    // Stale (its process is gone) or unreadable (a crash while writing it): take it over.
    try {
      unlinkSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  const holder = readHolder(file) ?? { pid: 0, host: 'unknown' };
  throw new DataDirLockedError(file, holder);
}

function release(file: string): void {
  // Only our own lock: a stale-lock takeover by another process must not be undone.
  if (readHolder(file)?.pid !== process.pid) return;
  try {
    unlinkSync(file);
  } catch {
    // Already gone.
  }
}

function readHolder(file: string): { pid: number; host: string } | null {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { pid?: unknown; host?: unknown };
    return typeof parsed.pid === 'number' && typeof parsed.host === 'string' ? { pid: parsed.pid, host: parsed.host } : null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
