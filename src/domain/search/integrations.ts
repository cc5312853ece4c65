import { randomUUID } from 'node:crypto';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Integration, IntegrationType, JsonObject, Scope } from '../model.js';
import type { Page, PageRequest } from '../pagination.js';
import type { IntegrationRecord, IntegrationRepository } from './port.js';

export const INTEGRATION_TYPES = ['chatbot', 'search_box', 'custom'] as const;
export const PERSONAS = ['customer-support', 'sales-assistant', 'onboarding-guide', 'technical-expert', 'custom'] as const;
export const RESULTS_DISPLAYS = ['results', 'summary', 'summary_results'] as const;

/** The settings each type keeps, with their defaults (SPEC.md "Integration" write fields). */
const SETTINGS: Record<IntegrationType, Record<string, unknown>> = {
  chatbot: { welcome_message: null, instructions: null, persona: 'customer-support', unknown_answer_message: null, typo_tolerance: true },
  search_box: { placeholder: 'Search...', results_display: 'results', typo_tolerance: true },
  custom: { label: null, typo_tolerance: true },
};
const ENUMS: Record<string, readonly string[]> = { persona: PERSONAS, results_display: RESULTS_DISPLAYS };
/** Settings that are true or false: `typo_tolerance`, the searches' default for correcting typos (service.ts typoTolerance). */
const FLAGS = new Set(['typo_tolerance']);

/** An integration write as the API accepts it: settings at the top level or in `settings`. */
export interface IntegrationInput {
  type?: string;
  name?: string;
  project?: string | null;
  allowed_domains?: string[] | null;
  is_active?: boolean;
  collection_ids?: string[];
  settings?: JsonObject;
  [setting: string]: unknown;
}

export interface IntegrationService {
  list(scope: Scope, page: PageRequest, filters: { type?: string; project?: string }): Promise<Page<Integration>>;
  get(scope: Scope, id: string): Promise<Integration>;
  /** Throws ForbiddenError when the integration is inactive (search, answers, events). */
  getActive(scope: Scope, id: string): Promise<Integration>;
  create(scope: Scope, input: IntegrationInput): Promise<Integration>;
  /** Any create field except `type` (422 when it would change). */
  update(scope: Scope, id: string, input: IntegrationInput): Promise<Integration>;
  delete(scope: Scope, id: string): Promise<void>;
}

export function createIntegrationService(deps: { integrations: IntegrationRepository }): IntegrationService {
  const { integrations } = deps;

  async function get(scope: Scope, id: string): Promise<Integration> {
    const integration = isUuid(id) ? await integrations.get(scope, id) : null;
    if (!integration) throw new NotFoundError('Integration');
    return integration;
  }

  /** Validates collection ownership; every id must be a collection of this organisation. */
  async function checkCollections(scope: Scope, ids: readonly string[]): Promise<void> {
    const owned = await integrations.ownedCollections(scope, ids.filter(isUuid));
    const errors: Record<string, string[]> = {};
    ids.forEach((id, i) => {
      if (!owned.has(id.toLowerCase())) errors[`collection_ids.${i}`] = [`The selected collection_ids.${i} is invalid.`];
    });
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  }

  return {
    list: (scope, page, filters) => integrations.list(scope, page, filters),
    get,

    async getActive(scope, id) {
      const integration = await get(scope, id);
      if (!integration.is_active) throw new ForbiddenError('This integration is inactive.');
      return integration;
    },

    async create(scope, input) {
      const type = input.type as IntegrationType;
      const record: IntegrationRecord = {
        type,
        name: input.name!,
        project: input.project ?? null,
        allowed_domains: input.allowed_domains ?? null,
        is_active: input.is_active ?? true,
        collection_ids: unique(input.collection_ids ?? []),
        settings: settingsFor(type, SETTINGS[type], input),
      };
      await checkCollections(scope, record.collection_ids);
      return integrations.create(scope, randomUUID(), record);
    },

    async update(scope, id, input) {
      const current = await get(scope, id);
      if (input.type !== undefined && input.type !== current.type) {
        throw ValidationError.field('type', 'The type field cannot be changed.');
      }
      const record: IntegrationRecord = {
        type: current.type,
        name: input.name ?? current.name,
        project: input.project === undefined ? current.project : input.project,
        allowed_domains: input.allowed_domains === undefined ? current.allowed_domains : input.allowed_domains,
        is_active: input.is_active ?? current.is_active,
        collection_ids: input.collection_ids === undefined ? current.collection_ids : unique(input.collection_ids),
        settings: settingsFor(current.type, { ...SETTINGS[current.type], ...current.settings }, input),
      };
      if (input.collection_ids !== undefined) await checkCollections(scope, record.collection_ids);
      const updated = await integrations.update(scope, id, record);
      if (!updated) throw new NotFoundError('Integration');
      return updated;
    },

    async delete(scope, id) {
      if (!isUuid(id) || !(await integrations.delete(scope, id))) throw new NotFoundError('Integration');
    },
  };
}

/**
 * The type's settings: `base` overlaid with values from `input.settings`, then from the
 * top level of `input`. Keys of other types are ignored; enum values are checked.
 */
function settingsFor(type: IntegrationType, base: Record<string, unknown>, input: IntegrationInput): JsonObject {
  const settings: JsonObject = {};
  const errors: Record<string, string[]> = {};
  for (const key of Object.keys(SETTINGS[type])) {
    const value = input[key] !== undefined ? input[key] : input.settings?.[key] !== undefined ? input.settings[key] : base[key];
    const allowed = ENUMS[key];
    if (allowed && !allowed.includes(value as string)) {
      errors[key] = [`The selected ${key} is invalid; use one of: ${allowed.join(', ')}.`];
    }
    if (FLAGS.has(key) && typeof value !== 'boolean') errors[key] = [`The ${key} field must be true or false.`];
    settings[key] = value;
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return settings;
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids.map((id) => id.toLowerCase()))];
}
