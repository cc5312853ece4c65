import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { markdownSections, slugify } from './sections.js';

describe('markdown sections', () => {
  it('splits at ## headings, keeps the intro under the # title, ignores headings in code fences', () => {
    const doc = ['# Lore', '', 'Intro text.', '', '## Walk-through', 'Step one.', '```sh', '## not a heading', '# nor this', '```', '### Deeper', 'More.', '## Limits', 'Few.', '## Limits', 'Again.', '##    ', ''].join('\n');
    assert.deepEqual(markdownSections(doc), [
      { title: 'Lore', slug: '', text: '# Lore\n\nIntro text.' },
      { title: 'Walk-through', slug: 'walk-through', text: '## Walk-through\nStep one.\n```sh\n## not a heading\n# nor this\n```\n### Deeper\nMore.' },
      { title: 'Limits', slug: 'limits', text: '## Limits\nFew.' },
      { title: 'Limits', slug: 'limits-1', text: '## Limits\nAgain.\n##' },
    ]);
  });

  it('leaves out a blank intro and has no title without a # heading', () => {
    assert.deepEqual(markdownSections('\n\n## One\nText'), [{ title: 'One', slug: 'one', text: '## One\nText' }]);
    assert.deepEqual(markdownSections('Just text'), [{ title: null, slug: '', text: 'Just text' }]);
    assert.equal(markdownSections('## Providers (`LORE_LLM`)\nText')[0]!.title, 'Providers (LORE_LLM)');
  });

  it('makes GitHub-style slugs', () => {
    assert.equal(slugify('Answers: summarise and chat'), 'answers-summarise-and-chat');
    assert.equal(slugify('Pages API: pushing pages from a server with an API key'), 'pages-api-pushing-pages-from-a-server-with-an-api-key');
    assert.equal(slugify('The `lore` CLI & [links](x)'), 'the-lore-cli--links');
    assert.equal(slugify('Providers (`LORE_LLM`)'), 'providers-lore_llm');
    assert.equal(slugify('_Emphasis_ and __strong__'), 'emphasis-and-strong');
  });
});
