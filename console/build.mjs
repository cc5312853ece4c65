// Builds the console: console/src/main.tsx → console/dist/console.js (one minified IIFE, with
// Preact and uPlot) and console/src/console.css (with uPlot's) → console/dist/console.css.
// The gzip size of each is held to a budget: the build fails over it. `--sizes` prints them.
// The script's budget holds the widget's markdown renderer (streaming-markdown and DOMPurify,
// about 15 KiB), which renders answers and transcripts as the widgets show them.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = fileURLToPath(new URL('.', import.meta.url));
const target = ['chrome100', 'firefox100', 'safari15.4'];
export const files = [
  { entry: 'src/main.tsx', out: 'dist/console.js', budget: 60 * 1024 },
  { entry: 'src/console.css', out: 'dist/console.css', budget: 6 * 1024 },
];

await Promise.all(files.map(({ entry, out }) => build({
  absWorkingDir: root,
  entryPoints: [entry],
  outfile: out,
  bundle: true,
  minify: true,
  format: entry.endsWith('.css') ? undefined : 'iife',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  target,
  legalComments: 'none',
  charset: 'utf8',
  logLevel: 'warning',
})));

for (const { out, budget } of files) {
  const size = gzipSync(readFileSync(new URL(out, import.meta.url)), { level: 9 }).length;
  if (process.argv.includes('--sizes')) console.log(`console/${out}: ${(size / 1024).toFixed(1)} KiB gzip (budget ${budget / 1024} KiB)`);
  if (size > budget) throw new Error(`console/${out} is ${size} bytes gzip, over its budget of ${budget}`);
}
