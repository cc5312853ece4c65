import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { plainText, snippet } from './snippet.js';
import { analyze } from '../ingestion/text/tokenize.js';

const terms = (query: string) => analyze(query, 'en').terms;

/** Markdown as Lore's docs write it (README.md, docs/ANSWERS.md). */
const DOC = [
  '## Tests',
  '',
  'Run **`npm test`** before a pull request; _every_ suite runs on [PGlite](https://pglite.dev) and, with',
  '`LORE_TEST_DATABASE_URL`, on *PostgreSQL* too:',
  '',
  '```sh',
  'npm test          # the whole suite',
  '```',
  '',
  '| Variable | Default | Meaning |',
  '|---|:---:|---|',
  '| `PORT` | `3000` | where to listen |',
  '| `LORE_DATA_DIR` | `./.lore` | the PGlite database |',
  '',
  '> Note: ![diagram](arch.png) the <abbr title="x">API</abbr> answers <b>JSON</b>.',
  '- a list item',
  '1. a step',
].join('\n');

describe('plain text of Markdown', () => {
  it('keeps the words of code, tables, links and emphasis, and drops their syntax', () => {
    assert.equal(
      plainText(DOC),
      [
        ' Tests',
        '',
        'Run npm test before a pull request; every suite runs on PGlite and, with',
        'LORE_TEST_DATABASE_URL, on PostgreSQL too:',
        '',
        'npm test          # the whole suite',
        '',
        'Variable · Default · Meaning',
        'PORT · 3000 · where to listen',
        'LORE_DATA_DIR · ./.lore · the PGlite database',
        '',
        'Note: diagram the API answers JSON.',
        'a list item',
        'a step',
      ].join('\n'),
    );
  });

  it('leaves text that is not Markdown as it was: snake_case, a < b, escaped characters', () => {
    assert.equal(plainText('snake_case_name and a < b > c, \\*not emphasis\\*, ~~~ inline, 3 | 4'), 'snake_case_name and a < b > c, *not emphasis*, ~~~ inline, 3 | 4');
    assert.equal(plainText('~~~ts title="x"\nconst a = `b`;\n~~~\nafter'), 'const a = `b`;\nafter');
  });
});

describe('snippets', () => {
  it('are plain text with <mark> only, HTML-escaped (regression: backticks, fences and pipes in the demo)', () => {
    const test = snippet(DOC, terms('npm test'), 'en');
    assert.equal(
      test,
      '<mark>Tests</mark> Run <mark>npm</mark> <mark>test</mark> before a pull request; every suite runs on PGlite and, with <mark>LORE_TEST_DATABASE_URL</mark>, on PostgreSQL too: ' +
        '<mark>npm</mark> <mark>test</mark> # the whole suite Variable · Default · Meaning PORT · 3000 · where to listen LORE_DATA_DIR ·…',
    );
    for (const query of ['npm test', 'PORT default', 'API JSON', 'LORE_DATA_DIR']) {
      const shown = snippet(DOC, terms(query), 'en');
      assert.match(shown, /<mark>/, query);
      assert.doesNotMatch(shown.replace(/<\/?mark>/g, ''), /[`|<>*]|```|---|\]\(|^#/, `${query}: ${shown}`);
    }
    assert.equal(snippet('Use <script>alert("x")</script> & `a<b`', terms('use')), '<mark>Use</mark> alert(&#34;x&#34;) &#38; a&#60;b');
  });
});
