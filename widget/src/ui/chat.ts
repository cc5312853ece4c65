import { PREFILL_LENGTH, requireElement } from '../core/options.js';
import { assistantMessage, greeting, userMessage } from './chatMessages.js';
import { focusTrap, h, icon, iconButton, safeUrl } from './dom.js';
import type { Source } from '../core/headless.js';
import type { WidgetFactory } from './handle.js';
import { speechButton } from './speech.js';

interface Transcript {
  id: string;
  messages: { role: string; content: string; citations: Source[] }[];
}

/**
 * The chat widget UI (SPEC.md "Browser SDK interface"): a bubble with a launcher, a sidebar
 * that pads the page while open, or an inline panel in `target`; `trigger` elements replace
 * the launcher. Throws when an inline chat has no target.
 */
export const createChat: WidgetFactory = (context) => {
  const { settings: s, t, client, host, root } = context;
  const variant = s.variant === 'sidebar' || s.variant === 'inline' ? s.variant : 'bubble';
  const inline = variant === 'inline';
  if (inline && !s.target) throw new Error('Lore: an inline chat needs the target option.');
  const trigger = inline ? undefined : s.trigger;
  const narrow = matchMedia('(max-width: 640px)');
  const content = variant === 'sidebar' ? (s.content ? requireElement(s.content, 'content') : document.documentElement) : null;
  const side = s.side === 'left' ? 'paddingLeft' : 'paddingRight';
  let open = inline;
  let opener: HTMLElement | null = null;
  let conversationId: string | null = null;
  let running: AbortController | null = null;
  let queue = Promise.resolve();
  let generation = 0;
  let padding: string | null = null;
  let pinned = true;

  const placeholder = s.placeholder || t('askPlaceholder');
  const input = h('textarea', { lore: 'input', rows: 1, maxlength: 4000, placeholder, 'aria-label': placeholder });
  const send = iconButton(t('send'), 'send', { class: 'go', lore: 'send' });
  const list = h('div', { class: 'list', lore: 'messages', 'aria-live': 'polite' });
  const chips = h('div', { class: 'chips', lore: 'prompts', role: 'group', 'aria-label': t('suggested') },
    ...s.prompts.map((prompt) => h('button', { class: 'chip', lore: 'prompt', text: prompt, onclick: () => ask(prompt) })));
  const thread = h('div', { class: 'thread' }, s.greeting ? greeting(s.greeting) : '', list, chips);
  const avatar = safeUrl(s.avatar);
  const launcher = inline || trigger ? null
    : h('button', { class: `launch${variant === 'sidebar' && s.side === 'left' ? ' left' : ''}`, lore: 'launcher', 'aria-label': t('openChat'), 'aria-haspopup': 'dialog', 'aria-expanded': 'false', onclick: () => setOpen(!open, launcher) }, icon('chat'), icon('close'));
  const panel = h('div', { class: `panel ${variant}${s.side === 'left' ? ' left' : ''}${launcher ? '' : ' bare'}`, lore: 'panel', 'data-open': String(open), role: inline ? 'region' : 'dialog', 'aria-label': s.name || t('openChat') },
    h('div', { class: 'head' },
      avatar ? h('img', { class: 'av', lore: 'avatar', src: avatar, alt: '' }) : h('span', { class: 'av' }, icon('chat')),
      h('div', { class: 'name', text: s.name }),
      iconButton(t('newConversation'), 'plus', { lore: 'new', onclick: () => reset() }),
      !inline && iconButton(t('closeChat'), 'close', { lore: 'close', onclick: () => setOpen(false) })),
    thread,
    h('div', { class: 'comp' }, h('div', { class: 'box' }, input, speechButton(context, input, (text) => {
      input.value = '';
      ask(text);
    }), send)),
    s.branding && h('div', { class: 'branding', lore: 'branding', text: t('poweredBy') }));

  const controls = () => (launcher ? [launcher] : trigger ? [...document.querySelectorAll(trigger)] : []);
  const grow = () => {
    input.style.height = '';
    input.style.height = `${Math.min(input.scrollHeight, 120)}px`;
  };
  const stick = () => {
    if (pinned) thread.scrollTop = thread.scrollHeight;
  };
  const busy = (on: boolean) => {
    send.disabled = on;
    list.setAttribute('aria-busy', String(on));
  };
  // While a sidebar is open on a wide screen, the page moves aside instead of being covered.
  const pad = () => {
    if (!content) return;
    const want = open && !narrow.matches;
    if (want && padding === null) {
      padding = content.style[side];
      content.style[side] = `${s.width}px`;
    } else if (!want && padding !== null) {
      content.style[side] = padding;
      padding = null;
    }
  };

  const setOpen = (on: boolean, from?: Element | null) => {
    if (on !== open && !inline) {
      open = on;
      panel.setAttribute('data-open', String(on));
      for (const control of controls()) control.setAttribute('aria-expanded', String(on));
      pad();
      if (on) {
        const active = document.activeElement;
        opener = (from ?? (active && active !== host && active !== document.body ? active : launcher)) as HTMLElement | null;
      } else if (document.activeElement === host) opener?.focus();
    }
    if (on) input.focus();
  };

  const run = async (text: string) => {
    chips.hidden = true;
    const message = assistantMessage(context, stick);
    list.append(userMessage(text), message.el);
    pinned = true;
    stick();
    const controller = (running = new AbortController());
    busy(true);
    try {
      const reply = await client.chat(text, {
        conversationId, signal: controller.signal,
        onStatus: message.status, onToken: message.token, onSource: message.source, onAction: message.action,
      });
      if (controller.signal.aborted) return;
      conversationId = reply.conversationId || conversationId;
      message.done(reply);
    } catch {
      if (!controller.signal.aborted) message.fail();
    } finally {
      if (running === controller) {
        running = null;
        busy(false);
      }
    }
  };
  // Messages asked while a reply streams wait their turn; a new conversation drops them.
  const ask = (text: unknown) => {
    const message = String(text ?? '').trim().slice(0, 4000);
    setOpen(true);
    if (!message) return;
    const current = generation;
    queue = queue.then(() => (current === generation ? run(message) : undefined));
  };
  const submit = () => {
    if (send.disabled || !input.value.trim()) return;
    const text = input.value;
    input.value = '';
    grow();
    ask(text);
  };
  const stop = () => {
    generation += 1;
    running?.abort();
    running = null;
  };
  const reset = () => {
    stop();
    busy(false);
    conversationId = null;
    list.replaceChildren();
    chips.hidden = false;
    input.focus();
  };

  // A signed visitor (user {id, hash}) continues their latest conversation; messages asked
  // while it loads wait for it. Anonymous visitors have no history to load.
  if (s.user?.hash) {
    queue = client.listConversations().then(async ([latest]) => {
      if (!latest || generation !== 0) return;
      const transcript = (await client.getConversation((latest as { id: string }).id)) as Transcript;
      if (generation !== 0) return;
      conversationId = transcript.id;
      chips.hidden = transcript.messages.length > 0;
      for (const { role, content: text, citations } of transcript.messages) {
        if (role === 'user') list.append(userMessage(text));
        else {
          const message = assistantMessage(context, stick);
          list.append(message.el);
          message.done({ text, conversationId: transcript.id, answerId: '', sources: citations, actions: [] });
        }
      }
    }).catch(() => {});
  }

  input.addEventListener('input', grow);
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submit();
    }
  });
  send.addEventListener('click', submit);
  thread.addEventListener('scroll', () => {
    pinned = thread.scrollHeight - thread.scrollTop - thread.clientHeight < 48;
  });
  // Escape closes; a full-screen bubble keeps Tab inside the dialog.
  const trap = focusTrap(panel, () => setOpen(false));
  panel.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' ? !inline : event.key === 'Tab' && variant === 'bubble' && narrow.matches) trap(event);
  });
  const onTrigger = (event: MouseEvent) => {
    const element = trigger && (event.target as Element).closest?.(trigger);
    if (!element) return;
    event.preventDefault();
    setOpen(!open, element);
  };
  if (trigger) {
    document.addEventListener('click', onTrigger);
    for (const control of controls()) control.setAttribute('aria-expanded', 'false');
  }
  narrow.addEventListener('change', pad);
  if (content) host.style.setProperty('--w', `${s.width}px`);
  root.append(launcher || '', panel);
  if (inline) host.style.height = '100%';
  (inline ? requireElement(s.target!, 'target') : document.body).append(host);

  return {
    open: () => setOpen(true),
    close: () => setOpen(false),
    toggle: () => setOpen(!open),
    prefill(text: string) {
      setOpen(true);
      input.value = String(text ?? '').slice(0, PREFILL_LENGTH);
      grow();
    },
    ask,
    destroy() {
      stop();
      open = false;
      pad();
      narrow.removeEventListener('change', pad);
      document.removeEventListener('click', onTrigger);
      for (const control of controls()) control.removeAttribute('aria-expanded');
      host.remove();
    },
  };
};
