/**
 * A heading that names the query, over HTTP on both backends: the section so named comes
 * before sections that only mention its words (more often, in longer text), also while its
 * last word is being typed; `explain=true` shows the heading's part. The embedder is
 * constant, so every ranking here is the words'.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends, constantEmbedder, searchBoxOver, startServer, type TestServer } from './helpers.js';

const DOCS = [
  {
    source_id: 'guide/ssr.md',
    title: 'Server-Side Rendering',
    raw_text: '# Server-Side Rendering\n\n## Vite CLI\n\nThe CLI commands work in SSR projects too; the server entry is built with them.',
  },
  {
    source_id: 'guide/index.md',
    title: 'Getting Started',
    raw_text:
      '# Getting Started\n\nVite ships a command line interface. In a project where Vite is installed, use the vite binary in npm scripts, ' +
      'or run it directly with npx vite. The Vite CLI starts a dev server; the CLI also builds and previews. ' +
      'Every Vite CLI command takes --config, and the CLI prints its help with --help.',
  },
  {
    source_id: 'guide/scripts.md',
    title: 'Scripts',
    raw_text: '# Scripts\n\n## Using the Vite CLI in package scripts\n\nAdd the vite CLI to package.json scripts: dev, build and preview.',
  },
];

interface Hit { source_id: string; score_breakdown: { bm25: number; heading: number; similarity: number } }

for (const backend of backends()) {
  describe(`headings that name the query [${backend}]`, () => {
    let server: TestServer;
    let token: string;
    let integration: string;
    const search = async (query: string): Promise<Hit[]> => {
      const res = await server.call('GET', `/api/v1/integrations/${integration}/search?query=${encodeURIComponent(query)}&threshold=0&explain=true`, { token });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return (res.body.data as Hit[]).filter((h) => h.score_breakdown.bm25 > 0);
    };

    before(async () => {
      server = await startServer(backend, { embedder: constantEmbedder });
      token = (await server.createOrg('Acme')).token;
      ({ integration } = await searchBoxOver(server, token, 'Docs', DOCS.map((d) => ({ source_type: 'doc', ...d }))));
    });
    after(() => server.close());

    it('ranks the section a heading names before sections that say its words more often', async () => {
      const hits = await search('vite cli');
      assert.deepEqual(hits.map((h) => h.source_id), ['guide/ssr.md', 'guide/scripts.md', 'guide/index.md']);
      const [named, partly, mentions] = hits;
      // The words alone rank the longer page first: only the heading puts the section ahead.
      assert.ok(mentions!.score_breakdown.bm25 > named!.score_breakdown.bm25, JSON.stringify(hits));
      assert.equal(named!.score_breakdown.heading, 1);
      // "Using the Vite CLI in package scripts" holds the query and three words more.
      assert.ok(partly!.score_breakdown.heading > 0 && partly!.score_breakdown.heading < 1, JSON.stringify(partly));
      assert.equal(mentions!.score_breakdown.heading, 0);
    });

    it('counts the word being typed by the term it begins', async () => {
      const hits = await search('vite cl');
      assert.equal(hits[0]?.source_id, 'guide/ssr.md');
      assert.ok(hits[0]!.score_breakdown.heading > 0.5, JSON.stringify(hits[0]));
    });

    it('names nothing for a query of other words, little for a heading holding one of them', async () => {
      const hits = await search('dev server');
      assert.ok(hits.length > 0);
      const part = (id: string) => hits.find((h) => h.source_id === id)?.score_breakdown.heading;
      assert.equal(part('guide/index.md'), 0, JSON.stringify(hits));
      assert.equal(part('guide/scripts.md'), 0, JSON.stringify(hits));
      // The page's title "Server-Side Rendering", above the section, says "server" and two words more.
      assert.ok(part('guide/ssr.md')! > 0 && part('guide/ssr.md')! < 0.2, JSON.stringify(hits));
    });

    it('counts the headings above a section: a query naming a page lifts the chunks under its sub-headings', async () => {
      const hits = await search('server-side rendering');
      assert.equal(hits[0]?.source_id, 'guide/ssr.md', JSON.stringify(hits));
      assert.equal(hits[0]!.score_breakdown.heading, 1);
    });
  });
}
