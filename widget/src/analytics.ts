// service-analytics.js (global ServiceAnalytics): click analytics for pages that render search
// results themselves (SPEC.md "Analytics beacon script attributes"). Kept tiny: no SDK core.
//   <script src="{base}/widget/v1/service-analytics.js" data-widget="org/widget" data-session="…">
// tracks clicks on links marked data-dl-click (data-dl-url, data-dl-rank, data-dl-source);
// ServiceAnalytics.init({key, sessionId, base?}).trackClick({url, rank, source}) reports by hand.
import { beacon, scriptBase, widgetRoot } from './core/endpoint.js';
import { tabSession } from './core/session.js';

export interface ClickDetail {
  url?: string | null;
  rank?: number | null;
  source?: string | null;
}

export interface Tracker {
  trackClick(detail?: ClickDetail): void;
}

declare global {
  interface Window {
    ServiceAnalytics?: { version: string; init(options: { key: string; sessionId?: string | null; base?: string | null }): Tracker };
  }
}

const script = document.currentScript;
const data: DOMStringMap = script instanceof HTMLScriptElement ? script.dataset : {};
// An inline or bundled copy has no src: the page's own origin.
const origin = scriptBase(script);

function init({ key, sessionId, base }: { key: string; sessionId?: string | null; base?: string | null }): Tracker {
  const url = `${widgetRoot(base || data.base || origin, key)}/events`;
  const session = sessionId && /^[\w-]{1,64}$/.test(sessionId) ? sessionId : tabSession();
  return {
    trackClick({ url: link, rank, source } = {}) {
      beacon(url, { name: 'click', url: link || null, rank: Number.isInteger(rank) ? rank : null, source: source || null, session_id: session });
    },
  };
}

// Loaded twice, the first copy stays (one listener, one definition).
if (!window.ServiceAnalytics) {
  window.ServiceAnalytics = { version: '1', init };
  if (data.widget) {
    try {
      const tracker = init({ key: data.widget, sessionId: data.session });
      const onClick = (event: MouseEvent) => {
        if (event.button > 1) return;
        const link = (event.composedPath()[0] as Element).closest?.<HTMLAnchorElement>('a[data-dl-click]');
        if (!link) return;
        const { dlUrl, dlRank, dlSource } = link.dataset;
        tracker.trackClick({ url: dlUrl || link.href, rank: dlRank ? Number(dlRank) : null, source: dlSource });
      };
      // Capture: a page handler that stops propagation does not hide the click; auxclick is the middle button.
      document.addEventListener('click', onClick, true);
      document.addEventListener('auxclick', onClick, true);
    } catch (error) {
      console.error(error);
    }
  }
}
