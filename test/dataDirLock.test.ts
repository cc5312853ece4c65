/**
 * One Lore process per PGlite data folder: a second one fails fast with a clear message
 * instead of starting on a copy that diverges; a lock left by a process that is gone is taken
 * over.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { DataDirLockedError } from '../src/storage/dataDirLock.js';
import { openPglite } from '../src/storage/pglite.js';
import { runLoreCli } from './processes.js';

describe('PGlite data folder lock', () => {
  const dirs: string[] = [];
  const folder = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lore-lock-'));
    dirs.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a second opening while the first holds the folder, and frees it on close', async () => {
    const dir = folder();
    const first = await openPglite(dir);
    const lock = JSON.parse(readFileSync(path.join(dir, 'lore.lock'), 'utf8'));
    assert.equal(lock.pid, process.pid);
    await assert.rejects(openPglite(dir), (error: unknown) => error instanceof DataDirLockedError && error.message.includes(`pid ${process.pid}`));
    await first.query('SELECT 1');
    await first.close();
    assert.equal(existsSync(path.join(dir, 'lore.lock')), false);
    const again = await openPglite(dir);
    await again.close();
  });

  it('takes over a stale lock whose process is gone, and refuses one held from another host', async () => {
    const dir = folder();
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(path.join(dir, 'lore.lock'), JSON.stringify({ pid: gone, host: (await import('node:os')).hostname() }));
    const db = await openPglite(dir);
    assert.equal(JSON.parse(readFileSync(path.join(dir, 'lore.lock'), 'utf8')).pid, process.pid);
    await db.close();

    writeFileSync(path.join(dir, 'lore.lock'), JSON.stringify({ pid: gone, host: 'another-host' }));
    await assert.rejects(openPglite(dir), /pid \d+ on another-host/);
  });

  it('makes `lore serve` on a folder in use exit 1 with the reason, not start', async () => {
    const dir = folder();
    const holder = await openPglite(dir);
    try {
      const env = { ...process.env, LORE_DATA_DIR: dir, LORE_DEMO: 'off', PORT: '0', LORE_MASTER_KEY: 'k'.repeat(32), DATABASE_URL: '' };
      const result = await runLoreCli(['serve'], env, 60_000);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /Another Lore process \(pid \d+ on .+\) is using the embedded database/);
      assert.match(result.stderr, /DATABASE_URL/);
    } finally {
      await holder.close();
    }
  });
});
