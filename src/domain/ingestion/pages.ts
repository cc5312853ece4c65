import { requireOrganisation, requirePermission, requireSources, type Principal } from '../access/principal.js';
import type { Permission } from '../../shared/permissions.js';
import type { EntryInput, EntryService } from './entries.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Entry, JsonObject, Source } from '../model.js';
import type { Page, PageRequest } from '../pagination.js';
import type { CollectionRepository } from './port.js';
import type { OrganisationRepository } from '../access/port.js';

/** Pages are entries stored with this source_type, keyed by their URL. */
export const PAGE_SOURCE_TYPE = 'page';
/** Longest page URL, in UTF-8 bytes: it is part of a unique index, which bounds key size. */
export const MAX_URL_BYTES = 2_048;

/** A page write as the API accepts it; absent fields mean "not given". */
export interface PageInput {
  url?: string;
  title?: string | null;
  raw_text?: string;
  meta?: JsonObject | null;
  searchable_meta?: JsonObject | null;
}

/** GET /me: who the credential acts for, what it may do and which sources it may reach. */
export interface Me {
  organisation: { id: number; public_id: string; name: string };
  permissions: Permission[];
  sources: Source[];
}

/**
 * The pages API: a source is a collection, a page is one of its entries. Every method
 * checks, in this order: the permission (403), that the source exists (404), that it is
 * of the principal's organisation (403) and inside the principal's source limit (403).
 */
export interface PagesService {
  /** Only the sources the principal may access (all of the organisation's for a token). */
  me(principal: Principal): Promise<Me>;
  /** The sources the principal may access, as `me` lists them, without the organisation. */
  sources(principal: Principal): Promise<Source[]>;
  /** pages.read: every entry of the source, in creation order. */
  list(principal: Principal, sourceId: string, page: PageRequest): Promise<Page<Entry>>;
  /** pages.write: creates or replaces the page with this URL (chunked and indexed before it returns). */
  upsert(principal: Principal, sourceId: string, input: PageInput & { url: string; raw_text: string }): Promise<{ page: Entry; created: boolean }>;
  /** pages.write: changes the given fields of the entry `pageId`; a new url re-keys the page. */
  update(principal: Principal, sourceId: string, pageId: string, input: PageInput): Promise<Entry>;
  /** pages.write: NotFoundError when the page is not in this source. */
  delete(principal: Principal, sourceId: string, pageId: string): Promise<void>;
}

export function createPagesService(deps: {
  organisations: OrganisationRepository;
  collections: CollectionRepository;
  entries: EntryService;
}): PagesService {
  const { organisations, collections, entries } = deps;

  async function authorise(principal: Principal, sourceId: string, permission: Permission): Promise<void> {
    requirePermission(principal, permission);
    const owner = isUuid(sourceId) ? await collections.organisationOf(sourceId) : null;
    if (owner === null) throw new NotFoundError('Source');
    // Another organisation's source is a 403 (SPEC.md: "key belongs to another
    // organisation"), for tokens too, so one rule covers every source route. The caller
    // named a random UUID; the answer says only that it is not theirs, never what it holds.
    requireOrganisation(principal, owner);
    requireSources(principal, [sourceId]);
  }

  const sources = (principal: Principal) => collections.sources(principal, principal.sourceIds);

  return {
    async me(principal) {
      const organisation = await organisations.get(principal.organisationId);
      if (!organisation) throw new NotFoundError('Organisation');
      return {
        organisation: { id: organisation.id, public_id: organisation.public_id, name: organisation.name },
        permissions: [...principal.permissions],
        sources: await sources(principal),
      };
    },

    sources,

    async list(principal, sourceId, page) {
      await authorise(principal, sourceId, 'pages.read');
      return entries.list(principal, sourceId, page);
    },

    async upsert(principal, sourceId, input) {
      await authorise(principal, sourceId, 'pages.write');
      const { entry, created } = await withUrlErrors(() => entries.upsert(principal, sourceId, toEntryInput(input)));
      return { page: entry, created };
    },

    async update(principal, sourceId, pageId, input) {
      await authorise(principal, sourceId, 'pages.write');
      return withUrlErrors(() => entries.update(principal, sourceId, pageId, toEntryInput(input)));
    },

    async delete(principal, sourceId, pageId) {
      await authorise(principal, sourceId, 'pages.write');
      await entries.delete(principal, sourceId, pageId);
    },
  };
}

/** The entry fields of a page write; the URL is the page's source id and source URL. */
function toEntryInput(input: PageInput): EntryInput {
  const { url, ...fields } = input;
  if (url === undefined) return fields;
  checkUrl(url);
  return { ...fields, source_type: PAGE_SOURCE_TYPE, source_id: url, source_url: url };
}

/** An absolute http(s) URL without whitespace: it is the page's identity, so it is kept as sent. */
function checkUrl(url: string): void {
  const parsed = /^https?:\/\/\S+$/i.test(url) && URL.canParse(url) ? new URL(url) : null;
  if (!parsed || parsed.hostname === '') throw ValidationError.field('url', 'The url field must be a valid http or https URL.');
  if (Buffer.byteLength(url) > MAX_URL_BYTES) {
    throw ValidationError.field('url', `The url field must not be greater than ${MAX_URL_BYTES} bytes.`);
  }
}

/** The entry service reports a taken source pair under `source_id`; for pages that field is `url`. */
async function withUrlErrors<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!(error instanceof ValidationError) || !error.errors.source_id) throw error;
    const { source_id: _taken, ...rest } = error.errors;
    throw new ValidationError({ ...rest, url: ['Another page of this source already has this url.'] });
  }
}
