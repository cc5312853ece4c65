import type { Action, ChatReply, ChatStatus, Source } from '../core/headless.js';
import { markdown } from '../core/markdown.js';
import { h, iconButton, renderAnswer, safeUrl } from './dom.js';
import type { WidgetContext } from './handle.js';

/** An assistant message while its reply streams; the chat shell feeds it the client's callbacks. */
export interface Pending {
  el: HTMLElement;
  status(status: ChatStatus): void;
  token(delta: string, full: string): void;
  source(source: Source): void;
  action(action: Action): void;
  done(reply: ChatReply): void;
  fail(): void;
}

const link = (href: string | undefined, props: Record<string, unknown>, ...children: (Node | null)[]) =>
  h('a', { href, target: '_blank', rel: 'noopener', ...props }, ...children);

const hostName = (url: string) => new URL(url).hostname.replace(/^www\./, '');

/** A message of the visitor: plain text, never markup. */
export const userMessage = (text: string) =>
  h('div', { class: 'msg me', lore: 'message', 'data-role': 'user' }, h('div', { class: 'bub', text }));

/** A bubble of trusted dashboard markdown (the greeting), outside the live thread. */
export function greeting(text: string): HTMLElement {
  const bubble = h('div', { class: 'bub md' });
  bubble.innerHTML = markdown(text, { images: false });
  return h('div', { class: 'msg', lore: 'greeting' }, bubble);
}

/**
 * An assistant message (`data-state` streaming → done | error): a thinking indicator until the
 * first token, the answer as markdown re-rendered once per frame with `[n]` markers linked,
 * then citations (or, when the documentation does not cover the question, the closest pages),
 * page actions and feedback; a 402 reply shows its search hits instead.
 * `changed` runs after each visible change (the thread keeps scrolled to the end).
 */
export function assistantMessage(context: WidgetContext, changed: () => void): Pending {
  const { settings, t, client } = context;
  const images = settings.show_images === true;
  const label = h('span', { text: t('thinking') });
  const wait = h('div', { class: 'wait', role: 'status' }, h('i'), h('i'), h('i'), label);
  const answer = h('div', { class: 'bub md', lore: 'answer' });
  const el = h('div', { class: 'msg', lore: 'message', 'data-role': 'assistant', 'data-state': 'streaming' }, wait, answer);
  const sources: Source[] = [];
  let text = '';
  let frame = 0;
  let actions: HTMLElement | undefined;
  let resolve!: (reply: ChatReply) => void;
  const ready = new Promise<ChatReply>((r) => (resolve = r));

  const render = () => {
    frame = 0;
    renderAnswer(answer, text, sources, images);
    changed();
  };
  const finish = (state: string) => {
    cancelAnimationFrame(frame);
    frame = 0;
    wait.remove();
    el.setAttribute('data-state', state);
  };

  const citations = (list: Source[]) => {
    const seen = new Set<string>();
    const cited = list.flatMap((source, i) => {
      const url = safeUrl(source.url);
      if (!url || seen.has(url)) return [];
      seen.add(url);
      return [{ ...source, url, n: source.ref ?? i + 1, image: safeUrl(source.image) }];
    });
    if (!cited.length) return '';
    const thumbs = settings.show_result_thumbnails === true;
    const pictures = cited.filter((source) => images && source.image);
    return h('div', { class: 'srcs' },
      h('div', { class: 'lbl', text: t('sources') }),
      pictures.length ? h('div', { class: 'imgs' }, ...pictures.map((source) =>
        link(source.url, { title: source.title }, h('img', { lore: 'image', src: source.image, alt: source.title, loading: 'lazy' })))) : '',
      h('div', { class: thumbs ? 'cites cards' : 'cites', lore: 'citations' }, ...cited.map((source) =>
        link(source.url, { class: 'src', lore: 'citation', 'data-n': source.n, 'data-host': hostName(source.url) },
          thumbs && source.image ? h('img', { lore: 'citation-thumb', src: source.image, alt: '', loading: 'lazy' }) : null,
          h('span', { text: source.title || hostName(source.url) })))));
  };

  // Not covered by the documentation: the closest pages as links, not as sources of an answer.
  const related = (list: Source[]) => {
    const pages = list.flatMap((page) => {
      const url = safeUrl(page.url);
      return url ? [{ url, title: page.title }] : [];
    });
    if (!pages.length) return '';
    return h('div', { class: 'srcs', lore: 'related' },
      h('div', { class: 'lbl', text: t('closestPages') }),
      h('div', { class: 'cites' }, ...pages.map((page) =>
        link(page.url, { class: 'src', lore: 'related-page', 'data-host': hostName(page.url) }, h('span', { text: page.title || hostName(page.url) })))));
  };

  const feedback = (answerId: string) => {
    const note = h('span', { class: 'thx', role: 'status' });
    let sent = '';
    const button = (name: string, lore: string, glyph: 'up' | 'down', key: 'helpful' | 'notHelpful') => {
      const b = iconButton(t(key), glyph, {
        lore, 'aria-pressed': 'false',
        onclick() {
          if (sent === name) return;
          sent = name;
          for (const other of buttons) other.setAttribute('aria-pressed', String(other === b));
          client.trackEvent(name, { answerId, url: location.href, source: 'chat' });
          note.textContent = t('thanks');
        },
      });
      return b;
    };
    const buttons = [button('thumbs_up', 'feedback-up', 'up', 'helpful'), button('thumbs_down', 'feedback-down', 'down', 'notHelpful')];
    return h('div', { class: 'fb' }, ...buttons, note);
  };

  return {
    el,
    status(status) {
      label.textContent = t(status === 'web_searching' ? 'searching' : 'thinking');
    },
    token(_, full) {
      text = full;
      wait.remove();
      frame ||= requestAnimationFrame(render);
    },
    source(source) {
      sources.push(source);
    },
    action(action) {
      actions ??= el.appendChild(h('div', { class: 'acts', lore: 'actions' }));
      const button = h('button', { class: 'act', lore: 'action', text: action.label });
      // The click is the visitor's confirmation; the ids are known once the stream has ended.
      button.onclick = () => {
        button.disabled = true;
        void ready.then((reply) => context.confirmAction({ action, conversationId: reply.conversationId, answerId: reply.answerId }));
      };
      actions.append(button);
    },
    done(reply) {
      if (!reply.hits && !reply.text.trim()) return this.fail();
      finish('done');
      if (reply.hits) {
        answer.replaceChildren(h('p', { text: t('creditsExhausted') }));
        el.append(h('div', { class: 'cites hits', lore: 'hits' }, ...reply.hits.map((hit) =>
          link(safeUrl(hit.source_url), { class: 'src', lore: 'hit' }, h('span', { text: hit.title || hit.source_url || '' })))));
      } else {
        text = reply.text;
        sources.splice(0, sources.length, ...reply.sources);
        render();
        el.append(citations(reply.sources), related(reply.related ?? []), actions ?? '', feedback(reply.answerId));
      }
      resolve(reply);
      changed();
    },
    fail() {
      finish('error');
      if (text) render();
      answer.append(h('p', { class: 'err', text: t('answerFailed') }));
      changed();
    },
  };
}
