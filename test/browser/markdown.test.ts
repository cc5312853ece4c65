// ServiceSdk.markdown against an XSS corpus, rendered with innerHTML into a live page that has
// NO CSP (a CSP would block inline handlers and hide a sanitizer failure). Every payload calls
// window.xssHit(n) or alert(); a positive control proves the page would notice.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkip, TEST, launchBrowser, startTogether, openPage, startLore, type Lore, type Opened } from './fixtures.js';

const CORPUS: Array<[name: string, markdown: string]> = [
  ['script tag', '<script>xssHit(1)</script>'],
  ['script split across markdown', 'Hello <scr<script>ipt>xssHit(2)</script>'],
  ['img onerror', '<img src=x onerror="xssHit(3)">'],
  ['img onerror, unquoted, unclosed', '<img src=x onerror=xssHit(4)//'],
  ['svg onload', '<svg onload="xssHit(5)"></svg>'],
  ['svg with script', '<svg><script>xssHit(6)</script></svg>'],
  ['svg animate href', '<svg><a><animate attributeName="href" values="javascript:xssHit(7)"/><text y="20">x</text></a></svg>'],
  ['svg xlink:href', '<svg><a xlink:href="javascript:xssHit(8)"><text y="20">x</text></a></svg>'],
  ['iframe javascript:', '<iframe src="javascript:parent.xssHit(9)"></iframe>'],
  ['iframe srcdoc', '<iframe srcdoc="<script>parent.xssHit(10)</script>"></iframe>'],
  ['object and embed', '<object data="javascript:xssHit(11)"></object><embed src="javascript:xssHit(12)">'],
  ['html javascript: link', '<a href="javascript:xssHit(13)">html link</a>'],
  ['markdown javascript: link', '[click me](javascript:xssHit(14))'],
  ['markdown mixed-case javascript: link', '[click me](JaVaScRiPt:xssHit(15))'],
  ['markdown javascript: link with spaces', '[click me]( javascript:xssHit(16))'],
  ['markdown entity-encoded javascript: link', '[click me](&#106;avascript:xssHit(17))'],
  ['markdown tab inside javascript:', '[click me](java\tscript:xssHit(18))'],
  ['markdown vbscript: link', '[click me](vbscript:msgbox(19))'],
  ['markdown data: link', '[click me](data:text/html;base64,PHNjcmlwdD5wYXJlbnQuX19wd25lZCgyMCk8L3NjcmlwdD4=)'],
  ['markdown javascript: image', '![alt](javascript:xssHit(21))'],
  ['markdown image breaking out of src', '![alt](x" onerror="xssHit(22))'],
  ['markdown link breaking out of href', '[a](https://ok.example/"onmouseover="xssHit(23))'],
  ['autolink javascript:', '<javascript:xssHit(24)>'],
  ['onclick link', '<a href="#" onclick="xssHit(25)">click</a>'],
  ['details ontoggle', '<details open ontoggle="xssHit(26)"><summary>x</summary></details>'],
  ['form formaction', '<form><button formaction="javascript:xssHit(27)">go</button></form>'],
  ['body onload', '<body onload="xssHit(28)">'],
  ['style import', '<style>@import "javascript:xssHit(29)"; *{color:red}</style>'],
  ['base href', '<base href="javascript:xssHit(30)//">'],
  ['meta refresh', '<meta http-equiv="refresh" content="0;url=javascript:xssHit(31)">'],
  ['nested script', '<<script>script>xssHit(32)<</script>/script>'],
  ['noscript mXSS', '<noscript><p title="</noscript><img src=x onerror=xssHit(33)>"></noscript>'],
  ['math mXSS', '<math><mtext><table><mglyph><style><img src=x onerror=xssHit(34)>'],
  ['entities', '&lt;img src=x onerror=xssHit(35)&gt; and &#60;script&#62;xssHit(35)&#60;/script&#62;'],
  ['inline code with html', '`<img src=x onerror=xssHit(36)>`'],
  ['fenced code with html', '```html\n<script>xssHit(37)</script>\n<img src=x onerror=xssHit(37)>\n```'],
  ['html inside list and bold', '- **<img src=x onerror=xssHit(38)>**\n- <svg onload=xssHit(38)>'],
  ['unclosed attribute', '<a href="https://ok.example/ onmouseover=xssHit(39) x="'],
  ['alert in handler', '<img src=x onerror=alert(40)>'],
  ['alert in link', '[x](javascript:alert(41))'],
];

describe('browser: ServiceSdk.markdown', { skip: browserSkip }, () => {
  let lore: Lore;
  let browser: Browser;
  let tab: Opened;
  const dialogs: string[] = [];

  /** Renders markdown through the SDK into a new element of the live page; returns its innerHTML. */
  const render = (page: Page, text: string) => page.evaluate((md) => (window as any).render(md), text);
  const pwned = (page: Page) => page.evaluate(() => (window as any).xssCalls as unknown[]);

  before(async () => {
    [lore, browser] = await startTogether(startLore({ constant: true }), launchBrowser());
    const url = lore.site.page({
      csp: false,
      html: '<main id="out"></main>',
      script: `
        window.xssCalls = [];
        window.xssHit = (n) => window.xssCalls.push(n);
        window.render = (md) => {
          const box = document.createElement('section');
          box.innerHTML = ServiceSdk.markdown(md);
          document.getElementById('out').appendChild(box);
          return box.innerHTML;
        };`,
    });
    tab = await openPage(browser, url);
    tab.page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
  });
  after(async () => {
    await browser?.close();
    await lore?.close();
  });

  it('the page notices an executed payload (positive control)', TEST, async () => {
    await tab.page.evaluate(() => {
      const box = document.createElement('div');
      box.innerHTML = '<img src="/missing.png" onerror="xssHit(\'control\')">';
      document.body.appendChild(box);
    });
    await tab.page.waitForFunction(() => (window as any).xssCalls.includes('control'));
    await tab.page.evaluate(() => { (window as any).xssCalls = []; });
  });

  it('renders ordinary markdown', TEST, async () => {
    const html = await render(tab.page, [
      '# Title', '', 'Some **bold**, *italic* and `code`.', '',
      '- one', '- two', '', '1. first', '2. second', '',
      'See [the docs](https://example.com/docs?a=1&b=2).', '',
      '```', 'const x = 1 < 2;', '```',
    ].join('\n'));
    const dom = await tab.page.evaluate((h) => {
      const box = document.createElement('div');
      box.innerHTML = h;
      const q = (s: string) => box.querySelector(s);
      const a = q('a');
      return {
        h1: q('h1')?.textContent, strong: q('strong')?.textContent, em: q('em')?.textContent, code: q('p code')?.textContent,
        ul: box.querySelectorAll('ul > li').length, ol: box.querySelectorAll('ol > li').length,
        href: a?.getAttribute('href'), target: a?.getAttribute('target'), rel: a?.getAttribute('rel'), text: a?.textContent,
        pre: q('pre code')?.textContent,
      };
    }, html);
    assert.deepEqual(dom, {
      h1: 'Title', strong: 'bold', em: 'italic', code: 'code', ul: 2, ol: 2,
      href: 'https://example.com/docs?a=1&b=2', target: '_blank', rel: dom.rel, text: 'the docs',
      pre: 'const x = 1 < 2;',
    }, html);
    assert.match(dom.rel ?? '', /noopener/);
  });

  it('neutralises every payload of the XSS corpus', TEST, async () => {
    const outputs: Array<{ name: string; html: string }> = [];
    for (const [name, md] of CORPUS) outputs.push({ name, html: await render(tab.page, md) });

    // Structure: nothing executable survives.
    const findings = await tab.page.evaluate((all) => {
      const bad: string[] = [];
      const urlAttrs = ['href', 'src', 'xlink:href', 'action', 'formaction', 'srcdoc', 'data', 'values', 'background', 'poster'];
      for (const { name, html } of all) {
        const box = document.createElement('div');
        box.innerHTML = html;
        for (const el of Array.from(box.querySelectorAll('*'))) {
          const tag = el.tagName.toLowerCase();
          if (['script', 'iframe', 'object', 'embed', 'svg', 'math', 'style', 'form', 'base', 'meta', 'link', 'frame', 'frameset', 'template', 'noscript'].includes(tag)) bad.push(`${name}: <${tag}>`);
          for (const attr of Array.from(el.attributes)) {
            const value = attr.value.replace(/[\u0000-\u0020]/g, '').toLowerCase();
            if (attr.name.toLowerCase().startsWith('on')) bad.push(`${name}: ${tag}[${attr.name}]`);
            if (urlAttrs.includes(attr.name.toLowerCase()) && /^(javascript|vbscript|data):/.test(value) && !(tag === 'img' && value.startsWith('data:image/'))) {
              bad.push(`${name}: ${tag}[${attr.name}=${attr.value}]`);
            }
            if (attr.name === 'style') bad.push(`${name}: style attribute`);
          }
        }
      }
      return bad;
    }, outputs);
    assert.deepEqual(findings, [], outputs.map((o) => `${o.name}: ${o.html}`).join('\n'));

    // Behaviour: hover and click everything that is not an ordinary web link, then let every
    // image finish loading or failing (a control image, added last, fails after the others).
    await tab.page.evaluate(async () => {
      for (const el of Array.from(document.querySelectorAll('#out *'))) {
        el.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
        const href = el.getAttribute('href') ?? '';
        if (!/^https?:/i.test(href)) (el as HTMLElement).click?.();
      }
      await new Promise<void>((resolve) => {
        const img = new Image();
        img.onerror = img.onload = () => resolve();
        img.src = '/control-missing.png';
        document.getElementById('out')!.appendChild(img);
      });
    });
    await tab.page.waitForLoadState('networkidle');
    assert.deepEqual(await pwned(tab.page), [], 'no payload ran');
    assert.deepEqual(dialogs, [], 'no dialog opened');
    assert.equal(new URL(tab.page.url()).pathname.startsWith('/p/'), true, 'the page did not navigate');
  });

  it('shows raw HTML as text rather than dropping the words around it', TEST, async () => {
    const html = await render(tab.page, 'Use <b>bold</b> & <i>these</i> "quotes"');
    const text = await tab.page.evaluate((h) => {
      const box = document.createElement('div');
      box.innerHTML = h;
      return { text: box.textContent, b: box.querySelector('b') !== null };
    }, html);
    assert.match(text.text ?? '', /Use/);
    assert.match(text.text ?? '', /quotes/);
  });

  after(async () => {
    await tab?.close();
  });
});
