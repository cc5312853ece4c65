import { Type } from 'typebox';
import type { App } from '../deps.js';
import { pageRequest } from '../../domain/pagination.js';
import { MAX_URL_BYTES } from '../../domain/ingestion/pages.js';
import { presentPage } from '../paginate.js';
import { Data, Entry, EntryCreate, errorResponses, Message, NoContent, Paginated, PageQuery, Permission, Uuid } from '../schemas.js';

const Me = Type.Object({
  organisation: Type.Object({ id: Type.Integer(), public_id: Type.String(), name: Type.String() }),
  permissions: Type.Array(Permission),
  sources: Type.Array(Type.Object({ id: Uuid, name: Type.String() }), { description: 'only the sources this credential may access' }),
});

const { title, meta, searchable_meta, raw_text } = EntryCreate.properties;
const Url = Type.String({ minLength: 1, maxLength: MAX_URL_BYTES, description: 'absolute http(s) URL: the page identity (stored as source_id and source_url)' });
const PageUpsert = Type.Object({ url: Url, title, raw_text, meta, searchable_meta });
const PageUpdate = Type.Object({ url: Type.Optional(Url), title, raw_text: Type.Optional(raw_text), meta, searchable_meta });

const SourceParams = Type.Object({ source: Type.String({ maxLength: 64 }) });
const PageParams = Type.Object({ source: Type.String({ maxLength: 64 }), page: Type.String({ maxLength: 64 }) });

// 403: an API key without the permission, a source outside its limit or of another organisation.
const responses = { ...errorResponses, 403: Message };
// Callable with an organisation API key as well as with an API v1 token.
const config = { apiKeys: true };

/** GET /me and the pages of a source (a collection): list, upsert by url, update, delete. */
export function pageRoutes(app: App): void {
  const { pages } = app.deps;
  const { publicUrl } = app.deps.config;
  const tags = ['pages'];
  const base = '/sources/:source/pages';

  app.get('/me', {
    config,
    schema: { tags, summary: "The credential's organisation, permissions and accessible sources", response: { 200: Me, ...responses } },
  }, async (request) => pages.me(request.principal));

  app.get(base, {
    config,
    schema: { tags, summary: 'List the pages of a source (pages.read)', params: SourceParams, querystring: PageQuery, response: { 200: Paginated(Entry), ...responses } },
  }, async (request) => {
    const page = pageRequest(request.query.page, request.query.per_page);
    return presentPage(request, await pages.list(request.principal, request.params.source, page), publicUrl);
  });

  app.post(base, {
    config,
    schema: {
      tags,
      summary: 'Create or replace the page with this url (pages.write): 201 new, 200 updated',
      params: SourceParams,
      body: PageUpsert,
      response: { 200: Data(Entry), 201: Data(Entry), ...responses },
    },
  }, async (request, reply) => {
    const { page, created } = await pages.upsert(request.principal, request.params.source, request.body);
    return reply.status(created ? 201 : 200).send({ data: page });
  });

  app.patch(`${base}/:page`, {
    config,
    schema: { tags, summary: 'Update a page (pages.write)', params: PageParams, body: PageUpdate, response: { 200: Data(Entry), ...responses } },
  }, async (request) => ({ data: await pages.update(request.principal, request.params.source, request.params.page, request.body) }));

  app.delete(`${base}/:page`, {
    config,
    schema: { tags, summary: 'Delete a page (pages.write)', params: PageParams, response: { 204: NoContent, ...responses } },
  }, async (request, reply) => {
    await pages.delete(request.principal, request.params.source, request.params.page);
    return reply.status(204).send(null);
  });
}
