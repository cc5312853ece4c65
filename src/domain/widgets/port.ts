import type { JsonObject, Scope } from '../model.js';
import type { Page, PageRequest } from '../pagination.js';
import type { WidgetType } from '../../shared/widgetSettings.js';

/** The widgets capability's ports: what it needs from storage and providers, which implement them (src/container.ts picks which). */

/** A widget as stored; `config` holds only the settings a client set (defaults are applied on read). */
export interface WidgetRow {
  id: string;
  organisation_public_id: string;
  type: WidgetType;
  name: string;
  integration_id: string;
  websites: string[];
  config: JsonObject;
  created_at: string;
  updated_at: string;
}

/** A widget resolved from its public key, for the widget routes: with its secret hash. */
export interface StoredWidget extends WidgetRow {
  organisationId: number;
  secretHash: Uint8Array;
  /** The organisation's `usage_quota`. */
  usageQuota: number | null;
}

export interface WidgetEventRecord {
  name: string;
  url: string | null;
  rank: number | null;
  source: string | null;
  session_id: string | null;
  /** The chat answer (text_delta `message_id`) feedback is about. */
  answer_id: string | null;
}

export interface WidgetRepository {
  create(scope: Scope, widget: Omit<WidgetRow, 'organisation_public_id' | 'created_at' | 'updated_at'> & { secretHash: Buffer; identitySecret: string }): Promise<WidgetRow>;
  list(scope: Scope, page: PageRequest): Promise<Page<WidgetRow>>;
  get(scope: Scope, id: string): Promise<WidgetRow | null>;
  update(scope: Scope, id: string, fields: Pick<WidgetRow, 'name' | 'integration_id' | 'websites' | 'config'>): Promise<WidgetRow | null>;
  delete(scope: Scope, id: string): Promise<boolean>;
  /** Replaces the secret key's hash; false when the widget is unknown. */
  setSecret(scope: Scope, id: string, secretHash: Buffer): Promise<boolean>;
  /** Instance-level, for the widget routes: the widget named by its public key, or null. */
  find(organisationPublicId: string, id: string): Promise<StoredWidget | null>;
  recordEvent(scope: Scope, widgetId: string, event: WidgetEventRecord): Promise<void>;
  /** The secret visitor ids are signed with; only for verifying a visitor's hash. */
  identitySecret(scope: Scope, widgetId: string): Promise<string | null>;
}

/** Instance-level JSON values by key (not tenant data: no organisation scope). */
export interface InstanceSettingsRepository {
  get(key: string): Promise<JsonObject | null>;
  /** Inserts or replaces the value. */
  set(key: string, value: JsonObject): Promise<void>;
}
