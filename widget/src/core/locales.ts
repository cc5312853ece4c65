/** UI strings of the widgets; every locale has every key (checked by the type). */
export interface Strings {
  /** Chat launcher and panel. */
  openChat: string;
  closeChat: string;
  newConversation: string;
  send: string;
  askPlaceholder: string;
  thinking: string;
  sources: string;
  helpful: string;
  notHelpful: string;
  thanks: string;
  confirmAction: string;
  answerFailed: string;
  creditsExhausted: string;
  /** Before the closest pages, when the documentation does not cover a question. */
  closestPages: string;
  suggested: string;
  /** Search. */
  search: string;
  searchPlaceholder: string;
  closeSearch: string;
  noResults: string;
  summary: string;
  results: string;
  searching: string;
  /** Shared. */
  speak: string;
  stopSpeaking: string;
  poweredBy: string;
}

export const LOCALES = ['en', 'nl', 'de', 'fr', 'es', 'it', 'pt-BR', 'zh-Hans', 'zh-Hant', 'zh-HK', 'ja', 'ko', 'th'] as const;
export type Locale = (typeof LOCALES)[number];

const en: Strings = {
  openChat: 'Open chat',
  closeChat: 'Close chat',
  newConversation: 'New conversation',
  send: 'Send',
  askPlaceholder: 'Ask a question…',
  thinking: 'Thinking…',
  sources: 'Sources',
  helpful: 'Helpful',
  notHelpful: 'Not helpful',
  thanks: 'Thanks for your feedback!',
  confirmAction: 'Confirm',
  answerFailed: 'Sorry, something went wrong. Please try again.',
  creditsExhausted: 'Answers are unavailable right now. These pages may help:',
  closestPages: 'Closest pages',
  suggested: 'Suggested questions',
  search: 'Search',
  searchPlaceholder: 'Search…',
  closeSearch: 'Close search',
  noResults: 'No results for “{query}”.',
  summary: 'AI summary',
  results: 'Results',
  searching: 'Searching…',
  speak: 'Speak',
  stopSpeaking: 'Stop listening',
  poweredBy: 'Powered by Lore',
};

/** English is built in; the other locales' strings are fetched when needed (build.mjs writes them). */
export const ENGLISH = en;

/** Browser language tags that name a UI locale under another tag (a locale's own tag matches it in any case). */
const ALIASES: Record<string, Locale> = {
  'zh': 'zh-Hans', 'zh-cn': 'zh-Hans', 'zh-sg': 'zh-Hans', 'zh-tw': 'zh-Hant', 'zh-mo': 'zh-HK', 'pt': 'pt-BR', 'pt-pt': 'pt-BR',
};

/** The UI locale for one language tag (`de-AT` → `de`, `zh-TW` → `zh-Hant`), or undefined. */
export function matchLocale(tag: string | undefined | null): Locale | undefined {
  if (!tag) return undefined;
  const lower = tag.toLowerCase().replace(/_/g, '-');
  const parts = lower.split('-');
  // zh-Hant-TW, zh-Hans-CN: the script decides; otherwise region, then language.
  const candidates = [lower, parts.slice(0, 2).join('-'), parts[0]!];
  if (parts[0] === 'zh' && parts.length > 2) candidates.unshift(`zh-${parts[2]}`);
  for (const candidate of candidates) {
    const locale = ALIASES[candidate] ?? LOCALES.find((l) => l.toLowerCase() === candidate);
    if (locale) return locale;
  }
  return undefined;
}

/**
 * The UI locale: the first of the browser's languages that is supported, else
 * `defaultLanguage`, else English.
 */
export function resolveLocale(browser: readonly string[], defaultLanguage?: string): Locale {
  for (const tag of browser) {
    const locale = matchLocale(tag);
    if (locale) return locale;
  }
  return matchLocale(defaultLanguage) ?? 'en';
}

const loaded = new Map<string, Promise<Strings>>();

/**
 * The UI strings of `locale`: English at once; others from `{base}/widget/v1/locales/{locale}.json`
 * (cacheable), over English so a missing key still reads well. Never rejects: English on failure.
 */
export function loadStrings(base: string, locale: Locale): Promise<Strings> {
  if (locale === 'en') return Promise.resolve(en);
  const url = `${base}/widget/v1/locales/${locale}.json`;
  if (!loaded.has(url)) {
    loaded.set(url, fetch(url, { credentials: 'omit' })
      .then((response) => (response.ok ? response.json() : {}))
      .then((table: Record<string, unknown>) => {
        const strings = { ...en };
        for (const key of Object.keys(en) as (keyof Strings)[]) if (typeof table[key] === 'string') strings[key] = table[key] as string;
        return strings;
      })
      .catch(() => en));
  }
  return loaded.get(url)!;
}

/** A lookup in `strings`, with `{name}` placeholders filled by `t(key, {name})`. */
export function translator(strings: Strings): (key: keyof Strings, values?: Record<string, string>) => string {
  return (key, values) => strings[key].replace(/\{(\w+)\}/g, (_, name: string) => values?.[name] ?? '');
}
