import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { passageBlocks } from './passageBlocks.js';

describe('passageBlocks', () => {
  it('reads headings, paragraphs of sentences, nested lists, tables and code in order', () => {
    const markdown = [
      '## Install',
      '',
      'Run the installer',
      'from the menu [3]. Then restart.',
      '',
      '- Fast',
      '  - really',
      '- Private',
      '',
      '| Name | Value |',
      '|---|:-:|',
      '| `PORT` | `3000` |',
      '',
      '```sh',
      'echo a[1]',
      '```',
      '',
      '> Quoted here.',
    ].join('\n');
    assert.deepEqual(passageBlocks(markdown, 'en'), [
      { kind: 'heading', text: 'Install', depth: 2 },
      { kind: 'prose', sentences: ['Run the installer from the menu.', 'Then restart.'], fragment: false },
      { kind: 'list', ordered: false, start: 1, items: [{ text: 'Fast', depth: 0 }, { text: 'really', depth: 1 }, { text: 'Private', depth: 0 }] },
      { kind: 'table', header: ['Name', 'Value'], rows: [['`PORT`', '`3000`']] },
      { kind: 'code', lang: 'sh', text: 'echo a[1]' },
      { kind: 'prose', sentences: ['Quoted here.'], fragment: false },
    ]);
  });

  it('reads rows whose header a chunk boundary cut off as a table, and a bold line as a heading', () => {
    assert.deepEqual(passageBlocks('| `A` | one |\n| `B` | two |\n\n**Options**\n\nText.', 'en'), [
      { kind: 'table', header: [], rows: [['`A`', 'one'], ['`B`', 'two']] },
      { kind: 'heading', text: 'Options', depth: 6 },
      { kind: 'prose', sentences: ['Text.'], fragment: false },
    ]);
  });

  it('marks a first paragraph that starts mid-sentence (a chunk cut it) as a fragment', () => {
    assert.equal((passageBlocks('and XQuAD are measured. Then more.', 'en')[0] as { fragment: boolean }).fragment, true);
    assert.equal((passageBlocks('`npm start` runs it.', 'en')[0] as { fragment: boolean }).fragment, false);
    assert.equal((passageBlocks('/.lore` is the folder.', 'en')[0] as { fragment: boolean }).fragment, true);
  });

  it('never throws on malformed Markdown', () => {
    for (const text of ['```', '| a |', '|---|', '- ', '<div>', '[x]: y', '> ', '***', '\u0000']) assert.doesNotThrow(() => passageBlocks(text, 'en'));
  });
});
