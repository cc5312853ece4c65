import { Type } from 'typebox';
import type { App } from '../deps.js';
import { pageRequest } from '../../domain/pagination.js';
import { presentPage } from '../paginate.js';
import { NoContent, Collection, CollectionWrite, Data, errorResponses, Paginated, PageQuery } from '../schemas.js';

const Params = Type.Object({ collection: Type.String({ maxLength: 64 }) });

export function collectionRoutes(app: App): void {
  const { collections, config } = app.deps;
  const tags = ['collections'];

  app.get('/collections', {
    schema: { tags, summary: 'List collections', querystring: PageQuery, response: { 200: Paginated(Collection), ...errorResponses } },
  }, async (request) =>
    presentPage(request, await collections.list(request.scope, pageRequest(request.query.page, request.query.per_page)), config.publicUrl));

  app.post('/collections', {
    schema: { tags, summary: 'Create a collection', body: CollectionWrite, response: { 201: Data(Collection), ...errorResponses } },
  }, async (request, reply) => reply.status(201).send({ data: await collections.create(request.scope, request.body.name) }));

  app.patch('/collections/:collection', {
    schema: { tags, summary: 'Rename a collection', params: Params, body: CollectionWrite, response: { 200: Data(Collection), ...errorResponses } },
  }, async (request) => ({ data: await collections.update(request.scope, request.params.collection, request.body.name) }));

  app.delete('/collections/:collection', {
    schema: { tags, summary: 'Delete a collection with all its entries', params: Params, response: { 204: NoContent, ...errorResponses } },
  }, async (request, reply) => {
    await collections.delete(request.scope, request.params.collection);
    return reply.status(204).send(null);
  });
}
