import { LIMITS, requireElement } from '../core/options.js';
import { assistantMessage, greeting, userMessage } from './chatMessages.js';
import { focusTrap, h, icon, safeUrl } from './dom.js';
import type { WidgetFactory } from './handle.js';
import { speechButton } from './speech.js';

/** Chat styles over BASE_CSS: launcher, the three panel variants, thread, composer. */
export const CHAT_CSS = `
:host{display:block}
.launch,.me .bub,.go,.act{background:var(--lore-accent);color:#fff;color:lch(from var(--lore-accent) calc((63 - l)*100) 0 0)}
.launch{position:fixed;z-index:2147483000;right:20px;bottom:20px;width:56px;height:56px;border-radius:50%;display:grid;place-items:center;box-shadow:0 6px 24px rgba(0,0,0,.22);transition:transform .2s}
.launch:hover{transform:scale(1.06)}
.launch.left{right:auto;left:20px}
.launch .icon{grid-area:1/1;width:26px;height:26px;transition:transform .25s,opacity .2s}
.launch[aria-expanded=true] .icon:first-child,.launch[aria-expanded=false] .icon+.icon{opacity:0;transform:rotate(-60deg) scale(.5)}
.panel{display:flex;flex-direction:column;overflow:hidden;background:var(--bg);color:var(--fg);transition:opacity .2s,transform .25s cubic-bezier(.2,.8,.2,1)}
.bubble,.sidebar{position:fixed;z-index:2147483000}
.bubble{right:20px;bottom:88px;width:400px;height:min(640px,calc(100vh - 108px));border:1px solid var(--line);border-radius:16px;box-shadow:var(--shadow);transform-origin:100% 100%}
.bare{bottom:20px;height:min(640px,calc(100vh - 40px))}
.sidebar{top:0;bottom:0;right:0;width:var(--w);border-left:1px solid var(--line);box-shadow:0 0 32px rgba(0,0,0,.12)}
.sidebar.left{right:auto;left:0;border:0;border-right:1px solid var(--line)}
.inline{height:100%;min-height:400px;max-height:100vh;border:1px solid var(--line);border-radius:16px}
[data-open=false]{visibility:hidden;opacity:0;transform:translateY(12px) scale(.97);transition:opacity .2s,transform .25s,visibility 0s .25s}
.sidebar[data-open=false]{transform:translateX(100%)}.left[data-open=false]{transform:translateX(-100%)}
.head{display:flex;align-items:center;gap:10px;padding:12px 10px 12px 16px;border-bottom:1px solid var(--line)}
.av{width:32px;height:32px;border-radius:50%;object-fit:cover;flex:none;display:grid;place-items:center;background:color-mix(in srgb,var(--lore-accent) 14%,transparent);color:var(--lore-accent)}
.av .icon{width:17px;height:17px}
.name{flex:1;font-weight:600;font-size:15px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.thread{flex:1;overflow-y:auto;overscroll-behavior:contain;scrollbar-width:thin;padding:16px;display:flex;flex-direction:column;gap:14px}
.list{display:flex;flex-direction:column;gap:16px}
.list:empty,.chips:empty{display:none}
.msg{display:flex;flex-direction:column;align-items:flex-start;gap:8px;animation:in .25s ease-out}
.me{align-items:flex-end}
.bub,.wait{max-width:90%;padding:10px 14px;border-radius:16px 16px 16px 6px;background:var(--bg2)}
.me .bub{max-width:85%;border-radius:16px 16px 6px;white-space:pre-wrap;overflow-wrap:anywhere}
.bub:empty{display:none}
.md :is(h1,h2,h3,h4){font-size:1.05em;margin:.8em 0 .4em}
.bub .cite,.bub code{background:var(--bg)}
[data-state=streaming] .md>p:last-child::after{content:"▍";opacity:.5;animation:blink 1s steps(2) infinite}
.err{color:#e5484d}
.wait{display:flex;align-items:center;gap:4px;color:var(--fg2);font-size:13px}
.wait i{width:6px;height:6px;border-radius:50%;background:currentColor;animation:dot 1.2s infinite}
.wait i:nth-child(2){animation-delay:.15s}.wait i:nth-child(3){animation-delay:.3s}
.wait span{margin-left:6px}
.srcs{display:flex;flex-direction:column;gap:6px;width:90%}
.lbl{font-size:11px;font-weight:600;letter-spacing:.05em;text-transform:uppercase;color:var(--fg2)}
.cites,.imgs,.acts,.chips{display:flex;flex-wrap:wrap;gap:6px}
.src{display:flex;align-items:center;gap:6px;max-width:100%;padding:5px 10px 5px 7px;border:1px solid var(--line);border-radius:10px;background:var(--bg);color:var(--fg);font-size:12.5px;text-decoration:none}
.src:hover{border-color:var(--lore-accent)}
.src span{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;font-weight:500}
[data-n]::before{content:attr(data-n);min-width:18px;height:18px;padding:0 4px;border-radius:6px;background:var(--bg2);color:var(--lore-accent);font-size:11px;font-weight:600;line-height:18px;text-align:center}
.src::after{content:attr(data-host);color:var(--fg2);font-size:11.5px;white-space:nowrap}
.hits{width:90%}
.cards{flex-direction:column}
.cards .src{display:grid;grid-template:auto auto/auto 1fr auto;gap:0;padding:8px 10px}
.cards .src::before{grid-area:1/3;margin-left:8px}.cards .src::after{grid-area:2/2}
.cards span{grid-area:1/2;white-space:normal}
.cards img{grid-area:1/1/3;width:44px;height:44px;margin-right:10px;border-radius:7px;object-fit:cover}
.imgs{flex-wrap:nowrap;overflow-x:auto;max-width:100%}
.imgs img{display:block;width:92px;height:64px;border-radius:8px;border:1px solid var(--line);object-fit:cover}
.act{padding:8px 14px;border-radius:10px;font-weight:600}
.src,.chip,.box,.go,.act{transition:.15s;transition-property:border-color,box-shadow,color,opacity}
.act:disabled{opacity:.5;cursor:default}
.fb{display:flex;align-items:center;margin:-4px 0 0 -4px;color:var(--fg2);font-size:12px}
.fb .iconbtn{width:28px;height:28px;border-radius:7px}.fb .icon{width:15px;height:15px}
.thx{margin-left:6px;animation:in .25s}
.chip{padding:7px 12px;border:1px solid var(--line);border-radius:999px;background:var(--bg);font-size:13px;text-align:left}
.chip:hover{border-color:var(--lore-accent);color:var(--lore-accent)}
.comp{padding:10px 12px 12px}
.box{display:flex;align-items:flex-end;gap:2px;padding:5px 5px 5px 14px;border:1px solid var(--line);border-radius:14px;background:var(--bg)}
.box:focus-within{border-color:var(--lore-accent);box-shadow:0 0 0 3px color-mix(in srgb,var(--lore-accent) 18%,transparent)}
.box textarea{flex:1;min-width:0;height:34px;max-height:120px;padding:7px 0;border:0;outline:0;resize:none;background:none;line-height:20px}
textarea::placeholder{color:var(--fg2)}
.go{width:34px;height:34px;border-radius:10px;display:grid;place-items:center;flex:none}
.go:disabled{opacity:.4;cursor:default}.go .icon{width:18px;height:18px}
.branding{padding:0 0 8px}
@keyframes in{from{opacity:0;transform:translateY(6px)}}
@keyframes dot{0%,80%,to{opacity:.3;transform:none}40%{opacity:1;transform:translateY(-3px)}}
@keyframes blink{to{opacity:0}}
@media (max-width:640px){.bubble{inset:0;width:auto;height:auto;border:0;border-radius:0}.launch[aria-expanded=true]{display:none}.sidebar{width:100vw}.box textarea{font-size:16px}}
@media (prefers-reduced-motion:reduce){*,::before,::after{animation:none!important;transition:none!important}}
`;

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
  const send = h('button', { class: 'go', lore: 'send', 'aria-label': t('send'), title: t('send') }, icon('send'));
  const list = h('div', { class: 'list', lore: 'messages', 'aria-live': 'polite' });
  const chips = h('div', { class: 'chips', lore: 'prompts', role: 'group', 'aria-label': t('suggested') },
    ...s.prompts.map((prompt) => h('button', { class: 'chip', lore: 'prompt', text: prompt, onclick: () => ask(prompt) })));
  const thread = h('div', { class: 'thread' }, s.greeting ? greeting(s.greeting) : '', list, chips);
  const avatar = safeUrl(s.avatar);
  const button = (lore: string, label: string, glyph: 'plus' | 'close', onclick: () => void) =>
    h('button', { class: 'iconbtn', lore, 'aria-label': label, title: label, onclick }, icon(glyph));
  const launcher = inline || trigger ? null
    : h('button', { class: `launch${variant === 'sidebar' && s.side === 'left' ? ' left' : ''}`, lore: 'launcher', 'aria-label': t('openChat'), 'aria-haspopup': 'dialog', 'aria-expanded': 'false', onclick: () => setOpen(!open, launcher) }, icon('chat'), icon('close'));
  const panel = h('div', { class: `panel ${variant}${s.side === 'left' ? ' left' : ''}${launcher ? '' : ' bare'}`, lore: 'panel', 'data-open': String(open), role: inline ? 'region' : 'dialog', 'aria-label': s.name || t('openChat') },
    h('div', { class: 'head' },
      avatar ? h('img', { class: 'av', lore: 'avatar', src: avatar, alt: '' }) : h('span', { class: 'av' }, icon('chat')),
      h('div', { class: 'name', text: s.name }),
      button('new', t('newConversation'), 'plus', () => reset()),
      !inline && button('close', t('closeChat'), 'close', () => setOpen(false))),
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
  root.append(...(launcher ? [launcher] : []), panel);
  if (inline) host.style.height = '100%';
  (inline ? requireElement(s.target!, 'target') : document.body).append(host);

  return {
    open: () => setOpen(true),
    close: () => setOpen(false),
    toggle: () => setOpen(!open),
    prefill(text: string) {
      setOpen(true);
      input.value = String(text ?? '').slice(0, LIMITS.prefill);
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
