// Builds the InstantSearch adapter: src/index.ts → dist/lore-instantsearch.js, one ESM file
// with no imports (the adapter has no runtime dependencies), readable rather than minified:
// the page's own bundler minifies it with the rest of the site.
// `node adapters/instantsearch/build.mjs --sizes` also prints its gzip size.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('.', import.meta.url));
const out = 'dist/lore-instantsearch.js';

await build({
  absWorkingDir: root,
  entryPoints: ['src/index.ts'],
  outfile: out,
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: ['es2020'],
  legalComments: 'none',
  charset: 'utf8',
  logLevel: 'warning',
});

if (process.argv.includes('--sizes')) {
  const bytes = readFileSync(new URL(out, import.meta.url));
  console.log(`${out.padEnd(30)} ${String(bytes.length).padStart(7)} B  ${String(gzipSync(bytes, { level: 9 }).length).padStart(6)} B gzip`);
}
