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
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SPLIT_OVER } from '../src/domain/text/sections.js';
import { importFolder } from '../src/importCli.js';
import { backends, startServer, type TestServer } from './helpers.js';

const BASE = 'https://docs.acme.test/';
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

    it('answers from a section split at its sub-headings and cites the sub-section it quotes', async () => {
      const { message, references } = await chat('How do I lift the file descriptor limit on Linux?');
      assert.ok(message.includes('`ulimit -n 65536`'), message);
      assert.deepEqual(references.map((r) => r.url), [`${BASE}guide/troubleshooting#requests-are-stalled-forever`]);
      readsAsProse(message);
    });
  });
}
