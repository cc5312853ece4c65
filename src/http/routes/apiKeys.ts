import { Type } from 'typebox';
import type { App } from '../deps.js';
import { PERMISSIONS } from '../../shared/permissions.js';
import { pageRequest } from '../../domain/pagination.js';
import { presentPage } from '../paginate.js';
import { errorResponses, Message, NoContent, Paginated, PageQuery, Permission, Timestamp, Uuid } from '../schemas.js';

const ApiKey = Type.Object({
  id: Type.String({ description: 'public part of the key (`lore_key_<id>_…`); what DELETE takes' }),
  name: Type.String(),
  permissions: Type.Array(Permission),
  source_ids: Type.Union([Type.Array(Uuid), Type.Null()], { description: 'collection ids the key is limited to; null = every source' }),
  created_at: Timestamp,
});

const ApiKeyCreate = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  permissions: Type.Array(Permission, { minItems: 1, maxItems: PERMISSIONS.length, uniqueItems: true }),
  source_ids: Type.Optional(
    Type.Union([Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 100 }), Type.Null()], {
      description: 'collection ids of this organisation; null or absent = every source',
    }),
  ),
});

const Params = Type.Object({ id: Type.String({ maxLength: 64 }) });
// Organisation management: API v1 tokens only (keys get 403 from the auth hook).
const responses = { ...errorResponses, 403: Message };

/** Organisation API keys: create (the key is shown once), list, revoke. */
export function apiKeyRoutes(app: App): void {
  const { apiKeys, config } = app.deps;
  const tags = ['api-keys'];

  app.post('/api-keys', {
    schema: {
      tags,
      summary: 'Create an organisation API key (`key` is shown once; only its SHA-256 is stored)',
      body: ApiKeyCreate,
      response: { 201: Type.Object({ data: ApiKey, key: Type.String() }), ...responses },
    },
  }, async (request, reply) => {
    const { apiKey, key } = await apiKeys.create(request.scope, request.body);
    return reply.status(201).send({ data: apiKey, key });
  });

  app.get('/api-keys', {
    schema: { tags, summary: 'List active API keys (never their secrets)', querystring: PageQuery, response: { 200: Paginated(ApiKey), ...responses } },
  }, async (request) =>
    presentPage(request, await apiKeys.list(request.scope, pageRequest(request.query.page, request.query.per_page)), config.publicUrl));

  app.delete('/api-keys/:id', {
    schema: { tags, summary: 'Revoke an API key (refused from the next request on)', params: Params, response: { 204: NoContent, ...responses } },
  }, async (request, reply) => {
    await apiKeys.revoke(request.scope, request.params.id);
    return reply.status(204).send(null);
  });
}
