#!/usr/bin/env node
// Builds Lore (browser SDK, console, server) when a source changed since the last successful
// build, so `npm start` does not spend half a minute in tsc on every start.
//
//   node scripts/build-if-stale.mjs            build only when stale (npm start's prestart)
//   node scripts/build-if-stale.mjs --force    build (npm run build)
//
// "Stale" compares a SHA-256 of the build's inputs (INPUTS below: paths and contents, tests
// left out) with the one in dist/.build-stamp, which only a build that finished writes: the
// stamp is removed before building, so a failed or interrupted build rebuilds next time.
// A missing output (OUTPUTS) also rebuilds. Prints one line saying which it did.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STAMP = path.join(ROOT, 'dist', '.build-stamp');

/** Files and folders whose content the build output depends on. */
const INPUTS = [
  'src',
  'widget/src', 'widget/build.mjs', 'widget/tsconfig.json',
  'console/src', 'console/build.mjs', 'console/tsconfig.json',
  'adapters/instantsearch/src', 'adapters/instantsearch/build.mjs',
  'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json',
  'scripts/build-if-stale.mjs',
];

/** What a build writes; one missing means a rebuild, whatever the stamp says. */
const OUTPUTS = ['dist/cli.js', 'dist/storage/migrations', 'widget/dist/v1/service.js', 'console/dist/console.js', 'adapters/instantsearch/dist/lore-instantsearch.js'];

/** Test files are not part of the build (tsconfig.build.json leaves them out). */
const isTest = (file) => /\.test\.tsx?$/.test(file);

/** The inputs' files, relative to the root, sorted. */
function inputFiles() {
  const files = [];
  const walk = (rel) => {
    const abs = path.join(ROOT, rel);
    if (!existsSync(abs)) return;
    if (statSync(abs).isDirectory()) {
      for (const name of readdirSync(abs)) walk(path.posix.join(rel, name));
    } else if (!isTest(rel)) {
      files.push(rel);
    }
  };
  for (const input of INPUTS) walk(input);
  return files.sort();
}

/** SHA-256 over every input's path and content. */
function inputsHash() {
  const hash = createHash('sha256');
  for (const file of inputFiles()) {
    const content = readFileSync(path.join(ROOT, file));
    hash.update(`${file}\0${content.length}\0`).update(content);
  }
  return hash.digest('hex');
}

/** The last successful build's stamp, or null. */
function readStamp() {
  try {
    const stamp = JSON.parse(readFileSync(STAMP, 'utf8'));
    return typeof stamp.hash === 'string' && typeof stamp.builtAt === 'string' ? stamp : null;
  } catch {
    return null;
  }
}

/** Runs a Node script of the build, stopping the build (exit code passed on) when it fails. */
function run(script, args = []) {
  const result = spawnSync(process.execPath, [path.join(ROOT, script), ...args], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write(`Build failed: ${script} ${args.join(' ')} exited with ${result.status ?? result.signal}.\n`);
    process.exit(result.status || 1);
  }
}

function build(hash) {
  rmSync(STAMP, { force: true });
  run('widget/build.mjs');
  run('console/build.mjs');
  // The InstantSearch adapter, served at /widget/v1/lore-instantsearch.js (routes/widgetScripts.ts).
  run('adapters/instantsearch/build.mjs');
  run('node_modules/typescript/bin/tsc', ['-p', 'tsconfig.build.json']);
  // package.json's `bin`: tsc writes it without the execute bit, and `npx lore` runs it directly.
  // npm sets the bit only when it installs the package, which a cached npx install of this
  // folder (a re-clone at the same path) never does again: "lore: Permission denied".
  chmodSync(path.join(ROOT, 'dist/cli.js'), 0o755);
  // The SQL migrations are read at run time beside the compiled migrate.js.
  rmSync(path.join(ROOT, 'dist/storage/migrations'), { recursive: true, force: true });
  cpSync(path.join(ROOT, 'src/storage/migrations'), path.join(ROOT, 'dist/storage/migrations'), { recursive: true });
  mkdirSync(path.dirname(STAMP), { recursive: true });
  writeFileSync(STAMP, `${JSON.stringify({ hash, builtAt: new Date().toISOString() })}\n`);
}

/** `2026-05-04 13:02` in the machine's time zone. */
function localTime(date) {
  const two = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}`;
}

const args = process.argv.slice(2);
if (args.some((arg) => arg !== '--force')) {
  process.stderr.write(`Unknown argument: ${args.find((arg) => arg !== '--force')} (usage: node scripts/build-if-stale.mjs [--force]).\n`);
  process.exit(2);
}
const hash = inputsHash();
const stamp = readStamp();
const missing = OUTPUTS.filter((output) => !existsSync(path.join(ROOT, output)));
if (args.length === 0 && stamp?.hash === hash && missing.length === 0) {
  console.log(`Lore is built (no source changed since ${localTime(new Date(stamp.builtAt))}).`);
} else {
  const why = args.length > 0 ? '' : stamp === null ? ' (no finished build yet)' : missing.length > 0 ? ` (missing ${missing[0]})` : ' (sources changed since the last build)';
  console.log(`Building Lore${why}…`);
  build(hash);
}
