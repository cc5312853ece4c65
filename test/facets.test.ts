/**
 * Facet counts on search (`facets[]=key`), on both search routes and both backends: counted over
 * every ranked hit, narrowed by the filters, honest about being exhaustive, bounded, validated,
 * and never another organisation's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FACET_VALUES } from '../src/domain/search/facets.js';
import { backends, searchBoxOver, startServer, type TestServer } from './helpers.js';

/** Sixty guides about the widget: a third in section api, half from 2024, every fifth a draft. */
const GUIDES = Array.from({ length: 60 }, (_, i) => ({
  source_type: 'article',
  source_id: `guide-${i}`,
  title: `Widget guide ${i}`,
  raw_text: `How to configure the search widget on your website, part ${i}.`,
  meta: { section: i % 3 === 0 ? 'api' : 'guides', year: i % 2 === 0 ? 2024 : 2025, draft: i % 5 === 0 },
  // Tags in searchable_meta; 'widget' in meta too for some, still counted once an entry.
  searchable_meta: { tags: i % 2 === 0 ? ['widget', 'setup'] : ['widget'] },
}));
const API_GUIDES = GUIDES.filter((g) => g.meta.section === 'api');
const count = <T>(items: T[], test: (item: T) => boolean) => items.filter(test).length;

for (const backend of backends()) {
  describe(`facets [${backend}]`, () => {
    let server: TestServer;
    let token: string;
    let otherToken: string;
    let docs: string;
    let docsCollection: string;
    let labels: string;
    let otherBox: string;
    let widget: string;
    const search = (integration: string, qs: string, t = token) => server.call('GET', `/api/v1/integrations/${integration}/search?${qs}`, { token: t });
    const viaWidget = (qs: string) => server.call('GET', `/api/v1/${widget.replace('/', '/widgets/')}/search?${qs}`, { headers: { origin: 'https://docs.example.com' } });

    /** A collection of `entries` (batches of at most 50) and a search box over it. */
    const boxOver = async (t: string, name: string, entries: object[]) => {
      const box = await searchBoxOver(server, t, name, entries.slice(0, 50));
      for (let i = 50; i < entries.length; i += 50) {
        const res = await server.call('POST', `/api/v1/collections/${box.collection}/entries/batch`, { token: t, body: { entries: entries.slice(i, i + 50) } });
        assert.equal(res.status, 200, JSON.stringify(res.body));
      }
      return box;
    };

    before(async () => {
      server = await startServer(backend);
      token = (await server.createOrg('Acme')).token;
      otherToken = (await server.createOrg('Other')).token;
      ({ integration: docs, collection: docsCollection } = await boxOver(token, 'Docs', GUIDES));
      // One entry holds 150 labels: more values than a facet shows.
      const many = Array.from({ length: 150 }, (_, i) => `l${String(i).padStart(3, '0')}`);
      labels = (await boxOver(token, 'Labels', [
        { source_type: 'article', source_id: 'many', title: 'Labelled widget', raw_text: 'A widget with many labels.', searchable_meta: { label: many } },
        { source_type: 'article', source_id: 'two', title: 'Labelled widget two', raw_text: 'A widget with two labels.', meta: { label: ['l149', 'l148'] } },
        { source_type: 'article', source_id: 'one', title: 'Labelled widget one', raw_text: 'A widget with one label.', meta: { label: 'l149', year: '2024' } },
      ])).integration;
      // Another organisation's guides about the widget, with values of their own.
      otherBox = (await boxOver(otherToken, 'Theirs', GUIDES.slice(0, 10).map((g) => ({ ...g, meta: { ...g.meta, section: 'secret', year: 1999 } })))).integration;
      widget = (await server.call('POST', '/api/v1/widgets', { token, body: { type: 'search', name: 'Search', integration_id: docs, websites: ['docs.example.com'] } })).body.data.key;
    });
    after(() => server.close());

    it('answers as before without facets[]', async () => {
      const res = await search(docs, 'query=widget');
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body).sort(), ['data', 'links', 'meta', 'summarisable']);
      const viaW = await viaWidget('query=widget');
      assert.equal(viaW.status, 200);
      assert.deepEqual(Object.keys(viaW.body).sort(), ['data', 'links', 'meta', 'session_id', 'summarisable']);
    });

    it('counts every ranked hit, not only the page, and says the counts are bounded when the candidates were', async () => {
      const res = await search(docs, 'query=widget&per_page=2&facets[]=section&facets[]=tags&facets[]=nowhere');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.length, 2);
      const { total } = res.body.meta;
      assert.ok(total > 2, `total ${total}`);
      // Every guide has one section: the counts add up to the hits ranked, whichever they are.
      const { section, tags, nowhere } = res.body.facets;
      assert.deepEqual(Object.keys(section).sort(), ['api', 'guides']);
      assert.equal(section.api + section.guides, total);
      assert.equal(tags.widget, total);
      assert.ok(tags.setup > 0 && tags.setup < total);
      assert.deepEqual(nowhere, {});
      // Sixty guides pass, more than the candidates a search ranks (50 by each signal).
      assert.equal(res.body.facets_exhaustive, false);
      // The same counts on page 2.
      const next = await search(docs, 'query=widget&per_page=2&page=2&facets[]=section&facets[]=tags&facets[]=nowhere');
      assert.deepEqual(next.body.facets, res.body.facets);
    });

    it('counts exactly what the filters let through, numbers and booleans as strings, and says so', async () => {
      // Threshold 0 ranks every candidate: the twenty api guides, all of them.
      const res = await search(docs, 'query=widget&threshold=0&meta[section]=api&facets[]=section&facets[]=year&facets[]=draft&facets[]=tags');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.meta.total, API_GUIDES.length);
      assert.deepEqual(res.body.facets, {
        section: { api: 20 },
        year: { 2024: count(API_GUIDES, (g) => g.meta.year === 2024), 2025: count(API_GUIDES, (g) => g.meta.year === 2025) },
        draft: { true: count(API_GUIDES, (g) => g.meta.draft), false: count(API_GUIDES, (g) => !g.meta.draft) },
        tags: { widget: 20, setup: count(API_GUIDES, (g) => g.searchable_meta.tags.includes('setup')) },
      });
      assert.equal(res.body.facets_exhaustive, true);
      // A filter on an array value narrows the counts as well.
      const drafts = await search(docs, 'query=widget&threshold=0&meta[section]=api&meta[draft]=true&facets=year');
      const draftGuides = API_GUIDES.filter((g) => g.meta.draft);
      assert.deepEqual(drafts.body.facets, { year: { 2024: count(draftGuides, (g) => g.meta.year === 2024), 2025: count(draftGuides, (g) => g.meta.year === 2025) } });
      assert.equal(drafts.body.facets_exhaustive, true);
    });

    it('is not exhaustive where storage cannot tell: a chunk without a vector of the query’s model, or vectors found by HNSW', async () => {
      const db = server.container.db;
      const exhaustive = async () => {
        const res = await search(docs, 'query=widget&threshold=0&meta[section]=api&facets[]=section');
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return res.body.facets_exhaustive;
      };
      assert.equal(await exhaustive(), true);
      // Collections of more than 5,000 chunks are searched through HNSW, whose scan may stop short.
      await db.query('UPDATE collection_stats SET chunk_count = chunk_count + 6000 WHERE collection_id = $1', [docsCollection]);
      try {
        assert.equal(await exhaustive(), false);
      } finally {
        await db.query('UPDATE collection_stats SET chunk_count = chunk_count - 6000 WHERE collection_id = $1', [docsCollection]);
      }
      // A chunk of another model, awaiting lore reindex, is not compared by the vector pass.
      const [chunk] = await db.query<{ id: string }>(
        `SELECT c.id FROM chunks c JOIN entries e ON e.id = c.entry_id WHERE e.source_id = 'guide-3' AND e.collection_id = $1`,
        [docsCollection],
      );
      await db.query('UPDATE chunks SET dims = dims + 1 WHERE id = $1', [chunk!.id]);
      await db.query('UPDATE chunk_vectors SET dims = dims + 1 WHERE chunk_id = $1', [chunk!.id]);
      try {
        assert.equal(await exhaustive(), false);
      } finally {
        await db.query('UPDATE chunks SET dims = dims - 1 WHERE id = $1', [chunk!.id]);
        await db.query('UPDATE chunk_vectors SET dims = dims - 1 WHERE chunk_id = $1', [chunk!.id]);
      }
      assert.equal(await exhaustive(), true);
    });

    it(`shows at most ${FACET_VALUES} values a key, the most frequent first, counting an entry once a value`, async () => {
      const res = await search(labels, 'query=labelled+widget&threshold=0&facets[]=label&facets[]=year&facets[]=label');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.meta.total, 3);
      const label: Record<string, number> = res.body.facets.label;
      assert.equal(Object.keys(label).length, FACET_VALUES);
      assert.equal(label.l149, 3);
      assert.equal(label.l148, 2);
      // The other 148 count 1 each: the first 98 by value are shown.
      assert.equal(label.l097, 1);
      assert.equal(label.l098, undefined);
      assert.equal(label.l147, undefined);
      assert.deepEqual(res.body.facets.year, { 2024: 1 });
      assert.deepEqual(Object.keys(res.body.facets), ['label', 'year']);
      assert.equal(res.body.facets_exhaustive, true);
    });

    it('never counts another organisation’s entries', async () => {
      const res = await search(docs, 'query=widget&threshold=0&facets[]=section&facets[]=year');
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body.facets.section).sort(), ['api', 'guides']);
      assert.deepEqual(Object.keys(res.body.facets.year).sort(), ['2024', '2025']);
      const theirs = await search(otherBox, 'query=widget&threshold=0&facets[]=section&facets[]=year', otherToken);
      assert.deepEqual(theirs.body.facets, { section: { secret: 10 }, year: { 1999: 10 } });
      assert.equal(theirs.body.facets_exhaustive, true);
      assert.equal((await search(otherBox, 'query=widget&facets[]=section')).status, 404);
    });

    it('counts through a search widget too', async () => {
      const res = await viaWidget('query=widget&threshold=0&meta[section]=api&facets[]=section&facets[]=draft');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.facets.section, { api: 20 });
      assert.equal(res.body.facets.draft.true, count(API_GUIDES, (g) => g.meta.draft));
      assert.equal(res.body.facets_exhaustive, true);
      assert.equal(typeof res.body.session_id, 'string');
    });

    it('refuses too many keys, empty or long keys and non-strings with 422, on both routes', async () => {
      const long = 'k'.repeat(101);
      const cases: [string, string[]][] = [
        ['facets[]=a&facets[]=b&facets[]=c&facets[]=d&facets[]=e&facets[]=f', ['facets']],
        [`facets[]=a&facets[]=&facets[]=${long}`, ['facets.1', 'facets.2']],
        ['facets[0][x]=a', ['facets.0']],
        ['facets[x]=a', ['facets']],
        // Every problem at once, beside the other parameters'.
        ['facets[]=&threshold=2', ['facets.0', 'threshold']],
      ];
      for (const [qs, fields] of cases) {
        for (const res of [await search(docs, `query=widget&${qs}`), await viaWidget(`query=widget&${qs}`)]) {
          assert.equal(res.status, 422, `${qs}: ${JSON.stringify(res.body)}`);
          assert.deepEqual(Object.keys(res.body.errors).sort(), fields, qs);
        }
      }
      // Repeated keys count once: five distinct keys are allowed.
      const five = await search(docs, 'query=widget&facets[]=a&facets[]=b&facets[]=c&facets[]=d&facets[]=e&facets[]=a');
      assert.equal(five.status, 200, JSON.stringify(five.body));
      assert.deepEqual(Object.keys(five.body.facets), ['a', 'b', 'c', 'd', 'e']);
      // Keys an object's prototype has are keys like any other.
      const hostile = await search(docs, 'query=widget&facets[]=__proto__&facets[]=constructor&facets[]=toString');
      assert.equal(hostile.status, 200, JSON.stringify(hostile.body));
      assert.equal(JSON.stringify(hostile.body.facets), '{"__proto__":{},"constructor":{},"toString":{}}');
    });

    it('reads entries’ metadata once for facets and sorts together, and not at all without them', async () => {
      const db = server.container.db;
      const query = db.query.bind(db);
      const statements: string[] = [];
      db.query = ((sql: string, ...rest: unknown[]) => {
        statements.push(sql);
        return (query as (...args: unknown[]) => unknown)(sql, ...rest);
      }) as typeof db.query;
      const metadataReads = async (qs: string) => {
        statements.length = 0;
        assert.equal((await search(docs, `query=widget&${qs}`)).status, 200);
        return statements.filter((sql) => sql.includes('SELECT id, meta, searchable_meta FROM entries')).length;
      };
      try {
        assert.equal(await metadataReads('per_page=5'), 0);
        assert.ok(!statements.some((sql) => sql.includes('dims <>')), 'no completeness check without facets');
        assert.equal(await metadataReads('facets[]=section'), 1);
        assert.equal(await metadataReads('facets[]=section&sort[0][field]=year&sort[0][direction]=asc&sort[0][type]=number'), 1);
      } finally {
        db.query = query;
      }
    });
  });
}
