import { Type } from 'typebox';
import type { App } from '../deps.js';
import { ValidationError } from '../../domain/errors.js';
import { ENTRY_FIELDS, type EntryField } from '../../domain/model.js';
import { pageRequest } from '../../domain/pagination.js';
import { presentPage } from '../paginate.js';
import { NoContent, Data, Entry, EntryBatch, EntryCreate, EntryUpdate, EntryUpsert, errorResponses, Paginated, PageQuery } from '../schemas.js';

const CollectionParams = Type.Object({ collection: Type.String({ maxLength: 64 }) });
const EntryParams = Type.Object({ collection: Type.String({ maxLength: 64 }), entry: Type.String({ maxLength: 64 }) });
const SourceParams = Type.Object({
  collection: Type.String({ maxLength: 64 }),
  sourceType: Type.String({ maxLength: 100 }),
  sourceId: Type.String({ maxLength: 500 }),
});

export function entryRoutes(app: App): void {
  const { entries, config } = app.deps;
  const tags = ['entries'];
  const base = '/collections/:collection/entries';

  app.get(base, {
    schema: {
      tags,
      summary: 'List entries (optionally only those of one source_type, and only some fields of each)',
      description: '`fields`: a comma-separated list of entry fields to return (`id` always comes): `fields=source_id,source_url,meta` lists a large collection without its texts.',
      params: CollectionParams,
      querystring: Type.Object({
        ...PageQuery.properties,
        source_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
        fields: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        search: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'only entries whose title, source_id or source_url contains this (ignoring case)' })),
      }),
      response: { 200: Paginated(Type.Partial(Entry)), ...errorResponses },
    },
  }, async (request) => {
    const page = pageRequest(request.query.page, request.query.per_page);
    const { collection } = request.params;
    const { source_type: sourceType, fields, search } = request.query;
    const filter = { ...(sourceType !== undefined && { sourceType }), ...(search !== undefined && { search }) };
    const listed = fields === undefined ? await entries.list(request.scope, collection, page, filter) : await entries.listFields(request.scope, collection, page, filter, entryFields(fields));
    return presentPage(request, listed, config.publicUrl);
  });

  app.post(base, {
    schema: { tags, summary: 'Create an entry (chunked, embedded and indexed before the response)', params: CollectionParams, body: EntryCreate, response: { 201: Data(Entry), ...errorResponses } },
  }, async (request, reply) =>
    reply.status(201).send({ data: await entries.create(request.scope, request.params.collection, request.body) }));

  app.put(`${base}/upsert`, {
    schema: { tags, summary: 'Create or replace the entry with this (source_type, source_id)', params: CollectionParams, body: EntryUpsert, response: { 200: Data(Entry), 201: Data(Entry), ...errorResponses } },
  }, async (request, reply) => {
    const { entry, created } = await entries.upsert(request.scope, request.params.collection, request.body);
    return reply.status(created ? 201 : 200).send({ data: entry });
  });

  app.post(`${base}/batch`, {
    schema: {
      tags,
      summary: 'Upsert up to 50 entries, all or nothing',
      params: CollectionParams,
      body: EntryBatch,
      response: { 200: Type.Object({ created: Type.Integer(), updated: Type.Integer() }), ...errorResponses },
    },
  }, async (request) => entries.batchUpsert(request.scope, request.params.collection, request.body.entries));

  app.patch(`${base}/:entry`, {
    schema: { tags, summary: 'Update an entry', params: EntryParams, body: EntryUpdate, response: { 200: Data(Entry), ...errorResponses } },
  }, async (request) => ({
    data: await entries.update(request.scope, request.params.collection, request.params.entry, request.body),
  }));

  app.delete(`${base}/:entry`, {
    schema: { tags, summary: 'Delete an entry', params: EntryParams, response: { 204: NoContent, ...errorResponses } },
  }, async (request, reply) => {
    await entries.delete(request.scope, request.params.collection, request.params.entry);
    return reply.status(204).send(null);
  });

  app.delete(`${base}/by-source/:sourceType/:sourceId`, {
    schema: { tags, summary: 'Delete the entry with this source pair', params: SourceParams, response: { 204: NoContent, ...errorResponses } },
  }, async (request, reply) => {
    const { collection, sourceType, sourceId } = request.params;
    await entries.deleteBySource(request.scope, collection, sourceType, sourceId);
    return reply.status(204).send(null);
  });
}

/** `fields=a,b` as entry fields; 422 naming any other. */
function entryFields(list: string): EntryField[] {
  const fields = list.split(',').map((f) => f.trim());
  const unknown = fields.filter((f) => !(ENTRY_FIELDS as readonly string[]).includes(f));
  if (unknown.length > 0) throw ValidationError.field('fields', `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((f) => JSON.stringify(f)).join(', ')}; one of ${ENTRY_FIELDS.join(', ')}`);
  return fields as EntryField[];
}
