/** A passage an answer cites, as citation events show it. */
export interface CitedSource {
  /** Its number in the answer: sources are numbered 1, 2, … in the order the text first cites them. */
  ref: number;
  title: string;
  url: string;
  /** The cited entry's image (`meta.image` or `searchable_meta.image`), when it has a valid http(s) URL. */
  image?: string;
}

// `[1]`, `[1, 2]`, `[1][2]` (each bracket on its own), `[1; 3]`; refs of at most 3 digits.
// An escaped bracket (`\[0, 1]`, Markdown for a literal one) is no marker.
const REFS = String.raw`[ \t]*(\d{1,3}(?:[ \t]*[,;][ \t]*\d{1,3})*)[ \t]*\]`;
const MARKER = new RegExp(String.raw`( *)(?<!\\)\[` + REFS, 'g');
// The opening bracket of what would read as a marker.
const MARKER_START = new RegExp(String.raw`(?<!\\)\[(?=` + REFS + ')', 'g');
// What the end of the text may hold while a marker is still arriving (or the backslash that may escape one).
const OPEN_MARKER = /(?: *(?<!\\)\[[\d \t,;]{0,24}|\\)$/;
// The citations and punctuation that close a paragraph ("… `--seconds [2]."), kept outside code closed before them.
const TRAILING = new RegExp(String.raw`(?:(?: *(?<!\\)\[` + REFS.replace('(', '(?:') + String.raw`)*[.!?:;,]*\s*)$`);
// Where an inline code span can no longer close: a blank line, or a line opening a fence.
const PARAGRAPH_END = /\n[ \t]*(?:\n|(?= {0,3}(?:`{3,}|~{3,})))/g;
// A line that may still grow into a fence line (indentation, backticks or tildes so far).
const FENCE_PREFIX = /^ {0,3}(?:`*|~*)$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** An inline code span not closed within this many characters is taken for a literal backtick. */
const MAX_SPAN = 1_000;

/**
 * `text` (Markdown) with the brackets that would read as citation markers ("∈ [0, 1]")
 * escaped (`\[0, 1]`), outside inline code: for quoted text that must stay as written.
 */
export function escapeMarkers(text: string): string {
  return text
    .split(/(`+[^`]*`+)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(MARKER_START, '\\[')))
    .join('');
}

/**
 * Checks and numbers the citation markers of a streamed answer. `sources` holds the passages
 * the writer was given, by the number the writer cites them with. Markers naming a given
 * passage are kept, renumbered in order of first citation (the first passage cited is [1],
 * the next new one [2], …; `[3, 1]` reads `[1, 2]` when first) and normalised to `[1, 2]`;
 * each passage is reported once, at its first mention. Markers naming anything else are
 * removed, so an answer never cites a passage it was not given. Text that may be the start
 * of a marker (`… [1`) is held back until the next delta decides it.
 *
 * Code is shown as written: `items[1]` in a snippet is no citation. An inline code span is
 * held back until it closes; one that never does (at a blank line, a fence, or the end) is
 * closed at the end of its paragraph, before the citations that end it ("`--seconds` [2]").
 * A fenced block is passed on whole lines, and closed at the end when the text leaves it
 * open, a citation on its last line moved after it. So the text shown never ends in open code.
 */
export class CitationFilter {
  private pending = '';
  /** Writer's passage number → number shown. */
  private readonly numbers = new Map<number, number>();
  private readonly order: CitedSource[] = [];
  private readonly passageRefs: number[] = [];
  private fence: string | null = null;
  private lineStart = true;

  constructor(private readonly sources: ReadonlyMap<number, CitedSource>) {}

  /** The text that can be shown now, and the passages cited for the first time in it (numbered as shown). */
  push(delta: string): { text: string; cited: CitedSource[] } {
    return this.advance(this.pending + delta, false);
  }

  /** Everything held back, at the end of the stream, with open code closed. */
  flush(): { text: string; cited: CitedSource[] } {
    return this.advance(this.pending, true);
  }

  /** Every cited passage, in order of first mention, numbered as shown (1, 2, …). */
  get cited(): readonly CitedSource[] {
    return this.order;
  }

  /** The writer's numbers of the cited passages, in order of first mention. */
  get citedPassages(): readonly number[] {
    return this.passageRefs;
  }

  /** Whether the passage the writer numbers `ref` has been cited. */
  has(ref: number): boolean {
    return this.numbers.has(ref);
  }

  private advance(buffer: string, final: boolean): { text: string; cited: CitedSource[] } {
    const parts = new Parts();
    const lineStart = this.lineStart;
    const held = this.scan(buffer, final, parts);
    let cut = held;
    // Outside code, the end of what is decided may be the start of a marker.
    if (!final && held === buffer.length && !parts.endsInCode()) {
      const open = OPEN_MARKER.exec(parts.tail());
      if (open) {
        cut = held - (parts.tail().length - open.index);
        this.lineStart = cut === 0 ? lineStart : buffer[cut - 1] === '\n';
      }
    }
    this.pending = buffer.slice(cut);
    const cited: CitedSource[] = [];
    const text = parts
      .take(cut === held ? 0 : held - cut)
      .map(({ text: part, code }) => (code ? part : this.markers(part, cited)))
      .join('');
    return { text, cited };
  }

  /**
   * Splits `buffer` into code and text parts as far as it can be decided, advancing the fence
   * and line state; returns where the undecided rest starts (held back for the next delta).
   */
  private scan(text: string, final: boolean, parts: Parts): number {
    let i = 0;
    while (i < text.length) {
      const newline = text.indexOf('\n', i);
      const lineEnd = newline === -1 ? text.length : newline + 1;
      if (this.lineStart) {
        if (!final && newline === -1 && FENCE_PREFIX.test(text.slice(i))) return i;
        const fence = FENCE.exec(text.slice(i, lineEnd));
        const closes = this.fence !== null && fence !== null && fence[1]![0] === this.fence[0] && fence[1]!.length >= this.fence.length;
        if (fence && (this.fence === null || closes)) {
          if (!final && newline === -1) return i; // the fence line and its info string, whole
          this.fence = this.fence === null ? fence[1]! : null;
          parts.add(text.slice(i, lineEnd), true);
          i = lineEnd;
          this.lineStart = newline !== -1;
          continue;
        }
      }
      if (this.fence !== null) {
        if (newline === -1) {
          if (!final) return i;
          this.closeFence(text.slice(i), parts);
          return text.length;
        }
        parts.add(text.slice(i, lineEnd), true);
        i = lineEnd;
        this.lineStart = true;
        continue;
      }
      const ch = text[i]!;
      if (ch === '\n') {
        parts.add(ch, false);
        this.lineStart = true;
        i++;
        continue;
      }
      this.lineStart = false;
      if (ch !== '`') {
        let next = i + 1;
        // An escaped backtick (\`) is a literal one.
        while (next < text.length && text[next] !== '\n' && (text[next] !== '`' || text[next - 1] === '\\')) next++;
        parts.add(text.slice(i, next), false);
        i = next;
        continue;
      }
      const span = this.span(text, i, final, parts);
      if (span === null) return i;
      i = span;
    }
    if (final && this.fence !== null) this.closeFence('', parts);
    return text.length;
  }

  /**
   * The inline code span opening at `start`: added to `parts`, returning where it ends, or
   * null while it cannot be decided yet.
   */
  private span(text: string, start: number, final: boolean, parts: Parts): number | null {
    let n = 1;
    while (text[start + n] === '`') n++;
    const open = start + n;
    if (open === text.length && !final) return null; // the run may still grow
    PARAGRAPH_END.lastIndex = open;
    const paragraphEnd = PARAGRAPH_END.exec(text)?.index ?? -1;
    const limit = paragraphEnd === -1 ? text.length : paragraphEnd;
    const closer = new RegExp(`(?<!\`)\`{${n}}(?!\`)`, 'g');
    closer.lastIndex = open;
    const close = closer.exec(text);
    if (close && close.index < limit && (close.index + n < text.length || final)) {
      parts.add(text.slice(start, close.index + n), true);
      return close.index + n;
    }
    if (paragraphEnd === -1 && !final) {
      if (text.length - start <= MAX_SPAN) return null;
      parts.add('\\' + text.slice(start, open), false); // long unclosed: a literal backtick
      return open;
    }
    // Never closed: closed at the end of its paragraph, before the citations ending it.
    const body = text.slice(open, limit);
    const trailing = TRAILING.exec(body)!;
    const code = body.slice(0, trailing.index);
    if (code.trim() === '') {
      parts.add('\\' + text.slice(start, open), false);
      return open;
    }
    const ticks = text.slice(start, open);
    parts.add(ticks + code + (code.endsWith('`') ? ' ' : '') + ticks, true);
    parts.add(trailing[0], false);
    return limit;
  }

  /** Closes the open fence at the end of the text; `line` is its unfinished last line. */
  private closeFence(line: string, parts: Parts): void {
    const fence = this.fence!;
    this.fence = null;
    const trailing = TRAILING.exec(line)!;
    const marker = trailing[0].includes('[');
    const code = marker ? line.slice(0, trailing.index) : line;
    const lead = code === '' && parts.endsWithNewline() ? '' : '\n';
    parts.add(`${code}${lead}${fence}`, true);
    if (marker) parts.add(`\n\n${trailing[0].trimStart()}`, false);
  }

  private markers(text: string, cited: CitedSource[]): string {
    return text.replace(MARKER, (_marker, lead: string, list: string) => {
      const refs = [...new Set(list.split(/[,;]/).map((r) => Number(r.trim())))].filter((ref) => this.sources.has(ref));
      const shown = [...new Set(refs.map((ref) => this.number(ref, cited)))].sort((a, b) => a - b);
      // A removed marker takes the spaces before it along.
      return shown.length > 0 ? `${lead}[${shown.join(', ')}]` : '';
    });
  }

  /** The number shown for the writer's passage `ref`, given (and reported) at its first citation. */
  private number(ref: number, cited: CitedSource[]): number {
    let shown = this.numbers.get(ref);
    if (shown === undefined) {
      shown = this.order.length + 1;
      this.numbers.set(ref, shown);
      const source = { ...this.sources.get(ref)!, ref: shown };
      this.order.push(source);
      this.passageRefs.push(ref);
      cited.push(source);
    }
    return shown;
  }
}

/** Text in order as code and non-code parts, neighbours of a kind merged. */
class Parts {
  private readonly list: { text: string; code: boolean }[] = [];

  add(text: string, code: boolean): void {
    if (text === '') return;
    const last = this.list[this.list.length - 1];
    if (last && last.code === code) last.text += text;
    else this.list.push({ text, code });
  }

  endsInCode(): boolean {
    return this.list[this.list.length - 1]?.code ?? false;
  }

  endsWithNewline(): boolean {
    return this.list[this.list.length - 1]?.text.endsWith('\n') ?? true;
  }

  /** The last part's text. */
  tail(): string {
    return this.list[this.list.length - 1]?.text ?? '';
  }

  /** The parts without the last `chars` characters (which the caller holds back). */
  take(chars: number): { text: string; code: boolean }[] {
    if (chars === 0) return this.list;
    const last = this.list[this.list.length - 1]!;
    last.text = last.text.slice(0, last.text.length - chars);
    return this.list;
  }
}
