// Gzip sizes of the browser scripts against their budgets (the same as widget/build.mjs's):
// the numbers are printed on every run; the test fails only when a script is over budget.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const DIST = fileURLToPath(new URL('../../widget/dist/v1/', import.meta.url));
const BUDGETS = [
  { file: 'service.js', budget: 30 * 1024 },
  { file: 'service-analytics.js', budget: 2 * 1024 },
];

describe('browser scripts: gzip size budgets', () => {
  for (const { file, budget } of BUDGETS) {
    const path = `${DIST}${file}`;
    it(`${file} ≤ ${budget} B gzip`, { skip: existsSync(path) ? false : `${path} is not built: run node widget/build.mjs` }, (t) => {
      const bytes = readFileSync(path);
      const gzip = gzipSync(bytes, { level: 9 }).length;
      t.diagnostic(`${file}: ${bytes.length} B, ${gzip} B gzip (level 9), budget ${budget} B: ${gzip <= budget ? 'ok' : `OVER by ${gzip - budget} B`}`);
      assert.ok(gzip <= budget, `${file} is ${gzip} B gzip, over its ${budget} B budget`);
    });
  }
});
