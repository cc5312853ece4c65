/**
 * Answers on imported third-party-style docs, over HTTP on each backend: a folder of Markdown
 * and MDX written the way VitePress and Astro sites write theirs (relative links, inline HTML
 * and entities, containers, MDX components carrying commands and parameter defaults, option
 * reference sections with field lists, a section long enough to split) is imported as
 * `lore import DIR --sections` imports it, then asked by chat and summarise. What comes back
 * must read as prose: commands as code, links absolute, no markup, citations that link the
 * (sub-)section the words come from.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SPLIT_OVER } from '../src/domain/ingestion/text/sections.js';
import { importFolder } from '../src/cli/folderImport.js';
import { backends, startServer, type TestServer } from './helpers.js';

const BASE = 'https://docs.acme.test/';
/** Distinct sentences about `topic`, about `chars` characters of them: a section's body, not one repeated line. */
const prose = (topic: string, chars: number) => {
  const out: string[] = [];
  for (let i = 1; out.join(' ').length < chars; i++) out.push(`Note ${i} on ${topic} covers case ${i * 7} of the ${topic.toLowerCase()} rules in detail.`);
  return out.join(' ');
};
const long = (topic: string) => `${topic} is described here at length, so that the section weighs enough to be split. `.repeat(Math.ceil(SPLIT_OVER / 90)).trim();

const FILES: Record<string, string> = {
  'start/installing.mdx': [
    '---',
    'title: Installing',
    '---',
    '',
    "import PackageManagerCommand from '@components/PackageManagerCommand.astro';",
    "import Alert from '@components/Alert.astro';",
    '',
    'Acme needs Node.js 20 or higher. Install Acme in your project with:',
    '',
    '<PackageManagerCommand command="npm install acme-server" />',
    '',
    '<Alert type="warning">',
    '',
    'Never run the Acme installer as root.',
    '',
    '</Alert>',
  ].join('\n'),
  'api/body.mdx': [
    '---',
    'title: Body parsing',
    '---',
    '',
    '## acme.json()',
    '',
    '<Signature returns="Function">',
    '  <Param name="options" type="Object" optional>',
    '    Configures how the JSON body of a request is parsed.',
    '',
    '    <Param name="limit" type="Number | String" default=\'"100kb"\'>',
    '      Controls the maximum request body size that acme.json() accepts.',
    '    </Param>',
    '  </Param>',
    '</Signature>',
    '',
    'Parses incoming requests with JSON payloads.',
  ].join('\n'),
  'config/server-options.md': [
    '# Server Options',
    '',
    '## server.port',
    '',
    '- **Type:** `number`',
    '- **Default:** `5173`',
    '',
    'Specify the dev server port. Read [the CLI guide](../guide/cli.md#dev-server) for the `--port` flag.',
    '',
    '## server.cors',
    '',
    '<a id="cors"></a>',
    'Configure CORS for the dev server&nbsp;&mdash; any origin is allowed by default.<br>',
    '',
    '::: tip Security',
    'Restrict the allowed origins in production.',
    ':::',
  ].join('\n'),
  // One section between WHOLE_ENTRY_CHARS and SPLIT_OVER long: one entry, read as its sub-section.
  'guide/routing.md': [
    '# Routing',
    '',
    '## Route paths',
    '',
    'Route paths define where requests are matched.',
    '',
    '### Optional segments',
    '',
    prose('Optional segments', 3200),
    '',
    '### Wildcards',
    '',
    'To write a wildcard route, give the wildcard a name, as in `/*splat`:',
    '',
    '```js',
    "app.get('/*splat', (req, res) => res.send(req.params.splat))",
    '```',
    '',
    prose('Wildcard matching', 1800),
    '',
    'A wildcard route that catches every path must name its wildcard: an unnamed `*` is rejected when the app starts.',
    '',
    '### Regular expressions',
    '',
    prose('Regular expressions', 3200),
  ].join('\n'),
  'guide/troubleshooting.md': [
    '# Troubleshooting',
    '',
    '## Dev Server',
    '',
    'Problems of the dev server.',
    '',
    '### Requests are stalled forever',
    '',
    long('The stall'),
    '',
    'To lift the file descriptor limit on Linux, run `ulimit -n 65536` before starting the dev server.',
    '',
    '### Slow page loads',
    '',
    long('Slowness'),
  ].join('\n'),
};

/** A page as VitePress renders it: permalinks in headings, a copy button and language label by the code, a callout's title. */
const VITEPRESS_PAGE = `<!doctype html><html><head><title>Preview Options | Vite</title></head><body>
<header class="VPNav"><a href="/">Vite</a><a href="/guide/">Guide</a></header>
<main class="main"><div class="vp-doc"><div>
<h1 id="preview-options" tabindex="-1">Preview Options <a class="header-anchor" href="#preview-options" aria-label="Permalink to &quot;Preview Options&quot;">​</a></h1>
<h2 id="preview-port" tabindex="-1">preview.port <a class="header-anchor" href="#preview-port" aria-label="Permalink to &quot;preview.port&quot;">​</a></h2>
<ul><li><strong>Type:</strong> <code>number</code></li><li><strong>Default:</strong> <code>4173</code></li></ul>
<p>Specify the port of the preview server. Note if the port is already being used, the next free one is tried.</p>
<div class="tip custom-block"><p class="custom-block-title">TIP</p><p>Pass the port on the command line to try another one quickly.</p></div>
<div class="language-sh vp-adaptive-theme"><button title="Copy Code" class="copy"></button><span class="lang">sh</span><pre class="shiki vp-code"><code><span class="line"><span>vite preview --port 8080</span></span></code></pre></div>
</div></div></main><footer>Released under the MIT License.</footer></body></html>`;

for (const backend of backends()) {
  describe(`answers on imported docs [${backend}]`, () => {
    let server: TestServer;
    let token: string;
    let chatbot: string;
    let dir: string;
    const chat = async (message: string) => {
      const res = await server.call('POST', `/api/v1/integrations/${chatbot}/chat`, { token, body: { message, stream: false } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body as { message: string; references: { ref: number; title: string; url: string }[] };
    };
    const summarise = async (query: string) => {
      const res = await server.call('GET', `/api/v1/integrations/${chatbot}/summarise?${new URLSearchParams({ query, stream: 'false' })}`, { token });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body as { summary: string; references: { ref: number; url: string }[] };
    };
    /** What an answer must never show a reader: markup the docs' renderer reads, cut or relative links. */
    const readsAsProse = (text: string) => {
      const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`]*`/g, '');
      assert.doesNotMatch(prose, /<\/?[a-zA-Z][^>]*>|&[a-z]+;|&#\d+;/, `raw HTML or an entity: ${text}`);
      assert.doesNotMatch(prose, /:::|^import\s|<[A-Z]|\{[^}]*\}/m, `MDX or container syntax: ${text}`);
      assert.doesNotMatch(prose, /\]\((?!https?:\/\/)/, `a relative or cut link: ${text}`);
    };

    before(async () => {
      server = await startServer(backend);
      const url = await server.app.listen({ port: 0, host: '127.0.0.1' });
      token = (await server.createOrg('Docs')).token;
      const collection = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Acme docs' } })).body.data.id as string;
      dir = mkdtempSync(path.join(tmpdir(), 'lore-docs-answers-'));
      for (const [name, text] of Object.entries(FILES)) {
        mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
        writeFileSync(path.join(dir, name), text);
      }
      const report = await importFolder({ dir, collection, server: url, token, baseUrl: BASE, prune: false, sections: true, ignore: [], progress: false });
      assert.deepEqual(report.failed, []);
      chatbot = (await server.call('POST', '/api/v1/integrations', { token, body: { type: 'chatbot', name: 'Docs', collection_ids: [collection] } })).body.data.id;
    });
    after(async () => {
      rmSync(dir, { recursive: true, force: true });
      await server.close();
    });

    it('imports MDX as its page reads: a command component becomes its code block, a callout its label, nested parameters text', async () => {
      const entries = (await server.call('GET', `/api/v1/integrations/${chatbot}/search?query=install`, { token })).body.data as { raw_text: string; source_id: string }[];
      const installing = entries.find((e) => e.source_id === 'start/installing.mdx');
      assert.ok(installing, JSON.stringify(entries.map((e) => e.source_id)));
      assert.match(installing.raw_text, /```sh\nnpm install acme-server\n```/);
      assert.match(installing.raw_text, /Warning: Never run the Acme installer as root\./);
      assert.doesNotMatch(installing.raw_text, /import |<PackageManagerCommand|<Alert/);
    });

    it('answers a how-to with the command an MDX component renders, cited', async () => {
      const { message, references } = await chat('How do I install Acme?');
      assert.match(message, /```sh\nnpm install acme-server\n```/, message);
      assert.deepEqual(references.map((r) => r.url), [`${BASE}start/installing`]);
      readsAsProse(message);
    });

    it('answers a default from a parameter component, led by what it is', async () => {
      const { summary } = await summarise('What is the default body size limit of acme.json()?');
      assert.match(summary, /`limit` \(default: `"100kb"`\)/, summary);
      readsAsProse(summary);
    });

    it('leads a reference section with its name, type and default, and shows its relative links as absolute ones', async () => {
      const { message, references } = await chat('What port does the dev server use by default?');
      assert.ok(message.startsWith('`server.port` (type: `number`; default: `5173`): Specify the dev server port.'), message);
      assert.ok(message.includes(`[the CLI guide](${BASE}guide/cli#dev-server)`), message);
      assert.equal(references[0]!.url, `${BASE}config/server-options#serverport`);
      readsAsProse(message);
    });

    it('quotes text around inline HTML and entities as text, and a container as its label', async () => {
      const { message } = await chat('Is any origin allowed by CORS by default?');
      assert.ok(message.includes('Configure CORS for the dev server — any origin is allowed by default'), message);
      readsAsProse(message);
      const tip = await chat('Should I restrict the allowed origins in production?');
      assert.ok(tip.message.includes('Security: Restrict the allowed origins in production'), tip.message);
      readsAsProse(tip.message);
    });

    it('answers on a crawled page as on imported Markdown: no theme furniture, the reference lead, the section cited', async () => {
      const site: Server = createServer((req, res) => {
        if (req.url === '/config/preview-options') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(VITEPRESS_PAGE);
        else res.writeHead(404).end();
      });
      await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
      try {
        const origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
        const collection = (await server.call('POST', '/api/v1/collections', { token, body: { name: 'Crawled' } })).body.data.id as string;
        const crawler = await server.call('POST', `/api/v1/collections/${collection}/crawlers`, { token, body: { start_url: `${origin}/config/preview-options` } });
        assert.equal(crawler.status, 201, JSON.stringify(crawler.body));
        await server.container.crawlerRunner.tick();
        const [page] = (await server.call('GET', `/api/v1/collections/${collection}/entries`, { token })).body.data as { title: string; raw_text: string }[];
        assert.equal(page!.title, 'Preview Options');
        assert.match(page!.raw_text, /^## preview\.port$/m);
        assert.match(page!.raw_text, /Tip: Pass the port on the command line/);
        assert.match(page!.raw_text, /```sh\nvite preview --port 8080\n```/);
        assert.doesNotMatch(page!.raw_text, /\u200B|header-anchor|\]\(#preview-port\)|Copy Code|^TIP$|^sh$/m);
        const bot = (await server.call('POST', '/api/v1/integrations', { token, body: { type: 'chatbot', name: 'Crawled', collection_ids: [collection] } })).body.data.id as string;
        const res = await server.call('POST', `/api/v1/integrations/${bot}/chat`, { token, body: { message: 'Which port does the preview server use by default?', stream: false } });
        assert.ok(res.body.message.startsWith('`preview.port` (type: `number`; default: `4173`): Specify the port of the preview server.'), res.body.message);
        assert.deepEqual(res.body.references.map((r: { url: string }) => r.url), [`${origin}/config/preview-options#preview-port`]);
        readsAsProse(res.body.message);
      } finally {
        await new Promise((resolve) => site.close(resolve));
      }
    });

    it('answers from the sub-section of a long section holding the chunk found, with the code its sub-heading introduces', async () => {
      const entries = (await server.call('GET', `/api/v1/integrations/${chatbot}/search?query=wildcard`, { token })).body.data as { raw_text: string; source_id: string }[];
      const routing = entries.find((e) => e.source_id.startsWith('guide/routing.md'));
      assert.ok(routing && routing.raw_text.length > 8000 && routing.raw_text.length < SPLIT_OVER, JSON.stringify(entries.map((e) => [e.source_id, e.raw_text.length])));
      const { message, references } = await chat('How do I write a wildcard route that catches every path?');
      assert.ok(message.includes("app.get('/*splat'"), message);
      assert.equal(references[0]!.url, `${BASE}guide/routing#wildcards`);
      readsAsProse(message);
    });

    it('answers from a section split at its sub-headings and cites the sub-section it quotes', async () => {
      const { message, references } = await chat('How do I lift the file descriptor limit on Linux?');
      assert.ok(message.includes('`ulimit -n 65536`'), message);
      assert.deepEqual(references.map((r) => r.url), [`${BASE}guide/troubleshooting#requests-are-stalled-forever`]);
      readsAsProse(message);
    });
  });
}
