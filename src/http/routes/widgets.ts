import { Type } from 'typebox';
import type { App } from '../deps.js';
import { pageRequest } from '../../domain/pagination.js';
import { presentPage } from '../paginate.js';
import { presentWidget } from '../presenters/widgets.js';
import { errorResponses, Message, NoContent, Paginated, PageQuery } from '../schemas.js';
import { Widget, WidgetCreate, WidgetUpdate } from '../widgetSchemas.js';

const Params = Type.Object({ widget: Type.String({ maxLength: 64 }) });
// Organisation management: API v1 tokens only (keys get 403 from the auth hook).
const responses = { ...errorResponses, 403: Message };

/** Widget management: create (secrets shown once), list, read, update, delete, rotate the secret key. */
export function widgetRoutes(app: App): void {
  const { widgets, config } = app.deps;
  const tags = ['widgets'];

  app.post('/widgets', {
    schema: {
      tags,
      summary: 'Create a widget (`secret_key` and `identity_secret` are shown once)',
      body: WidgetCreate,
      response: { 201: Type.Object({ data: Widget, secret_key: Type.String(), identity_secret: Type.String() }), ...responses },
    },
  }, async (request, reply) => {
    const { widget, secretKey, identitySecret } = await widgets.create(request.scope, request.body);
    return reply.status(201).send({ data: presentWidget(widget), secret_key: secretKey, identity_secret: identitySecret });
  });

  app.get('/widgets', {
    schema: { tags, summary: 'List widgets (never their secrets)', querystring: PageQuery, response: { 200: Paginated(Widget), ...responses } },
  }, async (request) => {
    const page = await widgets.list(request.scope, pageRequest(request.query.page, request.query.per_page));
    return presentPage(request, { ...page, items: page.items.map(presentWidget) }, config.publicUrl);
  });

  app.get('/widgets/:widget', {
    schema: { tags, summary: 'Get a widget', params: Params, response: { 200: Type.Object({ data: Widget }), ...responses } },
  }, async (request) => ({ data: presentWidget(await widgets.get(request.scope, request.params.widget)) }));

  app.patch('/widgets/:widget', {
    schema: {
      tags,
      summary: 'Update a widget (config fields are merged over the stored ones; the type cannot change)',
      params: Params,
      body: WidgetUpdate,
      response: { 200: Type.Object({ data: Widget }), ...responses },
    },
  }, async (request) => ({ data: presentWidget(await widgets.update(request.scope, request.params.widget, request.body)) }));

  app.delete('/widgets/:widget', {
    schema: { tags, summary: 'Delete a widget', params: Params, response: { 204: NoContent, ...responses } },
  }, async (request, reply) => {
    await widgets.delete(request.scope, request.params.widget);
    return reply.status(204).send(null);
  });

  app.post('/widgets/:widget/rotate-secret', {
    schema: { tags, summary: 'Issue a new secret key; the old one stops working at once', params: Params, response: { 200: Type.Object({ secret_key: Type.String() }), ...responses } },
  }, async (request) => ({ secret_key: await widgets.rotateSecret(request.scope, request.params.widget) }));
}
