import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { anchorsOf, KEEP_UNDER, markdownAnchors, markdownSections, sectionParts, sectionTitle, sectionUrl, slugify, SPLIT_OVER } from './sections.js';

describe('markdown sections', () => {
  it('splits at ## headings, keeps the intro under the # title, ignores headings in code fences', () => {
    const doc = ['# Lore', '', 'Intro text.', '', '## Walk-through', 'Step one.', '```sh', '## not a heading', '# nor this', '```', '### Deeper', 'More.', '## Limits', 'Few.', '## Limits', 'Again.', '##    ', ''].join('\n');
    assert.deepEqual(markdownSections(doc), [
      { title: 'Lore', path: [], slug: '', text: '# Lore\n\nIntro text.' },
      { title: 'Walk-through', path: ['Walk-through'], slug: 'walk-through', text: '## Walk-through\nStep one.\n```sh\n## not a heading\n# nor this\n```\n### Deeper\nMore.' },
      { title: 'Limits', path: ['Limits'], slug: 'limits', text: '## Limits\nFew.' },
      { title: 'Limits', path: ['Limits'], slug: 'limits-1', text: '## Limits\nAgain.\n##' },
    ]);
  });

  it('leaves out a blank intro and has no title without a # heading', () => {
    assert.deepEqual(markdownSections('\n\n## One\nText'), [{ title: 'One', path: ['One'], slug: 'one', text: '## One\nText' }]);
    assert.deepEqual(markdownSections('Just text'), [{ title: null, path: [], slug: '', text: 'Just text' }]);
    assert.equal(markdownSections('## Providers (`LORE_LLM`)\nText')[0]!.title, 'Providers (LORE_LLM)');
  });

  it('splits a long section at its ### (then ####) sub-headings, keeping short ones and code fences with their parent', () => {
    const para = (words: number) => 'word '.repeat(words).trim();
    const big = para(SPLIT_OVER / 5 / 3); // a third of the limit: three of them make a long section
    const doc = [
      '# Config', 'Intro.',
      '## Server options {#server}', 'About the server.',
      '### server.host', big,
      '### server.port', 'Short.',
      '### server.proxy', big, '```md', '## not a heading', '### nor this', big, '```',
      '#### Rewrite', big, '#### Bypass', big,
      '## Build', 'Small.', '### Not split', 'Short too.',
    ].join('\n');
    const sections = markdownSections(doc);
    assert.deepEqual(sections.map((s) => [s.slug, s.path.join(' > ')]), [
      ['', ''],
      ['server', 'Server options'],
      ['serverhost', 'Server options > server.host'],
      ['serverproxy', 'Server options > server.proxy'],
      ['rewrite', 'Server options > server.proxy > Rewrite'],
      ['bypass', 'Server options > server.proxy > Bypass'],
      ['build', 'Build'],
    ]);
    assert.equal(sections[1]!.text, '## Server options {#server}\nAbout the server.\n### server.port\nShort.', 'a sub-section under KEEP_UNDER stays with its parent');
    assert.ok(sections[3]!.text.includes('## not a heading\n### nor this'), 'a code fence stays whole, its headings text');
    assert.ok(!sections[3]!.text.includes('#### Rewrite'));
    assert.equal(sections[6]!.text, '## Build\nSmall.\n### Not split\nShort too.', 'a section under SPLIT_OVER is one');
    assert.ok(sections.every((s) => s.text.length <= SPLIT_OVER || !/^#{3,}/m.test(s.text.slice(1))));
    assert.ok(KEEP_UNDER < SPLIT_OVER);
  });

  it('takes ## as the top level of a page without a # title, and splits its long ## at ###', () => {
    const long = 'x '.repeat(SPLIT_OVER / 2);
    const sections = markdownSections(['## Getting started', 'Intro.', '### Install', long, '### Usage', long].join('\n'));
    assert.deepEqual(sections.map((s) => [s.title, s.slug, s.path]), [
      ['Getting started', 'getting-started', ['Getting started']],
      ['Install', 'install', ['Getting started', 'Install']],
      ['Usage', 'usage', ['Getting started', 'Usage']],
    ]);
    assert.deepEqual(markdownSections('# Page\n### Skipped a level\nText.').map((s) => s.slug), ['', 'skipped-a-level'], 'the top level present is the section level');
  });

  it('titles a section by its heading path under the page, short enough to show', () => {
    assert.equal(sectionTitle(['server.proxy']), 'server.proxy', 'a top section by its heading, as before');
    assert.equal(sectionTitle(['Server options', 'server.proxy']), 'Server options › server.proxy');
    assert.equal(sectionTitle(['Getting started', 'getting started', 'Install']), 'Getting started › Install', 'a heading repeating its parent');
    const long = sectionTitle(['A rather long section heading about configuration', 'Options of the dev server', 'server.proxy']);
    assert.equal(long, 'Options of the dev server › server.proxy', 'the outer headings go first');
    assert.equal(sectionTitle(['P', 'x'.repeat(200)]), 'x'.repeat(200), 'the section\'s own heading is kept whole');
  });

  it('names, titles and links sections as entries: at the page\'s own ids where it has them, else at their slugs', () => {
    const long = 'x '.repeat(SPLIT_OVER / 2);
    const doc = { title: 'Setup', text: ['# Setup', 'Intro.', '## Install', 'A.', '## Über uns', 'B.', '## Config', '### Server', long, '### Storage', long, '## Install', 'C.', '## No id', 'D.'].join('\n') };
    const anchors = { setup: 'top', install: 'sec-install', 'über-uns': 'über uns', config: 'sec-config', server: 'sec-server', 'no-id-elsewhere': 'x' };
    assert.deepEqual(sectionParts(doc, anchors).map(({ fragment, link, title }) => [fragment, link, title]), [
      ['', '', 'Setup'],
      ['#install', '#sec-install', 'Install'],
      ['#über-uns', '#%C3%BCber%20uns', 'Über uns'],
      ['#config', '#sec-config', 'Config'],
      ['#server', '#sec-server', 'Config › Server'],
      ['#storage', '#storage', 'Config › Storage'],
      ['#install-1', '#install-1', 'Install'],
      ['#no-id', '#no-id', 'No id'],
    ], 'a repeated heading is linked at its slug: anchors hold the id of the first');
    assert.deepEqual(sectionParts(doc, anchors).map((p) => p.anchors), [{ setup: 'top' }, null, { 'über-uns': 'über uns' }, { config: 'sec-config' }, { server: 'sec-server' }, null, null, null], 'the ids of its headings the page has once');
    const nested = sectionParts({ title: 'P', text: '# P\n## Routes\nA.\n### Wildcards\nB.\n### Example\nC.\n## Other\n### Example\nD.' });
    assert.deepEqual(nested[1]!.anchors, { routes: 'routes', wildcards: 'wildcards' }, 'sub-headings too; a heading the page repeats (Example) has no known id');
    assert.deepEqual(sectionParts(doc).map((p) => p.link), sectionParts(doc).map((p) => p.fragment), 'without anchors, at the slug');
    assert.deepEqual(sectionParts({ title: null, text: 'Text.\n## A\nB.' }).map((p) => p.title), [null, 'A'], 'no title before the first section without one');
    assert.deepEqual(nested.map((p) => p.pageTitle), [null, 'P', 'P'], "a section names its document's title; the text before the first is titled by it");
    assert.equal(sectionParts({ title: 'Front matter title', text: '# Heading\nText.' })[0]!.title, 'Front matter title');
  });

  it('reads a backslash-escaped character in a heading as itself, as turndown writes a web page\'s headings', () => {
    const [section] = markdownSections('## LORE\\_LLM \\[beta\\] \\*not emphasis\\*\nText.');
    assert.deepEqual([section!.title, section!.slug], ['LORE_LLM [beta] *not emphasis*', 'lore_llm-beta-not-emphasis']);
    assert.deepEqual(anchorsOf([{ text: 'LORE_LLM [beta] *not emphasis*', id: 'llm' }]), { 'lore_llm-beta-not-emphasis': 'llm' }, "the key the page's id is found by");
    assert.equal(markdownSections('## 1\\. Install\nText.')[0]!.title, '1. Install');
  });

  it('reads a heading as its reader sees it: components and tags go, markup named in code stays', () => {
    const titles = markdownSections(['## optimizeDeps.include <NonInheritBadge />', 'A.', '## Target Change [<Badge text="NRV" type="warning" />](#migration)', 'B.', '## The <code>base</code> option <sup>new</sup>', 'C.', '## Aliases (`Record<string, string>`)', 'D.', '## Use \\<Badge\\>', 'E.', '## The <script> element', 'F.'].join('\n'))
      .map((s) => [s.title, s.slug]);
    assert.deepEqual(titles, [
      ['optimizeDeps.include', 'optimizedepsinclude'],
      ['Target Change', 'target-change'],
      ['The base option new', 'the-base-option-new'],
      ['Aliases (Record<string, string>)', 'aliases-recordstring-string'],
      ['Use <Badge>', 'use-badge'],
      ['The <script> element', 'the-script-element'],
    ]);
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
    assert.equal(sectionUrl('https://x.test/install#top', anchors, ['On Linux']), 'https://x.test/install#on-linux', 'a section entry: the heading the words stand under, in place of its fragment');
    assert.equal(sectionUrl('https://x.test/install#top', anchors, ['Nowhere']), 'https://x.test/install#top');
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
