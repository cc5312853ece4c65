/**
 * `lore import <dir> --collection <id>` against a real Lore over HTTP: which files become
 * entries and how (titles, front matter, MDX, HTML's main content as Markdown, PDF text, encodings, URLs), what is skipped and why, a
 * second run that sends nothing, changes and --prune, and the errors that end a run.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { formatImportReport, importFolder } from '../src/cli/folderImport.js';
import { SPLIT_OVER } from '../src/domain/ingestion/text/sections.js';
import { constantEmbedder, startServer, type TestServer } from './helpers.js';
import { makePdf } from './fixtures/pdf.js';
import { runLoreCli } from './processes.js';

const FILES: Record<string, string | Buffer> = {
  'index.md': '---\ntitle: Welcome to Acme\ntags: [start]\n---\n\nAcme keeps your invoices in one place.\n',
  'guide/install.md': '# Install Acme\n\nRun the installer:\n\n```sh\n# as root\n./install.sh\n```\n\n## On `Linux`\n\nAny glibc.\n\n```sh\n## not a heading\n```\n\n## Upgrading {#upgrade}\n\nRun it again.\n',
  'guide/widgets.mdx': "import Tabs from '@theme/Tabs';\n\n# Widgets\n\n<Tabs>\nThe chat widget answers visitors.\n</Tabs>\n\n```jsx\n<Tabs />\n```\n",
  'notes.txt': 'Plain notes about refunds.',
  'manuals/refunds.pdf': makePdf('Refund policy', ['Refunds are paid within five working days.', 'Ask billing for anything else.']),
  'bad.pdf': Buffer.from('%PDF-1.4\nnot really a PDF'),
  'site/install.html': `<!doctype html><html><head><title>Install — Acme Docs</title><link rel="canonical" href="https://docs.acme.test/install"></head>
<body><header><a href="/">Acme</a><nav><a href="/a">Guide</a><a href="/b">API</a></nav></header>
<div id="cookie-banner">We use cookies. Accept all?</div>
<aside class="sidebar"><ul><li>Intro</li><li>Install</li></ul></aside>
<main><article><h1>Install Acme</h1><p>Acme runs on any Linux machine with Node.js 20. Follow the steps below to install it and start the server for the first time.</p>
<h2 id="steps">Steps</h2><ol><li>Download the installer.</li><li>Run it as root.</li></ol>
<pre><code class="language-sh">curl -O https://acme.test/install.sh
sudo sh install.sh</code></pre>
<h2>Settings</h2><table><thead><tr><th>Variable</th><th>Default</th><th>Meaning</th></tr></thead><tbody><tr><td><code>PORT</code></td><td>3000</td><td>where to listen</td></tr><tr><td><code>HOST</code></td><td>127.0.0.1</td><td>the interface</td></tr></tbody></table>
</article></main><footer>© Acme 2026 · Privacy</footer></body></html>
`,
  'legacy/latin1.txt': Buffer.from([0x4c, 0x65, 0x20, 0x63, 0x61, 0x66, 0xe9, 0x20, 0x65, 0x73, 0x74, 0x20, 0x6f, 0x75, 0x76, 0x65, 0x72, 0x74, 0x2e]), // "Le café est ouvert."
  'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  'broken.md': Buffer.from('abc\u0000def'),
  'empty.md': '---\ntitle: Nothing\n---\n\n',
  'drafts/secret.md': '# Secret\n\nNot for visitors.',
  '.hidden/x.md': '# Hidden',
  'node_modules/pkg/readme.md': '# A dependency',
};

describe('lore import <dir> (folder import)', () => {
  let server: TestServer;
  let url: string;
  let token: string;
  let collection: string;
  let dir: string;
  before(async () => {
    server = await startServer('pglite', { embedder: constantEmbedder });
    url = await server.app.listen({ port: 0, host: '127.0.0.1' });
    token = (await server.createOrg()).token;
    collection = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Docs' } })).body.data.id;
    dir = mkdtempSync(path.join(tmpdir(), 'lore-folder-'));
    for (const [name, content] of Object.entries(FILES)) {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      writeFileSync(path.join(dir, name), content);
    }
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  });

  const run = (options: { prune?: boolean; sections?: boolean } = {}) =>
    importFolder({ dir, collection, server: url, token, baseUrl: 'https://docs.example.com/', prune: options.prune ?? false, sections: options.sections ?? false, ignore: ['drafts/'], progress: false });
  const entries = async () =>
    new Map(
      ((await server.call('GET', `/api/v1/collections/${collection}/entries?per_page=100`, { token })).body.data as { source_id: string; title: string; raw_text: string; source_url: string; updated_at: string; source_type: string; meta: Record<string, unknown> }[]).map((e) => [e.source_id, e]),
    );

  it('makes an entry of each Markdown, MDX and text file, and says why the others were left out', async () => {
    const report = await run();
    assert.deepEqual([report.files, report.files_read, report.entries, report.created, report.updated, report.unchanged, report.failed], [10, 7, 7, 7, 0, 0, []]);
    const badPdf = report.skipped.find((s) => s.path === 'bad.pdf');
    assert.match(badPdf?.reason ?? '', /^unreadable PDF \(/);
    assert.deepEqual(report.skipped.filter((s) => s !== badPdf).sort((a, b) => a.path.localeCompare(b.path)), [
      { path: 'broken.md', reason: 'binary (NUL bytes)' },
      { path: 'empty.md', reason: 'no text' },
      { path: 'logo.png', reason: 'unsupported type (.png)' },
    ]);
    assert.deepEqual(report.notes, [{ path: 'legacy/latin1.txt', note: 'not UTF-8: read as Windows-1252' }]);

    const stored = await entries();
    assert.deepEqual([...stored.keys()].sort(), ['guide/install.md', 'guide/widgets.mdx', 'index.md', 'legacy/latin1.txt', 'manuals/refunds.pdf', 'notes.txt', 'site/install.html']);
    assert.ok([...stored.values()].every((e) => e.source_type === 'file'));
    const index = stored.get('index.md')!;
    assert.deepEqual([index.title, index.source_url, index.raw_text], ['Welcome to Acme', 'https://docs.example.com/', 'Acme keeps your invoices in one place.']);
    const install = stored.get('guide/install.md')!;
    assert.deepEqual([install.title, install.source_url], ['Install Acme', 'https://docs.example.com/guide/install']);
    assert.match(install.raw_text, /```sh\n# as root\n\.\/install\.sh\n```/, 'code blocks kept as Markdown');
    assert.deepEqual(install.meta.anchors, { 'install-acme': 'install-acme', 'on-linux': 'on-linux', 'upgrading-upgrade': 'upgrade' }, 'section ids as a site slugs them, or as written');
    const widgets = stored.get('guide/widgets.mdx')!;
    assert.equal(widgets.title, 'Widgets');
    assert.doesNotMatch(widgets.raw_text, /import Tabs|<\/?Tabs>\n/, 'ESM lines and JSX tags dropped');
    assert.match(widgets.raw_text, /The chat widget answers visitors\./);
    assert.match(widgets.raw_text, /```jsx\n<Tabs \/>\n```/, 'code fences left as they are');
    assert.equal(stored.get('legacy/latin1.txt')!.raw_text, 'Le café est ouvert.');
    const pdf = stored.get('manuals/refunds.pdf')!;
    assert.deepEqual([pdf.title, pdf.raw_text, pdf.source_url], ['Refund policy', 'Refunds are paid within five working days.\nAsk billing for anything else.', 'https://docs.example.com/manuals/refunds.pdf']);
    const page = stored.get('site/install.html')!;
    assert.deepEqual([page.title, page.source_url], ['Install Acme', 'https://docs.example.com/site/install.html']);
    assert.match(page.raw_text, /^Acme runs on any Linux machine/, 'the article, not the navigation');
    assert.match(page.raw_text, /## Steps\n\n1\. +Download the installer\./);
    assert.deepEqual(page.meta.anchors, { steps: 'steps' }, 'the ids the page gives its headings');
    assert.match(page.raw_text, /```sh\ncurl -O https:\/\/acme\.test\/install\.sh\nsudo sh install\.sh\n```/);
    assert.match(page.raw_text, /\| `PORT` \| 3000 \| where to listen \|/);
    for (const chrome of ['cookies', 'Privacy', 'Guide', 'Intro']) assert.ok(!page.raw_text.includes(chrome), `no "${chrome}"`);
    assert.deepEqual([stored.get('notes.txt')!.title, stored.get('notes.txt')!.source_url], ['Notes', 'https://docs.example.com/notes.txt']);
  });

  it('sends nothing for an unchanged folder, updates a changed file, and prunes only when asked', async () => {
    const before = await entries();
    const again = await run();
    assert.deepEqual([again.created, again.updated, again.unchanged], [0, 0, 7]);
    const after = await entries();
    for (const [id, entry] of before) assert.equal(after.get(id)!.updated_at, entry.updated_at, `${id} not written again`);

    writeFileSync(path.join(dir, 'guide/install.md'), '# Install Acme\n\nRun the new installer.\n');
    unlinkSync(path.join(dir, 'notes.txt'));
    unlinkSync(path.join(dir, 'legacy/latin1.txt'));
    const changed = await run();
    assert.deepEqual([changed.created, changed.updated, changed.unchanged, changed.deleted], [0, 1, 4, 0]);
    assert.equal((await entries()).get('guide/install.md')!.raw_text, '# Install Acme\n\nRun the new installer.');
    assert.ok((await entries()).has('notes.txt'), 'kept without --prune');

    // Through the command itself.
    const cli = await runLoreCli(['import', dir, '--collection', collection, '--url', url, '--base-url', 'https://docs.example.com/', '--ignore', 'drafts/', '--prune'], { ...process.env, LORE_TOKEN: token });
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /: 5 files read — 0 entries new, 0 changed, 5 unchanged, 2 deleted; 4 files skipped, 0 failed\.\n/);
    assert.deepEqual([...(await entries()).keys()].sort(), ['guide/install.md', 'guide/widgets.mdx', 'index.md', 'manuals/refunds.pdf', 'site/install.html'], 'pruned, a path with a folder too');
  });

  it('with --sections, makes an entry of each ## section, and removes the entries a file no longer makes', async () => {
    writeFileSync(path.join(dir, 'guide/install.md'), '# Install Acme\n\nRun the installer.\n\n## On `Linux`\n\nAny glibc.\n\n```sh\n## not a heading\n```\n\n## Upgrading {#upgrade}\n\nRun it again.\n');
    const report = await run({ sections: true });
    assert.deepEqual([report.created, report.deleted, report.failed], [2, 0, []]);
    let stored = await entries();
    const ids = (e: Map<string, unknown>) => [...e.keys()].filter((id) => id.startsWith('guide/install.md')).sort();
    assert.deepEqual(ids(stored), ['guide/install.md', 'guide/install.md#on-linux', 'guide/install.md#upgrade']);
    const intro = stored.get('guide/install.md')!;
    assert.deepEqual([intro.title, intro.source_url, intro.raw_text], ['Install Acme', 'https://docs.example.com/guide/install', '# Install Acme\n\nRun the installer.']);
    const linux = stored.get('guide/install.md#on-linux')!;
    assert.deepEqual([linux.title, linux.source_url, linux.source_type], ['On Linux', 'https://docs.example.com/guide/install#on-linux', 'file']);
    assert.match(linux.raw_text, /^## On `Linux`\n\nAny glibc\.\n\n```sh\n## not a heading\n```$/, 'a heading in a code fence stays in its section');
    const upgrade = stored.get('guide/install.md#upgrade')!;
    assert.deepEqual([upgrade.title, upgrade.source_url], ['Upgrading', 'https://docs.example.com/guide/install#upgrade']);
    assert.deepEqual([linux.meta.anchors, upgrade.meta.anchors], [{ 'on-linux': 'on-linux' }, { 'upgrading-upgrade': 'upgrade' }], 'its headings\' ids, for citations');
    assert.deepEqual([intro.meta.page_title, linux.meta.page_title, upgrade.meta.page_title], [undefined, 'Install Acme', 'Install Acme'], 'a section names its page\'s title; the text before the first is titled by it');
    assert.deepEqual(stored.get('index.md')!.source_url, 'https://docs.example.com/', 'a file without sections is one entry as before');

    const again = await run({ sections: true });
    assert.deepEqual([again.created, again.updated, again.deleted], [0, 0, 0]);

    // A section gone from a file is deleted with the file's import, --prune or not.
    writeFileSync(path.join(dir, 'guide/install.md'), '# Install Acme\n\nRun the installer.\n\n## Upgrading {#upgrade}\n\nRun it again.\n');
    const fewer = await run({ sections: true });
    assert.deepEqual([fewer.created, fewer.updated, fewer.deleted], [0, 0, 1]);
    assert.deepEqual(ids(await entries()), ['guide/install.md', 'guide/install.md#upgrade']);

    // Imported whole again: the sections' entries give way to the file's.
    const whole = await run();
    assert.deepEqual([whole.updated, whole.deleted], [1, 1], 'install.md; widgets.mdx, one section, is the same entry either way, its heading anchored');
    stored = await entries();
    assert.deepEqual(ids(stored), ['guide/install.md']);
    assert.match(stored.get('guide/install.md')!.raw_text, /## Upgrading \{#upgrade\}\n\nRun it again\.$/);
  });

  it('with --sections, splits a long ## section at its ### sub-headings (a short one stays in it), a page without a # title too, never inside a code fence', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'lore-split-'));
    // Two of these make a section long enough to split.
    const long = (topic: string) => `${topic} needs this paragraph, written long enough to weigh. `.repeat(Math.ceil(SPLIT_OVER / 100)).trim();
    try {
      const into = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Split' } })).body.data.id as string;
      const split = () => importFolder({ dir: folder, collection: into, server: url, token, baseUrl: 'https://docs.example.com/', prune: true, sections: true, ignore: [], progress: false });
      const stored = async () => {
        const list = (await server.call('GET', `/api/v1/collections/${into}/entries?per_page=100`, { token })).body.data as { source_id: string; title: string; source_url: string; raw_text: string }[];
        return new Map(list.map((e) => [e.source_id, e]));
      };
      mkdirSync(path.join(folder, 'config'));
      const server_ = ['# Server Options', '', 'Options of the dev server.', '', '## server.host', '', long('The host'), '', '### IPv6', '', long('IPv6'), '',
        '### Tip', '', 'Short.', '', '## server.proxy {#proxy}', '', 'Proxies requests.', '', '### Rewrite', '', long('Rewrite'), '', '```md', '### not a heading', '# nor this', '```', '',
        '### Bypass', '', long('Bypass'), '', '## Small', '', 'Small section.', '', '### Not split', '', 'Also small.', ''].join('\n');
      writeFileSync(path.join(folder, 'config/server.md'), server_);
      writeFileSync(path.join(folder, 'guide.md'), ['---', 'title: Getting Started', '---', '', '## Getting Started', '', 'Welcome.', '', '### Install', '', long('Installing'), '', '### Usage', '', long('Using'), ''].join('\n'));
      const report = await split();
      assert.deepEqual(report.failed, []);
      let entries = await stored();
      assert.deepEqual([...entries.keys()].sort(), [
        'config/server.md', 'config/server.md#bypass', 'config/server.md#ipv6', 'config/server.md#proxy', 'config/server.md#rewrite', 'config/server.md#serverhost', 'config/server.md#small',
        'guide.md#getting-started', 'guide.md#install', 'guide.md#usage',
      ]);
      const ipv6 = entries.get('config/server.md#ipv6')!;
      assert.deepEqual([ipv6.title, ipv6.source_url], ['server.host › IPv6', 'https://docs.example.com/config/server#ipv6']);
      assert.ok(ipv6.raw_text.startsWith('### IPv6\n\nIPv6 needs'));
      const host = entries.get('config/server.md#serverhost')!;
      assert.equal(host.title, 'server.host', 'a ## section titled as before');
      assert.match(host.raw_text, /^## server\.host\n\nThe host needs[^#]*### Tip\n\nShort\.$/, 'the host section keeps its short sub-section, not its long one');
      assert.match(entries.get('config/server.md#rewrite')!.raw_text, /```md\n### not a heading\n# nor this\n```$/, 'a code fence stays whole in its section');
      assert.equal(entries.get('config/server.md#rewrite')!.title, 'server.proxy › Rewrite');
      assert.equal(entries.get('config/server.md#small')!.raw_text, '## Small\n\nSmall section.\n\n### Not split\n\nAlso small.');
      assert.deepEqual(['guide.md#getting-started', 'guide.md#install'].map((id) => entries.get(id)!.title), ['Getting Started', 'Getting Started › Install']);
      assert.equal(entries.get('guide.md#install')!.source_url, 'https://docs.example.com/guide#install');

      const again = await split();
      assert.deepEqual([again.created, again.updated, again.deleted], [0, 0, 0]);
      // The proxy section shrinks: its sub-sections join it again, their entries go.
      writeFileSync(path.join(folder, 'config/server.md'), server_.replace(long('Rewrite'), 'Rewrite paths.').replace(long('Bypass'), 'Bypass it.'));
      const shrunk = await split();
      assert.deepEqual([shrunk.created, shrunk.updated, shrunk.deleted], [0, 1, 2]);
      entries = await stored();
      assert.ok(!entries.has('config/server.md#rewrite') && !entries.has('config/server.md#bypass'));
      assert.match(entries.get('config/server.md#proxy')!.raw_text, /### Rewrite\n\nRewrite paths\.[\s\S]*### Bypass\n\nBypass it\.$/);
      rmSync(path.join(folder, 'guide.md'));
      assert.equal((await split()).deleted, 3, '--prune deletes the sections of a file gone');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('with --sections, titles and anchors a heading as its reader sees it: a component in it (VitePress\'s badges) is no part of it', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'lore-badges-'));
    try {
      const into = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Badges' } })).body.data.id as string;
      writeFileSync(
        path.join(folder, 'deps.md'),
        ['# Dep Optimization Options', '', '## optimizeDeps.include <NonInheritBadge />', '', 'Forces a linked package to be pre-bundled.', '',
          '## Default Browser Target Change [<Badge text="NRV" type="warning" />](#migration)', '', 'The default target moved.', '',
          '## Object Format (`Record<string, string>`)', '', 'Aliases as an object.', ''].join('\n'),
      );
      const report = await importFolder({ dir: folder, collection: into, server: url, token, baseUrl: 'https://docs.example.com/', prune: true, sections: true, ignore: [], progress: false });
      assert.deepEqual(report.failed, []);
      const list = (await server.call('GET', `/api/v1/collections/${into}/entries?per_page=100`, { token })).body.data as { source_id: string; title: string; source_url: string }[];
      const byId = new Map(list.map((e) => [e.source_id, e]));
      assert.deepEqual([...byId.keys()].sort(), ['deps.md', 'deps.md#default-browser-target-change', 'deps.md#object-format-recordstring-string', 'deps.md#optimizedepsinclude']);
      assert.deepEqual([byId.get('deps.md#optimizedepsinclude')!.title, byId.get('deps.md#optimizedepsinclude')!.source_url], ['optimizeDeps.include', 'https://docs.example.com/deps#optimizedepsinclude']);
      assert.equal(byId.get('deps.md#default-browser-target-change')!.title, 'Default Browser Target Change');
      assert.equal(byId.get('deps.md#object-format-recordstring-string')!.title, 'Object Format (Record<string, string>)', 'markup named in code is text');
      // A search box's query naming the section finds it by its heading, titled without the badge.
      const integration = (await server.call('POST', '/api/v1/integrations', { token, body: { type: 'search_box', name: 'Badges', collection_ids: [into] } })).body.data.id as string;
      const hits = (await server.call('GET', `/api/v1/integrations/${integration}/search?query=optimizeDeps.include&threshold=0&explain=true`, { token })).body.data as { title: string; score_breakdown: { heading: number } }[];
      assert.equal(hits[0]!.title, 'optimizeDeps.include');
      assert.equal(hits[0]!.score_breakdown.heading, 1, 'the heading is the query: no word of the badge counts against it');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('counts a file done once its entries are written, so progress moves as the work is done, and sums up files and entries apart', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'lore-progress-'));
    try {
      for (const name of ['a', 'b', 'c']) writeFileSync(path.join(folder, `${name}.md`), `# ${name}\n\nIntro of ${name}.\n\n## More\n\nMore about ${name}.\n`);
      const into = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Progress' } })).body.data.id as string;
      const count = async () => (await server.call('GET', `/api/v1/collections/${into}/entries?per_page=100`, { token })).body.data.length as number;
      const seen: Promise<[number, number, number]>[] = [];
      const report = await importFolder({ dir: folder, collection: into, server: url, token, baseUrl: null, prune: false, sections: true, ignore: [], progress: false, onProgress: (done, total) => seen.push(count().then((stored) => [done, total, stored])) });
      const calls = await Promise.all(seen);
      assert.deepEqual(calls.map(([done, total]) => [done, total]), [[1, 3], [2, 3], [3, 3]]);
      for (const [done, , stored] of calls) assert.ok(stored >= 2 * done, `file ${done} counted once its 2 sections were stored (${stored} stored)`);
      assert.deepEqual([report.files, report.files_read, report.entries, report.created], [3, 3, 6, 6]);
      assert.equal(formatImportReport(folder, into, report, true), `Imported ${folder} into collection ${into}: 3 files read (6 sections) — 6 entries new, 0 changed, 0 unchanged, 0 deleted; 0 files skipped, 0 failed.`);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('ends with a clear message on bad arguments (exit 2), an unreachable server, a wrong collection or token (exit 1)', async () => {
    const cases: [string[], Record<string, string>, RegExp, number][] = [
      [['import', dir], { LORE_TOKEN: token }, /is a folder: to import its files into a collection, pass --collection ID/, 2],
      [['import', dir, '--collection', collection, '--url', url], {}, /set LORE_TOKEN or pass --token/, 2],
      [['import', dir, '--collection', collection, '--url', url, '--base-url', 'docs.example.com'], { LORE_TOKEN: token }, /--base-url must be an http\(s\) URL/, 2],
      [['import', path.join(dir, 'missing'), '--collection', collection, '--url', url], { LORE_TOKEN: token }, /is not a folder/, 1],
      [['import', dir, '--collection', collection, '--url', 'http://127.0.0.1:9'], { LORE_TOKEN: token }, /cannot reach Lore at http:\/\/127\.0\.0\.1:9/, 1],
      [['import', dir, '--collection', '00000000-0000-0000-0000-000000000000', '--url', url], { LORE_TOKEN: token }, /no collection 00000000-0000-0000-0000-000000000000 for this token/, 1],
      [['import', dir, '--collection', collection, '--url', url, '--token', 'lore_wrong'], {}, /the token was refused \(401\)/, 1],
    ];
    for (const [args, env, message, code] of cases) {
      const result = await runLoreCli(args, { ...process.env, LORE_TOKEN: '', ...env });
      assert.equal(result.code, code, args.join(' '));
      assert.match(result.stderr, new RegExp(`^lore: .*${message.source}`), args.join(' '));
    }
  });
});
