import type { WidgetFactory } from './handle.js';

export const SEARCH_CSS = '';

/** The search widget UI (modal, inline). */
export const createSearch: WidgetFactory = (context) => {
  document.body.append(context.host);
  return { destroy: () => context.host.remove() };
};
