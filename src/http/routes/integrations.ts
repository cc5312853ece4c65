import { Type } from 'typebox';
import type { App } from '../deps.js';
import { INTEGRATION_TYPES } from '../../domain/search/integrations.js';
import { pageRequest } from '../../domain/pagination.js';
import { presentPage } from '../paginate.js';
import { Data, errorResponses, Message, NoContent, Nullable, Paginated, Timestamp, Uuid } from '../schemas.js';

const TypeField = Type.Unsafe<(typeof INTEGRATION_TYPES)[number]>({ type: 'string', enum: [...INTEGRATION_TYPES] });

/** Type-specific settings; accepted at the top level or inside `settings`. */
const settingFields = {
  welcome_message: Type.Optional(Nullable(Type.String({ maxLength: 2_000 }))),
  instructions: Type.Optional(Nullable(Type.String({ maxLength: 10_000 }))),
  persona: Type.Optional(Type.String({ maxLength: 50 })),
  unknown_answer_message: Type.Optional(Nullable(Type.String({ maxLength: 2_000, description: "chat's reply when the documentation holds no evidence for a question; null: a default sentence in the visitor's language (the chat's locale, else the question's)" }))),
  placeholder: Type.Optional(Type.String({ maxLength: 200 })),
  results_display: Type.Optional(Type.String({ maxLength: 50 })),
  label: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  typo_tolerance: Type.Optional(Type.Boolean({ description: 'Searches correct typos unless they ask otherwise (typo_tolerance); default true.' })),
};

const commonFields = {
  project: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  allowed_domains: Type.Optional(
    Nullable(Type.Array(Type.String({ maxLength: 255, pattern: '^[A-Za-z0-9.-]+(:[0-9]{1,5})?$' }), { maxItems: 100 })),
  ),
  is_active: Type.Optional(Type.Boolean()),
  settings: Type.Optional(Type.Object(settingFields)),
  ...settingFields,
};
const CollectionIds = Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 100 });

const IntegrationCreate = Type.Object({
  type: TypeField,
  name: Type.String({ minLength: 1, maxLength: 255 }),
  collection_ids: CollectionIds,
  ...commonFields,
});
const IntegrationUpdate = Type.Object({
  type: Type.Optional(TypeField),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  collection_ids: Type.Optional(CollectionIds),
  ...commonFields,
});

export const Integration = Type.Object({
  id: Uuid,
  name: Type.String(),
  project: Nullable(Type.String()),
  type: Type.String(),
  allowed_domains: Nullable(Type.Array(Type.String())),
  is_active: Type.Boolean(),
  settings: Type.Object({}, { additionalProperties: true }),
  collection_ids: Type.Array(Uuid),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const Params = Type.Object({ integration: Type.String({ maxLength: 64 }) });
const ListQuery = Type.Object({
  page: Type.Optional(Type.Unknown()),
  per_page: Type.Optional(Type.Unknown()),
  type: Type.Optional(Type.String({ maxLength: 50 })),
  project: Type.Optional(Type.String({ maxLength: 255 })),
});

export function integrationRoutes(app: App): void {
  const { integrations, config } = app.deps;
  const tags = ['integrations'];

  app.get('/integrations', {
    schema: { tags, summary: 'List integrations (filters: type, project)', querystring: ListQuery, response: { 200: Paginated(Integration), ...errorResponses } },
  }, async (request) => {
    const { page, per_page, type, project } = request.query;
    const result = await integrations.list(request.scope, pageRequest(page, per_page), { type, project });
    return presentPage(request, result, config.publicUrl);
  });

  app.post('/integrations', {
    schema: { tags, summary: 'Create an integration', body: IntegrationCreate, response: { 201: Data(Integration), ...errorResponses } },
  }, async (request, reply) => reply.status(201).send({ data: await integrations.create(request.scope, request.body) }));

  app.get('/integrations/:integration', {
    schema: { tags, summary: 'Show an integration', params: Params, response: { 200: Data(Integration), ...errorResponses } },
  }, async (request) => ({ data: await integrations.get(request.scope, request.params.integration) }));

  app.patch('/integrations/:integration', {
    schema: { tags, summary: 'Update an integration (type cannot change)', params: Params, body: IntegrationUpdate, response: { 200: Data(Integration), ...errorResponses } },
  }, async (request) => ({ data: await integrations.update(request.scope, request.params.integration, request.body) }));

  app.delete('/integrations/:integration', {
    schema: { tags, summary: 'Delete an integration', params: Params, response: { 204: NoContent, 404: Message } },
  }, async (request, reply) => {
    await integrations.delete(request.scope, request.params.integration);
    return reply.status(204).send(null);
  });
}
