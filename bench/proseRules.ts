/**
 * Explicit rules for "reads as prose", applied to an answer (Markdown with `[n]` citations)
 * by `npm run bench:answers` on the docs set. Each returns the names of the rules an answer
 * breaks; an answer passes when it breaks none.
 *
 * - `empty`: a blank answer.
 * - `table-fragment`: outside code and well-formed tables (a `|` header line, a `|---|` rule,
 *   its rows), a line that starts with `|` or holds a cell separator ` | `; or, outside code,
 *   two dashes with only space between (`— —`: empty cells).
 * - `mid-token-start`: outside code, the answer, a line, a list item or the text after a
 *   citation (`[n] X`) starts with a lower-case letter or with punctuation other than an
 *   opening quote or bracket, a backtick, `*`, `_` or `~` (`/.lore` and `and XQuAD` fail), or
 *   with an emphasis marker that closes (`** The union`).
 * - `dangling-colon`: outside code, a line ends with a colon, ASCII or full-width (citations after or before it
 *   ignored) and the next non-blank line starts no code fence, list item or table.
 * - `heading-as-sentence`: a sentence of the answer (split at citations and sentence ends,
 *   Markdown and punctuation removed, case and spaces folded) equals a heading of the docs.
 * - `too-many-sources`: more than 2 distinct passages cited (an escaped `\\[0, 1]` is text).
 * - `unbalanced-code`: an odd number of fence lines.
 * - `link-fragment`: outside code, Markdown link syntax the reader sees as text: `](` (an
 *   inline link cut, or one to a relative target, which leads nowhere outside its site; a whole
 *   link to an absolute http(s) URL is rendered as a link and passes), a `[text]` that is no citation (the text of a link whose
 *   target was left out, or a reference link; an interval of numbers, `[0.15, 0.65]`, is text), or a line or citation-led text starting with a
 *   bare `#anchor`.
 * - `html`: outside code, a raw HTML tag (`<td>`, `</tr>`, `<br/>`, `<a href=…>`: a lower-case
 *   name) or character entity (`&nbsp;`, `&#39;`, `&lt;`).
 * - `mdx-syntax`: outside code, what MDX and VitePress pages hold for their renderer: an ESM
 *   line (`import X from '…'`, `export …`), a JSX tag (`<Tabs>`, `</Alert>`, `<Param name=…>`:
 *   a capitalised name), a `{…}` expression, or a VitePress `:::` container marker (anywhere:
 *   quoted text runs one into the line).
 */

export const RULES = ['empty', 'table-fragment', 'mid-token-start', 'dangling-colon', 'heading-as-sentence', 'too-many-sources', 'unbalanced-code', 'link-fragment', 'html', 'mdx-syntax'] as const;
export type Rule = (typeof RULES)[number];

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const CITATION = /\s*(?<!\\)\[\d+(?:\s*[,;]\s*\d+)*\]/g;
const TABLE_LINE = /^\s*\|.*\|\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$/;
const LIST_ITEM = /^\s*(?:[-*+]|\d{1,3}[.)])\s+/;
const BAD_START = /^[\p{Ll}\p{P}]/u;
const GOOD_PUNCTUATION_START = /^[`*_~"'“‘«([{]/u;
/** Emphasis that closes instead of opening ("** The union …": the end of a bold lead-in). */
const CLOSING_MARKER_START = /^[*_~]+(?:\s|$)/u;
/** `](`, or a bracketed text that is no citation (`[1]`, `[1, 2]`) and no escaped `\[`. */
const LINK_SYNTAX = /\]\(|(?<!\\)\[(?!\s*\d+(?:\s*[,;]\s*\d+)*\s*\])(?![-+−\d.,;\s]*\])[^\]\n]*\]/;
const BARE_ANCHOR_START = /^#[\w-]/u;
/** A whole link to an absolute http(s) URL: the widget renders it as a link, so it is no fragment. */
const ABSOLUTE_LINK = /(?<!\\)\[[^\[\]\n]+\]\(https?:\/\/[^\s()]+\)/g;
const HTML_TAG = /<\/?[a-z][a-z0-9-]*(?:\s[^<>]*)?\/?>/;
const HTML_ENTITY = /&(?:[a-z][a-z0-9]*|#\d+|#x[0-9a-f]+);/i;
const ESM_LINE = /^\s*(?:import\s+(?:[\w*{}\s,]+\s+from\s+)?['"]|export\s+(?:default|const|function|let|\{))/;
const JSX_TAG = /<\/?[A-Z][\w.]*(?:\s[^<>]*)?\/?>/;
const MDX_EXPRESSION = /\{[^{}\n]*\}/;
/** A VitePress container marker (`::: tip`, `:::warning`), or what is left of one after a citation (`[1]::.`). */
const CONTAINER = /:::|\]::/;

/** Normalises a heading or sentence for comparison: no Markdown, punctuation or case. */
export function normalise(text: string): string {
  return text.replace(/[`*_~#>]/g, '').replace(/[\p{P}\p{S}]+/gu, ' ').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** Every heading text of `markdown` (ATX, outside code fences), normalised. */
export function headingsOf(markdown: string): string[] {
  const out: string[] = [];
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (FENCE.test(line)) fence = !fence;
    const heading = fence ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) out.push(normalise(heading[1]!));
  }
  return out;
}

/** The rules `answer` breaks, in RULES order; `headings` as made by headingsOf. */
export function proseFailures(answer: string, headings: ReadonlySet<string>): Rule[] {
  const failed = new Set<Rule>();
  if (answer.trim() === '') return ['empty'];
  const lines = answer.split('\n');
  const fences = lines.filter((l) => FENCE.test(l)).length;
  if (fences % 2 === 1) failed.add('unbalanced-code');

  // Lines outside code fences, with whether each belongs to a well-formed table.
  const prose: { text: string; index: number; table: boolean }[] = [];
  let inFence = false;
  for (const [index, line] of lines.entries()) {
    if (FENCE.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    prose.push({ text: line, index, table: false });
  }
  for (let i = 0; i < prose.length; i++) {
    if (TABLE_LINE.test(prose[i]!.text) && TABLE_RULE.test(prose[i + 1]?.text ?? '')) {
      let j = i;
      while (j < prose.length && (TABLE_LINE.test(prose[j]!.text) || TABLE_RULE.test(prose[j]!.text))) prose[j++]!.table = true;
      i = j - 1;
    }
  }

  for (const { text, index, table } of prose) {
    if (text.trim() === '' || table) continue;
    const plain = withoutCodeSpans(text);
    if (/^\s*\|/.test(text) || /\s\|\s/.test(plain) || /[—–-]\s+[—–-](?:\s|$)/.test(plain.replace(/^\s*[-*+]\s+/, ''))) failed.add('table-fragment');
    // Starts: the line (after a list marker), and each text after a citation.
    const starts = [plain.replace(LIST_ITEM, '').trimStart(), ...[...plain.matchAll(/\]\s+(\S.*)/g)].map((m) => m[1]!)];
    for (const start of starts) if ((BAD_START.test(start) && !GOOD_PUNCTUATION_START.test(start)) || CLOSING_MARKER_START.test(start)) failed.add('mid-token-start');
    if (LINK_SYNTAX.test(plain.replace(ABSOLUTE_LINK, 'link')) || starts.some((start) => BARE_ANCHOR_START.test(start))) failed.add('link-fragment');
    if (HTML_TAG.test(plain) || HTML_ENTITY.test(plain)) failed.add('html');
    if (ESM_LINE.test(plain) || JSX_TAG.test(plain) || MDX_EXPRESSION.test(plain) || CONTAINER.test(plain)) failed.add('mdx-syntax');
    if (/[:：]\s*$/.test(text.replace(CITATION, '').trimEnd())) {
      const next = lines.slice(index + 1).find((l) => l.trim() !== '');
      if (!next || !(FENCE.test(next) || LIST_ITEM.test(next) || TABLE_LINE.test(next))) failed.add('dangling-colon');
    }
  }

  const sentences = prose
    .filter((p) => !p.table)
    .map((p) => withoutCodeSpans(p.text).replace(LIST_ITEM, ''))
    .join('\n')
    .split(/(?<!\\)\[\d+(?:\s*[,;]\s*\d+)*\]|(?<=[.!?。！？])\s+|\n/);
  if (sentences.some((s) => headings.has(normalise(s)) && normalise(s) !== '')) failed.add('heading-as-sentence');

  const refs = new Set([...answer.matchAll(/(?<!\\)\[(\d+(?:\s*[,;]\s*\d+)*)\]/g)].flatMap((m) => m[1]!.split(/[,;]/).map((r) => Number(r.trim()))));
  if (refs.size > 2) failed.add('too-many-sources');
  return RULES.filter((r) => failed.has(r));
}

/** `text` with inline code spans replaced by a neutral word (their content is not prose). */
function withoutCodeSpans(text: string): string {
  return text.replace(/(`+)[^`]*?\1/g, 'Code');
}
