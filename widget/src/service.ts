// Import order = module order in the bundle: the libraries (markdown.ts pulls DOMPurify and
// streaming-markdown) come first, so our modules sit together and compress better.
import { markdown } from './core/markdown.js';
import { scriptBase } from './core/endpoint.js';
import type { MountOptions, SharedOptions } from './core/options.js';
import { createHandle, type ChatHandle, type SearchHandle } from './ui/handle.js';
import { createHeadless, type HeadlessClient } from './core/headless.js';
import { createChat } from './ui/chat.js';
import { createSearch } from './ui/search.js';
import { BASE_CSS, CHAT_CSS, SEARCH_CSS } from './ui/styles.js';

declare global {
  interface Window {
    ServiceSdk?: typeof sdk;
  }
}

// The API origin is the origin this script was loaded from (SPEC.md "Browser SDK interface").
const script = document.currentScript;
const base = scriptBase(script);

const sdk = {
  version: '1',
  /** A chat widget handle (bubble, sidebar or inline); call mount() to render it. */
  chat(key: string, options: MountOptions = {}) {
    const client = createHeadless(base, key, options);
    return createHandle<ChatHandle>(base, 'chat', client, options, [BASE_CSS, CHAT_CSS], createChat, ['open', 'close', 'toggle', 'prefill', 'ask']);
  },
  /** A search widget handle (modal or inline); call mount() to render it. */
  search(key: string, options: MountOptions = {}) {
    const client = createHeadless(base, key, options);
    return createHandle<SearchHandle>(base, 'search', client, options, [BASE_CSS, SEARCH_CSS], createSearch, ['open', 'close']);
  },
  /** A client without UI, ready at once. */
  headless(key: string, options: SharedOptions = {}): HeadlessClient {
    return createHeadless(base, key, options);
  },
  /** Markdown → sanitised HTML. */
  markdown: (text: string) => markdown(text),
};

// Loaded twice, the first copy stays: handles made with it keep working.
if (!window.ServiceSdk) {
  window.ServiceSdk = sdk;
  // One-tag embed: <script src=".../service.js" data-chat="org/widget" data-search="org/widget">.
  const auto = () => {
    const data: DOMStringMap = script instanceof HTMLScriptElement ? script.dataset : {};
    if (data.chat) sdk.chat(data.chat).mount();
    if (data.search) sdk.search(data.search).mount();
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', auto, { once: true });
  else auto();
}
