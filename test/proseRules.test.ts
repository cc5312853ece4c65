// The rules bench:answers uses to decide whether an answer reads as prose (bench/proseRules.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { headingsOf, proseFailures } from '../bench/proseRules.js';

const headings = new Set(headingsOf('# Lore\n\n## Pages API: pushing pages from a server with an API key\n\n```sh\n# not a heading\n```\n### Limits'));
const check = (answer: string) => proseFailures(answer, headings);

describe('prose rules of the answers bench', () => {
  it('passes answers that read well: prose, a statement, an introduced code block, a list, a table', () => {
    assert.deepEqual(check('Lore is a search service. It answers from your docs [1].'), []);
    assert.deepEqual(check('`DATABASE_URL`: use a PostgreSQL server instead of PGlite [1].'), []);
    assert.deepEqual(check('Use its API token [2]:\n\n```sh\nexport TOKEN=x | y — —\n```'), []);
    assert.deepEqual(check('To rotate a secret [1]:\n\n1. Open the widget.\n2. Rotate it.'), []);
    assert.deepEqual(check('Defaults [1]:\n\n| Name | Value |\n|---|---|\n| `PORT` | `3000` |'), []);
    assert.deepEqual(check('Lore is fast [1]. `npm start` runs it [2].'), []);
  });

  it('finds each rule broken', () => {
    assert.deepEqual(check('  '), ['empty']);
    assert.deepEqual(check('`DATABASE_URL` — — — use a PostgreSQL server [1]'), ['table-fragment']);
    assert.deepEqual(check('| `PORT` | `3000` | where to listen |'), ['table-fragment']);
    assert.deepEqual(check('/.lore` — PGlite database [1]'), ['mid-token-start']);
    assert.deepEqual(check('Lore measures answers [1] and XQuAD in 12 languages [2].'), ['mid-token-start']);
    assert.deepEqual(check('** The union of the candidates is scored [1].'), ['mid-token-start']);
    assert.deepEqual(check('**Exact scores.** The union is scored [1].'), []);
    assert.deepEqual(check('Export it, and use its API token: [2]'), ['dangling-colon']);
    assert.deepEqual(check('Export it, and use its API token [2]:'), ['dangling-colon']);
    assert.deepEqual(check('Pages API: pushing pages from a server with an API key [1] Create a key with the API token [1].'), ['heading-as-sentence']);
    assert.deepEqual(check('A [1]. B [2]. C [3].'), ['too-many-sources']);
    assert.deepEqual(check('Run this [1]:\n\n```sh\nnpm start'), ['unbalanced-code']);
  });

  it('finds link fragments, raw HTML and MDX syntax outside code, and leaves them alone in code', () => {
    assert.deepEqual(check('See the [proxy options](/config/server-options#server-proxy) [1].'), ['link-fragment']);
    assert.deepEqual(check('See the [proxy options](https://vite.dev/config/server-options#server-proxy) [1].'), []);
    assert.deepEqual(check('See the [proxy options](https://vite.dev/config/server [1].'), ['link-fragment']);
    assert.deepEqual(check('Set `base` as the [public base path] says [1].'), ['mid-token-start', 'link-fragment']);
    assert.ok(!check('The cosine is mapped from [0.15, 0.65] to \\[0, 1] [1].').includes('link-fragment'), 'an interval of numbers is text, not a link');
    assert.deepEqual(check('Enable it [1] #server-proxy for details.'), ['mid-token-start', 'link-fragment']);
    assert.deepEqual(check('The proxy is described there [1].\n#server-proxy'), ['mid-token-start', 'link-fragment']);
    assert.deepEqual(check('If `true`, the client IP is the left-most entry.</td> [1]'), ['html']);
    assert.deepEqual(check('Use&nbsp;`trust proxy` behind a proxy [1].'), ['html']);
    assert.deepEqual(check("import Alert from '@components/Alert.astro'"), ['mid-token-start', 'mdx-syntax']);
    assert.deepEqual(check('<Alert type="warning">Validate the body [1].</Alert>'), ['mdx-syntax']);
    assert.deepEqual(check('The limit is {props.limit} [1].'), ['mdx-syntax']);
    assert.deepEqual(check('Note this [1]:\n\n::: tip'), ['mid-token-start', 'dangling-colon', 'mdx-syntax']);
    assert.deepEqual(check('Vite needs Node.js 20.19+ [1]::. Use a post hook. :::tip Note it [2].'), ['mdx-syntax']);
    assert.deepEqual(check('Use `<Tabs>`, `&nbsp;`, `{a: 1}` and `[x](y)` in code [1, 2].'), []);
    assert.deepEqual(check("Import it [1]:\n\n```js\nimport express from 'express';\n<Param name=\"x\">{y}</Param>\n```"), []);
  });
});
