import { Type } from 'typebox';
import type { App } from '../deps.js';
import { pageRequest } from '../../domain/pagination.js';
import { presentPage } from '../paginate.js';
import { Data, errorResponses, NoContent, Nullable, Paginated, PageQuery } from '../schemas.js';

const CollectionParams = Type.Object({ collection: Type.String({ maxLength: 64 }) });
const CrawlerParams = Type.Object({ collection: Type.String({ maxLength: 64 }), crawler: Type.String({ maxLength: 64 }) });
const Patterns = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 50, description: 'gitignore-style patterns over the URL path' });

const Settings = {
  start_url: Type.String({ minLength: 1, maxLength: 2048, description: 'where the crawl starts; its origin and path are the scope' }),
  include: Type.Optional(Patterns),
  exclude: Type.Optional(Patterns),
  max_pages: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'pages fetched a run, at most (default 1,000)' })),
  keep_gone: Type.Optional(Type.Boolean({ description: 'keep entries of pages that now answer 404 or 410 (default false: delete them)' })),
  sections: Type.Optional(Type.Boolean({ description: 'one entry per section of a page (source_id URL#slug), as lore import --sections makes them (default false: one a page)' })),
  schedule_hours: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 8_760, description: 'hours between runs; null: only when asked (default)' }))),
};
const CrawlerCreate = Type.Object({ type: Type.Optional(Type.Literal('website')), ...Settings }, { additionalProperties: false });
const CrawlerUpdate = Type.Object(
  { ...Settings, start_url: Type.Optional(Settings.start_url) },
  { additionalProperties: false, minProperties: 1 },
);
const Page = Type.Object({ url: Type.String(), reason: Type.String() });
const Crawler = Type.Object({
  id: Type.String(),
  type: Type.Literal('website'),
  collection_id: Type.String(),
  start_url: Type.String(),
  include: Type.Array(Type.String()),
  exclude: Type.Array(Type.String()),
  max_pages: Type.Integer(),
  keep_gone: Type.Boolean(),
  sections: Type.Boolean(),
  schedule_hours: Nullable(Type.Integer()),
  status: Type.Union([Type.Literal('idle'), Type.Literal('queued'), Type.Literal('running'), Type.Literal('interrupted')], {
    description:
      '`running` while a Lore process crawls it; `interrupted` when the process running it stopped reporting (it died) and none has taken the run up yet — it goes on from its last save within the lease (30 s); `queued` when due, or when its run gave its slot to another organisation and waits to go on; `idle` otherwise',
  }),
  next_run_at: Nullable(Type.String()),
  progress: Nullable(Type.Object({ found: Type.Integer(), fetched: Type.Integer(), written: Type.Integer(), failed: Type.Integer() })),
  last_seen_at: Nullable(Type.String({ description: 'when the process running the run in progress last reported; null between runs' })),
  last_run: Nullable(
    Type.Object({
      started_at: Type.String(),
      finished_at: Type.String(),
      outcome: Type.Union([Type.Literal('finished'), Type.Literal('failed')]),
      error: Nullable(Type.String()),
      report: Type.Object({
        found: Type.Integer(),
        fetched: Type.Integer(),
        created: Type.Integer(),
        updated: Type.Integer(),
        unchanged: Type.Integer(),
        deleted: Type.Integer(),
        skipped: Type.Array(Page),
        failed: Type.Array(Page),
        skipped_total: Type.Integer(),
        failed_total: Type.Integer(),
      }),
    }),
  ),
  created_at: Type.String(),
  updated_at: Type.String(),
});

/**
 * Website crawlers of a collection (domain/crawl/crawlers.ts): created with a start URL, run at
 * once and then every `schedule_hours`, or when asked (POST …/run); GET shows the status, the
 * progress of a run and the last run's report.
 */
export function crawlerRoutes(app: App): void {
  const { crawlers, config } = app.deps;
  const tags = ['crawlers'];
  const base = '/collections/:collection/crawlers';
  const present = <T extends object>(crawler: T) => ({ ...crawler, type: 'website' as const });

  app.get(base, {
    schema: { tags, summary: 'List the website crawlers of a collection', params: CollectionParams, querystring: PageQuery, response: { 200: Paginated(Crawler), ...errorResponses } },
  }, async (request) => {
    const page = await crawlers.list(request.scope, request.params.collection, pageRequest(request.query.page, request.query.per_page));
    return presentPage(request, { ...page, items: page.items.map(present) }, config.publicUrl);
  });

  app.post(base, {
    schema: { tags, summary: 'Create a website crawler (its first run starts at once)', params: CollectionParams, body: CrawlerCreate, response: { 201: Data(Crawler), ...errorResponses } },
  }, async (request, reply) => {
    const { type: _type, ...body } = request.body;
    const crawler = await crawlers.create(request.scope, request.params.collection, {
      start_url: body.start_url,
      include: body.include ?? [],
      exclude: body.exclude ?? [],
      max_pages: body.max_pages ?? 1000,
      keep_gone: body.keep_gone ?? false,
      sections: body.sections ?? false,
      schedule_hours: body.schedule_hours ?? null,
    });
    return reply.status(201).send({ data: present(crawler) });
  });

  app.get(`${base}/:crawler`, {
    schema: { tags, summary: "A crawler: status, progress and the last run's report", params: CrawlerParams, response: { 200: Data(Crawler), ...errorResponses } },
  }, async (request) => ({ data: present(await crawlers.get(request.scope, request.params.collection, request.params.crawler)) }));

  app.patch(`${base}/:crawler`, {
    schema: { tags, summary: 'Change a crawler', params: CrawlerParams, body: CrawlerUpdate, response: { 200: Data(Crawler), ...errorResponses } },
  }, async (request) => ({ data: present(await crawlers.update(request.scope, request.params.collection, request.params.crawler, request.body)) }));

  app.post(`${base}/:crawler/run`, {
    schema: { tags, summary: 'Run a crawler now (a run in progress goes on)', params: CrawlerParams, response: { 202: Data(Crawler), ...errorResponses } },
  }, async (request, reply) => reply.status(202).send({ data: present(await crawlers.run(request.scope, request.params.collection, request.params.crawler)) }));

  app.delete(`${base}/:crawler`, {
    schema: { tags, summary: 'Delete a crawler (its pages stay in the collection)', params: CrawlerParams, response: { 204: NoContent, ...errorResponses } },
  }, async (request, reply) => {
    await crawlers.delete(request.scope, request.params.collection, request.params.crawler);
    return reply.status(204).send(null);
  });
}
