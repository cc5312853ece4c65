const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a UUID; path ids that are not get a 404 without a query. */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
