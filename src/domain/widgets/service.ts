import { hashSecret, randomId, randomToken } from '../access/credentials.js';
import { NotFoundError, ValidationError } from '../errors.js';
import type { IntegrationService } from '../search/integrations.js';
import type { IntegrationType, Scope } from '../model.js';
import type { Page, PageRequest } from '../pagination.js';
import type { StoredWidget, WidgetEventRecord, WidgetRepository, WidgetRow } from './port.js';
import { checkSettings } from './settings.js';
import type { WidgetSettings, WidgetType } from '../../shared/widgetSettings.js';

/** A widget as its owner sees it (never its secrets): `config` holds the settings a client set (http/presenters/widgets.ts fills in the defaults). */
export interface Widget {
  id: string;
  /** `{organisation public_id}/{widget id}`: safe to place in HTML. */
  key: string;
  type: WidgetType;
  name: string;
  integration_id: string;
  websites: string[];
  config: WidgetSettings;
  created_at: string;
  updated_at: string;
}

export interface WidgetInput {
  type: WidgetType;
  name: string;
  integration_id: string;
  websites?: string[];
  config?: WidgetSettings;
}
export type WidgetPatch = Partial<Omit<WidgetInput, 'type'>>;

/** Which integration types each widget type may serve. */
const INTEGRATION_TYPES: Record<WidgetType, readonly IntegrationType[]> = { chat: ['chatbot'], search: ['search_box', 'custom'] };

export interface WidgetService {
  /** The secret key and identity secret are returned only here; the secret key is stored as SHA-256. */
  create(scope: Scope, input: WidgetInput): Promise<{ widget: Widget; secretKey: string; identitySecret: string }>;
  list(scope: Scope, page: PageRequest): Promise<Page<Widget>>;
  /** NotFoundError when unknown or of another organisation (also for update, delete, rotate). */
  get(scope: Scope, id: string): Promise<Widget>;
  /** Settings in `config` are merged over the stored ones. */
  update(scope: Scope, id: string, patch: WidgetPatch): Promise<Widget>;
  delete(scope: Scope, id: string): Promise<void>;
  /** A new secret key; the old one stops working at once. */
  rotateSecret(scope: Scope, id: string): Promise<string>;
  /** Instance-level: the widget named by its public key, with its secret hash; NotFoundError when unknown. */
  resolve(organisationPublicId: string, id: string): Promise<StoredWidget>;
  recordEvent(scope: Scope, widgetId: string, event: WidgetEventRecord): Promise<void>;
}

export function createWidgetService(deps: { widgets: WidgetRepository; integrations: Pick<IntegrationService, 'get'> }): WidgetService {
  const { widgets, integrations } = deps;

  async function row(scope: Scope, id: string): Promise<WidgetRow> {
    const found = await widgets.get(scope, id);
    if (!found) throw new NotFoundError('Widget');
    return found;
  }

  /** 422 unless the integration is of this organisation and of a type the widget can serve. */
  async function checkIntegration(scope: Scope, type: WidgetType, integrationId: string): Promise<string> {
    const integration = await integrations.get(scope, integrationId).catch((error: unknown) => {
      if (error instanceof NotFoundError) throw ValidationError.field('integration_id', 'The selected integration_id is invalid.');
      throw error;
    });
    if (!INTEGRATION_TYPES[type].includes(integration.type)) {
      throw ValidationError.field('integration_id', `A ${type} widget needs an integration of type ${INTEGRATION_TYPES[type].join(' or ')}.`);
    }
    return integration.id;
  }

  return {
    async create(scope, input) {
      const integrationId = await checkIntegration(scope, input.type, input.integration_id);
      const secretKey = `lore_wsk_${randomToken(32)}`;
      const identitySecret = `lore_wis_${randomToken(32)}`;
      const created = await widgets.create(scope, {
        id: `wgt_${randomId(16)}`,
        type: input.type,
        name: input.name,
        integration_id: integrationId,
        websites: normaliseWebsites(input.websites ?? []),
        config: checkSettings(input.type, input.config ?? {}),
        secretHash: hashSecret(secretKey),
        identitySecret,
      });
      return { widget: present(created), secretKey, identitySecret };
    },

    async list(scope, page) {
      const result = await widgets.list(scope, page);
      return { ...result, items: result.items.map(present) };
    },

    get: async (scope, id) => present(await row(scope, id)),

    async update(scope, id, patch) {
      const current = await row(scope, id);
      const updated = await widgets.update(scope, id, {
        name: patch.name ?? current.name,
        integration_id: patch.integration_id === undefined ? current.integration_id : await checkIntegration(scope, current.type, patch.integration_id),
        websites: patch.websites === undefined ? current.websites : normaliseWebsites(patch.websites),
        config: patch.config === undefined ? current.config : { ...current.config, ...checkSettings(current.type, patch.config) },
      });
      if (!updated) throw new NotFoundError('Widget');
      return present(updated);
    },

    async delete(scope, id) {
      if (!(await widgets.delete(scope, id))) throw new NotFoundError('Widget');
    },

    async rotateSecret(scope, id) {
      const secretKey = `lore_wsk_${randomToken(32)}`;
      if (!(await widgets.setSecret(scope, id, hashSecret(secretKey)))) throw new NotFoundError('Widget');
      return secretKey;
    },

    async resolve(organisationPublicId, id) {
      const found = await widgets.find(organisationPublicId, id);
      if (!found) throw new NotFoundError('Widget');
      return found;
    },

    recordEvent: (scope, widgetId, event) => widgets.recordEvent(scope, widgetId, event),
  };
}

function present(row: WidgetRow): Widget {
  const { organisation_public_id, ...rest } = row;
  return { ...rest, key: `${organisation_public_id}/${row.id}`, config: row.config as WidgetSettings };
}

/**
 * Lower-cased and de-duplicated. The schema has already checked each is a host[:port]; a
 * port must also be 1-65535, or no Origin could ever match it.
 */
function normaliseWebsites(websites: readonly string[]): string[] {
  const errors: Record<string, string[]> = {};
  websites.forEach((website, i) => {
    const port = website.split(':')[1];
    if (port !== undefined && (Number(port) < 1 || Number(port) > 65_535)) errors[`websites.${i}`] = [`The websites.${i} port must be between 1 and 65535.`];
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return [...new Set(websites.map((w) => w.toLowerCase()))];
}
