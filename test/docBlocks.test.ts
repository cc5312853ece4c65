import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { jsonValues, placeholders, problems, shellBlocks, steps } from './docBlocks.js';

test('shell blocks are found with their lines, and a doc-test comment skips the next one', () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'lore-docblocks-')), 'README.md');
  writeFileSync(file, ['# T', '', '```sh', 'echo one', '```', '', '<!-- doc-test: skip — needs the network -->', '```sh', 'curl https://x', '```', '', '- a list', '', '  ```bash', '  echo two', '  ```', '', '```js', 'no()', '```', ''].join('\n'));
  const blocks = shellBlocks(file);
  assert.deepEqual(blocks.map((b) => [b.line, b.text, b.skip]), [[3, 'echo one', undefined], [8, 'curl https://x', 'needs the network'], [14, 'echo two', undefined]]);
});

test('a block splits into steps at its # → lines, continuation lines joined', () => {
  const block = { file: 'R', line: 10, text: 'A=1\ncurl a\n# → {"x": 1,\n#    "y": 2}\ncurl b\n# a comment\n' };
  assert.deepEqual(steps(block), [
    { line: 11, commands: 'A=1\ncurl a', expected: '{"x": 1, "y": 2}' },
    { line: 15, commands: 'curl b\n# a comment\n' },
  ]);
});

test('JSON printed back to back, and SSE data lines, are read', () => {
  assert.deepEqual(jsonValues('{"a":1}{"b":"}{"}\ndata: {"type":"x"}\ndata: [DONE]\n[1, 2]'), [{ a: 1 }, { b: '}{' }, { type: 'x' }, [1, 2]]);
});

test('problems: error bodies, missing keys and values, empty lists where the README shows hits', () => {
  assert.deepEqual(problems('{"data":[{"title":"A"}],"total":1}', '{"data": [{"title": "A", …}], "total": 1}'), []);
  assert.match(problems('{"message":"Unauthenticated."}', undefined)[0]!, /error body/);
  assert.match(problems('{"message":"The given data was invalid.","errors":{"name":["required"]}}', undefined)[0]!, /error body/);
  assert.match(problems('data: {"type":"error","message":"boom"}', undefined)[0]!, /error body/);
  assert.deepEqual(problems('{"conversation_id":"c","message":"hi"}', undefined), []);
  assert.deepEqual(problems('{"data":[]}', '{"data": [{…entry…}]}'), ['"data" is empty where the README shows a hit']);
  assert.deepEqual(problems('{"data":{"title":"B"}}', '{"data": {"title": "A"}}'), ['no "title": "A" where the README shows one']);
  assert.deepEqual(problems('{"data":{}}', '{"data": {"status": "…"}}'), ['no "status" where the README shows one']);
  assert.deepEqual(problems('', '{"data": 1}'), ['no JSON where the README shows {"data": 1}']);
});

test('placeholders left for the reader are found outside comments', () => {
  assert.deepEqual(placeholders('export K=lore_…   # as printed\n# → {"a": "…"}\ncurl x   # the id …'), ['export K=lore_…']);
});
