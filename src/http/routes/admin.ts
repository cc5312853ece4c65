import { Type } from 'typebox';
import type { App } from '../deps.js';
import { masterAuth } from '../auth.js';
import { pageRequest } from '../../domain/pagination.js';
import { presentPage } from '../paginate.js';
import { NoContent, Data, errorResponses, Message, Organisation, Paginated, PageQuery } from '../schemas.js';

const Credits = Type.Union([Type.Integer({ minimum: 0, maximum: 2_147_483_647 }), Type.Null()]);
const OrgId = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,9}$' }) });
const TokenCreated = Type.Object({ token: Type.String(), token_id: Type.String() });

/** Instance administration (Authorization: Bearer <LORE_MASTER_KEY>): organisations and API v1 tokens. */
export async function adminRoutes(app: App): Promise<void> {
  const { organisations, usage, masterKeyHash, config } = app.deps;
  app.addHook('onRequest', masterAuth(masterKeyHash));
  const tags = ['admin'];

  app.post('/organisations', {
    schema: {
      tags,
      summary: 'Create an organisation and its first API v1 token (shown once)',
      body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 255 }) }),
      response: { 201: Type.Object({ data: Organisation, token: Type.String(), token_id: Type.String() }), ...errorResponses },
    },
  }, async (request, reply) => {
    const created = await organisations.create(request.body.name);
    return reply.status(201).send({ data: created.organisation, token: created.token, token_id: created.tokenId });
  });

  app.get('/organisations', {
    schema: { tags, summary: 'List organisations', querystring: PageQuery, response: { 200: Paginated(Organisation) } },
  }, async (request) => {
    const page = await organisations.list(pageRequest(request.query.page, request.query.per_page));
    return presentPage(request, page, config.publicUrl);
  });

  app.patch('/organisations/:id', {
    schema: {
      tags,
      summary: 'Update an organisation (name, answer_credits, usage_quota; null = unlimited)',
      params: OrgId,
      body: Type.Object({
        name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
        answer_credits: Type.Optional(Credits),
        usage_quota: Type.Optional(Credits),
      }),
      response: { 200: Data(Organisation), ...errorResponses },
    },
  }, async (request) => {
    const updated = await organisations.update(Number(request.params.id), request.body);
    // This process applies a new quota to the very next request (others: answers at once,
    // other requests within one usage flush).
    usage.forget(updated.id);
    return { data: updated };
  });

  app.post('/organisations/:id/tokens', {
    schema: { tags, summary: 'Issue another API v1 token (shown once)', params: OrgId, response: { 201: TokenCreated, 404: Message } },
  }, async (request, reply) => {
    const issued = await organisations.createToken(Number(request.params.id));
    return reply.status(201).send({ token: issued.token, token_id: issued.tokenId });
  });

  app.delete('/tokens/:token_id', {
    schema: {
      tags,
      summary: 'Revoke an API v1 token',
      params: Type.Object({ token_id: Type.String({ maxLength: 64 }) }),
      response: { 204: NoContent, 404: Message },
    },
  }, async (request, reply) => {
    await organisations.revokeToken(request.params.token_id);
    return reply.status(204).send(null);
  });
}
