import type { Entry, JsonObject } from '../model.js';
import type { Passage } from '../search/service.js';
import { sectionUrl } from '../ingestion/text/sections.js';
import { httpUrl } from '../urls.js';
import type { CitedSource } from './citations.js';

/**
 * A page action a chat answer offers (the widget asks the visitor to confirm it, then hands it
 * to the embedding page): `id` names the entry it came from, `type` and `label` are the
 * entry's, and every other field of the entry's `meta.action` rides along as payload.
 */
export interface PageAction {
  id: string;
  type: string;
  label: string;
  [payload: string]: unknown;
}

const ACTION_TYPE = /^[A-Za-z0-9_.:-]{1,64}$/;
const MAX_LABEL = 100;
const MAX_ACTION_BYTES = 2_048;

/**
 * The passage `ref` as citation events show it, with the entry's image when it has a valid
 * one; its url links the section of the page under `headings` when the entry knows its anchor.
 */
export function citedSource(entry: Entry, ref: number, headings: readonly string[] = []): CitedSource {
  const source: CitedSource = { ref, title: entry.title ?? entry.source_url ?? `Source ${ref}`, url: entryUrl(entry, headings) };
  const image = httpUrl(entry.meta.image) ?? httpUrl(entry.searchable_meta.image);
  if (image !== undefined) source.image = image;
  return source;
}

/** Where the entry links ('' when nowhere): its section under `headings` when it knows that section's anchor (meta.anchors). */
export function entryUrl(entry: Entry, headings: readonly string[]): string {
  return sectionUrl(entry.source_url ?? '', entry.meta.anchors, headings);
}

/**
 * The action `entry.meta.action` offers, or null when it has none or it is malformed: it must
 * be a JSON object of at most 2 KB with a `type` (1–64 of `A-Z a-z 0-9 _ . : -`) and a `label`
 * (1–100 characters). The entry id becomes the action id, so the same entry offers the same id
 * in every answer; a payload field named `id` is dropped.
 */
export function pageAction(entry: Entry): PageAction | null {
  const action = entry.meta.action;
  if (typeof action !== 'object' || action === null || Array.isArray(action)) return null;
  const { id: _ignored, type, label, ...payload } = action as JsonObject;
  if (typeof type !== 'string' || !ACTION_TYPE.test(type)) return null;
  if (typeof label !== 'string' || label.length === 0 || label.length > MAX_LABEL) return null;
  if (Buffer.byteLength(JSON.stringify(action), 'utf8') > MAX_ACTION_BYTES) return null;
  return { id: entry.id, type, label, ...payload };
}

/**
 * The page actions of the cited passages' entries (`cited` numbers `passages` from 1, in
 * order of first citation), each entry's once.
 */
export function offeredActions(passages: readonly Passage[], cited: readonly number[]): PageAction[] {
  const actions = new Map<string, PageAction>();
  for (const ref of cited) {
    const passage = passages[ref - 1];
    const action = passage ? pageAction(passage.hit) : null;
    if (action !== null && !actions.has(action.id)) actions.set(action.id, action);
  }
  return [...actions.values()];
}

