/**
 * What an organisation API key may be allowed to do (SPEC.md "Organisation API keys"): the
 * server checks them, the console offers them.
 */
export const PERMISSIONS = ['pages.read', 'pages.write', 'search', 'chat', 'summarize'] as const;
export type Permission = (typeof PERMISSIONS)[number];
