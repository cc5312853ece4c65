// Page objects for the chat and search widgets, built only on the DOM contract of
// docs/WIDGET.md: a host `div[data-lore-widget]` with an open shadow root whose elements carry
// `data-lore` markers. Playwright's CSS locators pierce open shadow roots.
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { eventually, WAIT } from './fixtures.js';

abstract class Widget {
  readonly host: Locator;

  constructor(readonly page: Page, kind: 'chat' | 'search', nth = 0) {
    this.host = page.locator(`[data-lore-widget="${kind}"]`).nth(nth);
  }

  /** Every element marked `data-lore="<name>"` inside this widget. */
  el(name: string): Locator {
    return this.host.locator(`[data-lore="${name}"]`);
  }

  async waitMounted(): Promise<void> {
    await this.host.waitFor({ state: 'attached', timeout: WAIT });
  }

  async theme(): Promise<string | null> {
    return this.host.getAttribute('data-theme', { timeout: WAIT });
  }

  async lang(): Promise<string | null> {
    return this.host.getAttribute('lang', { timeout: WAIT });
  }

  /** The focused element, looking through shadow roots: its `data-lore` marker, else `#id`, else tag. */
  async focused(): Promise<string> {
    return this.page.evaluate(() => {
      let active = document.activeElement;
      while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
      if (!active) return 'none';
      return active.getAttribute('data-lore') ?? (active.id ? `#${active.id}` : active.tagName.toLowerCase());
    });
  }

  /** Waits until the focused element is `marker` (see `focused`). */
  async expectFocus(marker: string): Promise<void> {
    await eventually(async () => assert.equal(await this.focused(), marker, 'focused element'));
  }

  /**
   * Records, from now on, every `data-state` an element of this widget takes (also of elements
   * added with one), in `window.__states[kind]`: transient states such as `streaming` are seen
   * however short they last.
   */
  async recordStates(): Promise<void> {
    await this.host.evaluate((host) => {
      const w = window as any;
      const kind = host.getAttribute('data-lore-widget')!;
      (w.__states ??= {})[kind] = [];
      const log = (el: Element) => { if (el.hasAttribute('data-state')) w.__states[kind].push(`${el.getAttribute('data-lore')}:${el.getAttribute('data-state')}`); };
      new MutationObserver((records) => {
        for (const record of records) {
          if (record.type === 'attributes') log(record.target as Element);
          for (const node of Array.from(record.addedNodes)) {
            if (node instanceof Element) [node, ...Array.from(node.querySelectorAll('[data-state]'))].forEach(log);
          }
        }
      }).observe(host.shadowRoot!, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-state'] });
    });
  }

  /** The states recorded since `recordStates()`, as `marker:state`. */
  async states(): Promise<string[]> {
    return this.host.evaluate((host) => (window as any).__states?.[host.getAttribute('data-lore-widget')!] ?? []);
  }

  /** Waits until `locator`'s attribute equals `value`. */
  async expectAttr(locator: Locator, name: string, value: string | null): Promise<void> {
    await eventually(async () => assert.equal(await locator.getAttribute(name, { timeout: 1000 }), value, `${name} of ${locator}`));
  }
}

export class ChatWidget extends Widget {
  constructor(page: Page, nth = 0) {
    super(page, 'chat', nth);
  }

  get launcher() { return this.el('launcher'); }
  get panel() { return this.el('panel'); }
  get input() { return this.el('input'); }
  get closeButton() { return this.el('close'); }
  get newButton() { return this.el('new'); }
  get prompts() { return this.el('prompt'); }
  messages(role?: 'user' | 'assistant'): Locator {
    return this.host.locator(`[data-lore="message"]${role ? `[data-role="${role}"]` : ''}`);
  }
  get lastAssistant() { return this.messages('assistant').last(); }

  async isOpen(): Promise<boolean> {
    return (await this.panel.getAttribute('data-open', { timeout: WAIT })) === 'true';
  }

  async expectOpen(open = true): Promise<void> {
    await this.expectAttr(this.panel, 'data-open', String(open));
  }

  /** Opens with the default launcher. */
  async open(): Promise<void> {
    await this.launcher.click({ timeout: WAIT });
    await this.expectOpen(true);
  }

  /** Types a question in the composer and presses Enter. */
  async ask(text: string): Promise<void> {
    await this.input.fill(text, { timeout: WAIT });
    await this.input.press('Enter');
  }

  /** Waits for the last assistant message to finish; returns its answer text. */
  async lastAnswer(state: 'done' | 'error' = 'done'): Promise<string> {
    await this.expectAttr(this.lastAssistant, 'data-state', state);
    return (await this.lastAssistant.locator('[data-lore="answer"]').innerText()).trim();
  }

  /** Citations (title text and href) of the last assistant message. */
  async citations(): Promise<Array<{ text: string; href: string | null }>> {
    const links = this.lastAssistant.locator('[data-lore="citation"]');
    return Promise.all((await links.all()).map(async (l) => ({ text: (await l.innerText()).trim(), href: await l.getAttribute('href') })));
  }

  /** Visible suggested-question chips. */
  async chips(): Promise<string[]> {
    const chips = await this.prompts.all();
    const visible = [];
    for (const chip of chips) if (await chip.isVisible()) visible.push((await chip.innerText()).trim());
    return visible;
  }
}

export class SearchWidget extends Widget {
  constructor(page: Page, nth = 0) {
    super(page, 'search', nth);
  }

  get button() { return this.el('search-button'); }
  get modal() { return this.el('modal'); }
  get input() { return this.el('search-input'); }
  get summary() { return this.el('summary'); }
  get results() { return this.el('result'); }

  async expectOpen(open = true): Promise<void> {
    await this.expectAttr(this.modal, 'data-open', String(open));
  }

  /**
   * How many `close` events the modal <dialog> has fired since the first call (the browser
   * queues one after each close). Reopen at a human pace: after the count went up.
   */
  closeEvents(): Promise<number> {
    return this.modal.evaluate((dialog: any) => {
      if (dialog.__closes === undefined) {
        dialog.__closes = 0;
        dialog.addEventListener('close', () => setTimeout(() => dialog.__closes++));
      }
      return dialog.__closes as number;
    });
  }

  /** Waits until the modal fired more than `count` close events (see `closeEvents`). */
  async waitCloseEvents(count: number): Promise<void> {
    await eventually(async () => assert.ok((await this.closeEvents()) > count, 'the dialog fired its close event'));
  }

  async type(text: string): Promise<void> {
    await this.input.fill(text, { timeout: WAIT });
  }

  /** Waits for at least one result; returns their titles in rank order. */
  async resultTitles(): Promise<string[]> {
    await this.results.first().waitFor({ state: 'visible', timeout: WAIT });
    return (await this.results.allInnerTexts()).map((t) => t.trim());
  }
}
