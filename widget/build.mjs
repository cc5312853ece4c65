// Builds the browser SDK: widget/src/service.ts → widget/dist/v1/service.js (global ServiceSdk)
// and widget/src/analytics.ts → widget/dist/v1/service-analytics.js (global ServiceAnalytics).
// One minified IIFE per script, no chunks, so each loads with a single <script> tag.
// `node widget/build.mjs --sizes` also prints the gzip size of each script.
import { build, transform } from 'esbuild';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));
const target = ['chrome100', 'firefox100', 'safari15.4'];
export const scripts = [
  { entry: 'src/service.ts', out: 'dist/v1/service.js', budget: 30 * 1024 },
  { entry: 'src/analytics.ts', out: 'dist/v1/service-analytics.js', budget: 2 * 1024 },
];

/**
 * The widgets' stylesheets are plain template literals (`export const NAME_CSS = `…`;`, no
 * `${}`), written readable; the CSS minifier shortens them in the bundle (a literal it cannot
 * take, or a CSS warning, fails the build).
 */
const minifyCss = {
  name: 'minify-css',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]ui[\\/][^\\/]+\.ts$/ }, async ({ path }) => {
      let source = await readFile(path, 'utf8');
      for (const m of [...source.matchAll(/^(export const \w+_CSS = )`([^`]*)`;$/gm)].reverse()) {
        if (m[2].includes('${') || m[2].includes('\\')) throw new Error(`${path}: ${m[1]}… must be a plain template literal (no \${} or escapes)`);
        const { code, warnings } = await transform(m[2], { loader: 'css', minify: true, target, charset: 'utf8', logLevel: 'silent' });
        if (warnings.length) throw new Error(`${path}: ${m[1]}…: ${warnings.map((w) => w.text).join('; ')}`);
        source = source.slice(0, m.index) + m[1] + JSON.stringify(code.trim()) + ';' + source.slice(m.index + m[0].length);
      }
      return { contents: source, loader: 'ts' };
    });
  },
};

await Promise.all(scripts.map(({ entry, out }) => build({
  absWorkingDir: root,
  entryPoints: [entry],
  outfile: out,
  bundle: true,
  minify: true,
  format: 'iife',
  target,
  legalComments: 'none',
  charset: 'utf8',
  logLevel: 'warning',
  plugins: [minifyCss],
})));

// Non-English UI strings are fetched per locale (service.js stays small): one JSON file each.
const strings = await build({ absWorkingDir: root, entryPoints: ['src/core/translations.ts'], bundle: true, format: 'esm', write: false, logLevel: 'warning' });
const { TRANSLATIONS } = await import(`data:text/javascript;base64,${Buffer.from(strings.outputFiles[0].text).toString('base64')}`);
mkdirSync(new URL('dist/v1/locales/', import.meta.url), { recursive: true });
for (const [locale, table] of Object.entries(TRANSLATIONS)) {
  writeFileSync(new URL(`dist/v1/locales/${locale}.json`, import.meta.url), JSON.stringify(table));
}

// Pre-compressed copies, served as they are to browsers that accept them (no compression per request).
for (const { out } of scripts) {
  const bytes = readFileSync(new URL(out, import.meta.url));
  writeFileSync(new URL(`${out}.gz`, import.meta.url), gzipSync(bytes, { level: 9 }));
  writeFileSync(new URL(`${out}.br`, import.meta.url), brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
}

if (process.argv.includes('--sizes')) {
  for (const { out, budget } of scripts) {
    const bytes = readFileSync(new URL(out, import.meta.url));
    const gzip = gzipSync(bytes, { level: 9 }).length;
    console.log(`${out.padEnd(30)} ${String(bytes.length).padStart(7)} B  ${String(gzip).padStart(6)} B gzip  (budget ${budget} B) ${gzip <= budget ? 'ok' : 'OVER'}`);
  }
}
