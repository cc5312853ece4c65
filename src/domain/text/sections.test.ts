import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { anchorsOf, markdownAnchors, markdownSections, sectionUrl, slugify } from './sections.js';

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

  it("links a passage to its section: the deepest heading of its trail the page has an id for", () => {
    const anchors = markdownAnchors('# Install `acme`\n\n## On Linux\n\n### Old kernels\n\n## On Linux\n\n## Upgrade {#upgrading}\n\n```\n# code\n```')!;
    assert.deepEqual(anchors, { 'install-acme': 'install-acme', 'on-linux': 'on-linux', 'old-kernels': 'old-kernels', 'upgrade-upgrading': 'upgrading' });
    assert.equal(sectionUrl('https://x.test/install', anchors, ['Install `acme`', 'On Linux', 'Old kernels']), 'https://x.test/install#old-kernels');
    assert.equal(sectionUrl('https://x.test/install', { 'on-linux': 'linux' }, ['Install', 'On Linux', 'Unknown']), 'https://x.test/install#linux');
    assert.equal(sectionUrl('https://x.test/install', anchors, ['Nowhere']), 'https://x.test/install');
    assert.equal(sectionUrl('https://x.test/install#top', anchors, ['On Linux']), 'https://x.test/install#top', 'a link to a section already');
    assert.equal(sectionUrl('https://x.test/install', undefined, ['On Linux']), 'https://x.test/install');
    assert.equal(sectionUrl('https://x.test/install', ['on-linux'], ['On Linux']), 'https://x.test/install', 'meta.anchors not an object');
    assert.equal(sectionUrl('https://x.test/a', { 'über-uns': 'über uns' }, ['Über uns']), 'https://x.test/a#%C3%BCber%20uns');
  });

  it('keeps the anchors of a page within 8 KiB of meta', () => {
    const many = anchorsOf(Array.from({ length: 2_000 }, (_, i) => ({ text: `Section number ${i}`, id: `section-number-${i}` })))!;
    assert.ok(Buffer.byteLength(JSON.stringify(many)) <= 8 * 1024);
    assert.equal(many['section-number-0'], 'section-number-0');
    assert.equal(anchorsOf([{ text: 'No id', id: '' }]), null);
    assert.deepEqual(anchorsOf([{ text: 'Constructor', id: 'ctor' }]), { constructor: 'ctor' }, 'a heading named like an Object.prototype key');
  });
});
