import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeEntities, inlineText, linkTexts, markdownStructure } from './markdownInline.js';

const VITE = 'https://vite.dev/config/server-options#server-host';

describe('inlineText', () => {
  it('resolves relative links against the page, drops .md, and keeps absolute ones', () => {
    assert.equal(
      inlineText('add it to [`optimizeDeps.include`](/config/dep-optimization-options.md#optimizedeps-include) in your config', VITE),
      'add it to [`optimizeDeps.include`](https://vite.dev/config/dep-optimization-options#optimizedeps-include) in your config',
    );
    assert.equal(inlineText('If [proxy](./server-options#server-proxy) is setup', VITE), 'If [proxy](https://vite.dev/config/server-options#server-proxy) is setup');
    assert.equal(inlineText('see [below](#server-hmr)', VITE), 'see [below](https://vite.dev/config/server-options#server-hmr)');
    assert.equal(inlineText('the [guide](/guide/index.md)', VITE), 'the [guide](https://vite.dev/guide/)');
    assert.equal(inlineText('internal [connect](https://github.com/senchalabs/connect) app'), 'internal [connect](https://github.com/senchalabs/connect) app');
  });

  it('shows a relative link as its text without a page, or when it cannot be resolved', () => {
    assert.equal(inlineText('your [environment directory](/config/shared-options.md#envdir)'), 'your environment directory');
    assert.equal(inlineText('the [guide]({{ page.lang }}/guide/routing.html)', VITE), 'the guide');
    assert.equal(inlineText('mail [us](mailto:a@b.c)', VITE), 'mail us');
  });

  it("drops the target of a link whose '[' the author left out, never one in code or in a whole link", () => {
    assert.equal(inlineText('Express 5.x](/api) needs Node.js 18'), 'Express 5.x needs Node.js 18');
    assert.equal(inlineText('see `a](b)` and [the API](https://expressjs.com/api)'), 'see `a](b)` and [the API](https://expressjs.com/api)');
  });

  it('reads reference links as text, autolinks as their URL, and drops images', () => {
    assert.equal(inlineText('See [the guide][guide] and <https://example.com/x>.'), 'See the guide and https://example.com/x.');
    assert.equal(inlineText('![Vite logo](/logo.svg)Vite is fast [![badge](https://x.y/b.svg)](https://x.y)'), 'Vite is fast ');
  });

  it('drops HTML and JSX tags but keeps their text, and decodes entities', () => {
    assert.equal(inlineText('<a id="fst_err_ctp_body_too_large"></a>Body too large'), 'Body too large');
    assert.equal(inlineText('one<br>two <span class="x">three</span> <Badge type="info" text="experimental" />'), 'one two three ');
    assert.equal(inlineText('Express apps&mdash;like any other web apps&mdash;can be vulnerable'), 'Express apps—like any other web apps—can be vulnerable');
    assert.equal(inlineText('a &lt;div&gt; element &amp; more'), 'a `<div>` element & more');
  });

  it('never alters code spans', () => {
    const text = 'use `<a href="[x](./y.md)">&mdash;</a>` as is';
    assert.equal(inlineText(text, VITE), text);
    assert.equal(inlineText('[`res.send()`](#ressendbody) sends', 'https://expressjs.com/en/api/response/'), '[`res.send()`](https://expressjs.com/en/api/response/#ressendbody) sends');
  });
});

describe('markdownStructure', () => {
  it('turns VitePress containers and GitHub alerts into labels on their text', () => {
    const md = ['::: tip Compatibility Note', 'Vite requires Node.js 20.19+.', ':::', '', '::: warning', '', 'Do not.', '', ':::', '', '> [!NOTE]', '> Some note.'].join('\n');
    assert.equal(markdownStructure(md), ['', 'Compatibility Note: Vite requires Node.js 20.19+.', '', '', '', '', 'Warning: Do not.', '', '', '', '>', '> Note: Some note.'].join('\n'));
    assert.equal(markdownStructure('::: details What hosts are safe to be added?\nHosts you control.\n:::'), '\nWhat hosts are safe to be added? Hosts you control.\n');
  });

  it('drops MDX imports and reads callout and parameter components as labels', () => {
    const md = [
      "import Alert from '@components/primitives/Alert/Alert.astro';",
      '',
      '<Alert type="warning">',
      '',
      "As `req.body`'s shape is based on user-controlled input, it is untrusted.",
      '',
      '</Alert>',
      '<Param name="limit" type="Number" default=\'"100kb"\'>',
      '  Controls the maximum request body size.',
    ].join('\n');
    assert.equal(
      markdownStructure(md),
      ['', '', '', '', "Warning: As `req.body`'s shape is based on user-controlled input, it is untrusted.", '', '</Alert>', '', '  `limit` (default: `"100kb"`): Controls the maximum request body size.'].join('\n'),
    );
  });

  it('drops VitePress snippet imports: the file they render is not in the text', () => {
    assert.equal(markdownStructure('Here is a workflow:\n\n<<< ./deploy.yaml#content [deploy.yml]\n\nDone.'), 'Here is a workflow:\n\n\n\nDone.');
  });

  it('leaves code fences alone, and a label goes when no text follows', () => {
    const md = ['```js', "import express from 'express'", ':::', '```', '::: tip', '```sh', 'npm i', '```', ':::'].join('\n');
    assert.equal(markdownStructure(md), ['```js', "import express from 'express'", ':::', '```', '', '```sh', 'npm i', '```', ''].join('\n'));
  });
});

describe('decodeEntities', () => {
  it('decodes named and numeric references and leaves unknown ones', () => {
    assert.equal(decodeEntities('&#39;a&#x27; &hellip; &nbsp;&foo; &#0;'), "'a' …  &foo; &#0;");
  });
});

describe('linkTexts', () => {
  it('reads each link as its text', () => {
    assert.equal(linkTexts('Vite uses [Lightning CSS](https://lightningcss.dev/minification.html) via [`css.lightningcss`](https://vite.dev/config/shared-options#css-lightningcss).'), 'Vite uses Lightning CSS via `css.lightningcss`.');
  });
});
