/** SQL snippets shared by the repositories. */

/** A timestamptz column as `2026-11-22T06:14:03.123456Z` (UTC, microseconds). */
export function iso(column: string, alias = column.split('.').pop()!): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS ${alias}`;
}

/** pgvector's text form of a vector. */
export function vectorLiteral(vector: Float32Array): string {
  return `[${Array.from(vector).join(',')}]`;
}

/** Parses pgvector's text form back into a Float32Array. */
export function parseVector(text: string): Float32Array {
  return Float32Array.from(text.slice(1, -1).split(','), Number);
}
