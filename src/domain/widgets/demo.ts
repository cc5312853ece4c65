import { createHash } from 'node:crypto';
import type { CollectionService } from '../ingestion/collections.js';
import { type EntryInput, type EntryService, LIMITS } from '../ingestion/entries.js';
import { NotFoundError } from '../errors.js';
import type { IntegrationService } from '../search/integrations.js';
import type { JsonObject, Scope } from '../model.js';
import type { OrganisationService } from '../access/organisations.js';
import type { InstanceSettingsRepository } from './port.js';
import type { WidgetService } from './service.js';
import type { WidgetSettings } from '../../shared/widgetSettings.js';

/** The widget keys (`{organisation}/{widget}`) the demo page embeds. */
export interface DemoKeys {
  search: string;
  chat: string;
}

export interface DemoInput {
  /** The documentation entries of the demo collection (upserted by source). */
  entries: EntryInput[];
  /** The hosts the demo widgets answer (see `demoWebsites`). */
  websites: string[];
}

export interface DemoService {
  /**
   * Seeds the demo organisation once and reuses it afterwards (what was seeded is remembered
   * in the instance settings): on later calls the widgets' websites follow `input.websites`
   * (websites an admin added stay) and the entries are synchronised when the docs changed.
   * Returns null, for good, once an admin removed the demo organisation or one of its widgets.
   */
  seed(input: DemoInput): Promise<DemoKeys | null>;
  /** The seeded demo's widget keys; null before seeding or once the demo was removed. */
  keys(): Promise<DemoKeys | null>;
}

interface DemoRecord extends JsonObject {
  organisation_id: number;
  collection_id: string;
  chat_widget_id: string;
  search_widget_id: string;
  keys: DemoKeys;
  websites: string[];
  docs_hash: string;
  removed: boolean;
}

const SETTING = 'demo';
const ORGANISATION = 'Lore demo';
const COLLECTION = 'Lore documentation';
const CHAT: WidgetSettings = {
  variant: 'bubble',
  greeting: 'Hi! I answer questions about Lore from its own documentation.',
  placeholder: 'Ask about Lore…',
  prompts: ['What is Lore?', 'How do I embed the chat widget?', 'Which answer providers can Lore use?', 'How does hybrid search rank results?'],
};
const SEARCH: WidgetSettings = { variant: 'modal', summary: true, placeholder: 'Search the Lore docs…' };

export function createDemoService(deps: {
  settings: InstanceSettingsRepository;
  organisations: Pick<OrganisationService, 'create'>;
  collections: Pick<CollectionService, 'create'>;
  entries: Pick<EntryService, 'batchUpsert' | 'list' | 'deleteBySource'>;
  integrations: Pick<IntegrationService, 'create'>;
  widgets: Pick<WidgetService, 'create' | 'get' | 'update'>;
}): DemoService {
  const { settings, entries, widgets } = deps;

  async function upsert(scope: Scope, collectionId: string, inputs: readonly EntryInput[]): Promise<void> {
    for (let i = 0; i < inputs.length; i += LIMITS.batch) await entries.batchUpsert(scope, collectionId, inputs.slice(i, i + LIMITS.batch));
  }

  /** Upserts every entry, then deletes the collection's entries whose source is no longer among them. */
  async function synchronise(scope: Scope, collectionId: string, inputs: readonly EntryInput[]): Promise<void> {
    await upsert(scope, collectionId, inputs);
    const wanted = new Set(inputs.map((e) => `${e.source_type}\u0000${e.source_id}`));
    const stale: { type: string; id: string }[] = [];
    for (let page = 1, pages = 1; page <= pages; page++) {
      const result = await entries.list(scope, collectionId, { page, perPage: 100 });
      pages = Math.ceil(result.total / 100);
      for (const e of result.items) {
        if (e.source_type !== null && e.source_id !== null && !wanted.has(`${e.source_type}\u0000${e.source_id}`)) stale.push({ type: e.source_type, id: e.source_id });
      }
    }
    for (const s of stale) await entries.deleteBySource(scope, collectionId, s.type, s.id);
  }

  async function create(input: DemoInput, docsHash: string): Promise<DemoKeys> {
    const { organisation } = await deps.organisations.create(ORGANISATION);
    const scope = { organisationId: organisation.id };
    const collection = await deps.collections.create(scope, COLLECTION);
    await upsert(scope, collection.id, input.entries);
    const collection_ids = [collection.id];
    const chatbot = await deps.integrations.create(scope, { type: 'chatbot', name: 'Lore docs assistant', collection_ids, persona: 'technical-expert' });
    const box = await deps.integrations.create(scope, { type: 'search_box', name: 'Lore docs search', collection_ids, results_display: 'summary_results' });
    const { websites } = input;
    const chat = (await widgets.create(scope, { type: 'chat', name: 'Lore assistant', integration_id: chatbot.id, websites, config: CHAT })).widget;
    const search = (await widgets.create(scope, { type: 'search', name: 'Lore docs search', integration_id: box.id, websites, config: SEARCH })).widget;
    const record: DemoRecord = {
      organisation_id: organisation.id,
      collection_id: collection.id,
      chat_widget_id: chat.id,
      search_widget_id: search.id,
      keys: { search: search.key, chat: chat.key },
      websites,
      docs_hash: docsHash,
      removed: false,
    };
    await settings.set(SETTING, record);
    return record.keys;
  }

  async function refresh(record: DemoRecord, input: DemoInput, docsHash: string): Promise<DemoKeys | null> {
    const scope = { organisationId: record.organisation_id };
    try {
      for (const id of [record.chat_widget_id, record.search_widget_id]) {
        const current = (await widgets.get(scope, id)).websites;
        const kept = current.filter((w) => !record.websites.includes(w));
        const websites = [...new Set([...kept, ...input.websites])];
        if (websites.length !== current.length || websites.some((w) => !current.includes(w))) await widgets.update(scope, id, { websites });
      }
      if (record.docs_hash !== docsHash) await synchronise(scope, record.collection_id, input.entries);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      await settings.set(SETTING, { ...record, removed: true });
      return null;
    }
    await settings.set(SETTING, { ...record, websites: input.websites, docs_hash: docsHash });
    return record.keys;
  }

  return {
    async seed(input) {
      const record = (await settings.get(SETTING)) as DemoRecord | null;
      const docsHash = createHash('sha256').update(JSON.stringify(input.entries)).digest('hex');
      if (record === null) return create(input, docsHash);
      return record.removed ? null : refresh(record, input, docsHash);
    },
    async keys() {
      const record = (await settings.get(SETTING)) as DemoRecord | null;
      return record && !record.removed ? record.keys : null;
    },
  };
}

/**
 * The hosts the demo widgets answer: 127.0.0.1 and localhost on `port` (no port for 80 or an
 * unknown port 0, as browsers leave the default port out of Origin), and the host of
 * `publicUrl` when given.
 */
export function demoWebsites(port: number, publicUrl: string | undefined): string[] {
  const suffix = port === 0 || port === 80 ? '' : `:${port}`;
  const hosts = [`127.0.0.1${suffix}`, `localhost${suffix}`];
  // An IPv6 literal ([::1]) cannot be a websites entry.
  if (publicUrl !== undefined && !new URL(publicUrl).host.startsWith('[')) hosts.push(new URL(publicUrl).host.toLowerCase());
  return [...new Set(hosts)];
}
