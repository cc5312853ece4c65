import { Type, type TSchema } from 'typebox';
import { PERMISSIONS, type Permission as PermissionName } from '../shared/permissions.js';
import { LIMITS } from '../domain/ingestion/entries.js';

/** Route schemas: they validate input, shape output and generate the OpenAPI document. */

export const Timestamp = Type.String({ description: 'ISO 8601 UTC with microseconds, e.g. 2026-11-22T06:14:03.123456Z' });
export const Uuid = Type.String({ format: 'uuid' });
export const JsonObjectSchema = Type.Object({}, { additionalProperties: true });
/** `schema` or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** 204: no body. */
export const NoContent = Type.Null({ description: 'No content' });

export const Message = Type.Object({ message: Type.String() });
export const ValidationFailure = Type.Object({
  message: Type.String(),
  errors: Type.Record(Type.String(), Type.Array(Type.String())),
});

export const Collection = Type.Object({
  id: Uuid,
  organisation_id: Type.Integer(),
  name: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const Entry = Type.Object({
  id: Uuid,
  collection_id: Uuid,
  title: Nullable(Type.String()),
  raw_text: Type.String(),
  meta: JsonObjectSchema,
  searchable_meta: JsonObjectSchema,
  source_url: Nullable(Type.String()),
  source_type: Nullable(Type.String()),
  source_id: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const Organisation = Type.Object({
  id: Type.Integer(),
  public_id: Type.String(),
  name: Type.String(),
  answer_credits: Nullable(Type.Integer()),
  usage_quota: Nullable(Type.Integer()),
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** An organisation API key permission. */
export const Permission = Type.Unsafe<PermissionName>({ type: 'string', enum: [...PERMISSIONS] });

const NameField = Type.String({ minLength: 1, maxLength: 255 });
export const CollectionWrite = Type.Object({ name: NameField });

const entryFields = {
  title: Type.Optional(Nullable(Type.String({ maxLength: LIMITS.title }))),
  meta: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown(), { maxProperties: 100 }))),
  searchable_meta: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown(), { maxProperties: 100 }))),
  source_url: Type.Optional(Nullable(Type.String({ maxLength: LIMITS.sourceUrl }))),
};
const RawText = Type.String({ minLength: 1, maxLength: LIMITS.rawText });
const SourceType = Type.String({ minLength: 1, maxLength: LIMITS.sourceType });
const SourceId = Type.String({ minLength: 1, maxLength: LIMITS.sourceId });

export const EntryCreate = Type.Object({
  ...entryFields,
  raw_text: RawText,
  source_type: Type.Optional(Nullable(SourceType)),
  source_id: Type.Optional(Nullable(SourceId)),
});
export const EntryUpsert = Type.Object({ ...entryFields, raw_text: RawText, source_type: SourceType, source_id: SourceId });
export const EntryUpdate = Type.Object({
  ...entryFields,
  raw_text: Type.Optional(RawText),
  source_type: Type.Optional(Nullable(SourceType)),
  source_id: Type.Optional(Nullable(SourceId)),
});
export const EntryBatch = Type.Object({
  entries: Type.Array(EntryUpsert, { minItems: 1, maxItems: LIMITS.batch }),
});

export const PageQuery = Type.Object({
  page: Type.Optional(Type.Unknown()),
  per_page: Type.Optional(Type.Unknown()),
});

/** `{data, links, meta}` around a list of `item`. */
export function Paginated<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    links: Type.Object({
      first: Type.String(),
      last: Type.String(),
      prev: Nullable(Type.String()),
      next: Nullable(Type.String()),
    }),
    meta: Type.Object({
      current_page: Type.Integer(),
      last_page: Type.Integer(),
      per_page: Type.Integer(),
      total: Type.Integer(),
    }),
  });
}

export const Data = <T extends TSchema>(item: T) => Type.Object({ data: item });

/** Standard error responses for the OpenAPI document. */
export const errorResponses = {
  401: Message,
  404: Message,
  422: ValidationFailure,
};
