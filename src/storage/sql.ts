import { ENTRY_FIELDS, type EntryField } from '../domain/model.js';
/** SQL snippets shared by the repositories. */

/** A timestamptz column as `2026-11-22T06:14:03.123456Z` (UTC, microseconds). */
export function iso(column: string, alias = column.split('.').pop()!): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS ${alias}`;
}

/** An entry field's column as read (timestamps as ISO 8601 text), of table alias `table` when given. */
export function entryColumn(field: EntryField, table?: string): string {
  const column = table ? `${table}.${field}` : field;
  return field === 'created_at' || field === 'updated_at' ? iso(column) : column;
}

/** Every field of an entry (ENTRY_FIELDS) as read, for a SELECT or RETURNING list. */
export function entryColumns(table?: string): string {
  return ENTRY_FIELDS.map((field) => entryColumn(field, table)).join(', ');
}

/** pgvector's text form of a vector. */
export function vectorLiteral(vector: Float32Array): string {
  return `[${Array.from(vector).join(',')}]`;
}

/** pgvector's binary form of a vector (its `vector_recv`): dimensions, a reserved 0, then big-endian float4s. */
export function vectorBinary(vector: Float32Array): Buffer {
  const out = Buffer.allocUnsafe(4 + 4 * vector.length);
  out.writeInt16BE(vector.length, 0);
  out.writeInt16BE(0, 2);
  for (let i = 0; i < vector.length; i++) out.writeFloatBE(vector[i]!, 4 + 4 * i);
  return out;
}

/** Parses pgvector's text form back into a Float32Array. */
export function parseVector(text: string): Float32Array {
  return Float32Array.from(text.slice(1, -1).split(','), Number);
}
