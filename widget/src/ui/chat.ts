import type { WidgetFactory } from './handle.js';

export const CHAT_CSS = '';

/** The chat widget UI (bubble, sidebar, inline). */
export const createChat: WidgetFactory = (context) => {
  document.body.append(context.host);
  return { destroy: () => context.host.remove() };
};
