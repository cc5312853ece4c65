/** A passage an answer may cite, as citation events show it. */
export interface CitedSource {
  ref: number;
  title: string;
  url: string;
  /** The cited entry's image (`meta.image` or `searchable_meta.image`), when it has a valid http(s) URL. */
  image?: string;
}

// `[1]`, `[1, 2]`, `[1][2]` (each bracket on its own), `[1; 3]`; refs of at most 3 digits.
// An escaped bracket (`\[0, 1]`, Markdown for a literal one) is no marker.
const REFS = String.raw`\s*(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\s*\]`;
const MARKER = new RegExp(String.raw`( *)(?<!\\)\[` + REFS, 'g');
// The opening bracket of what would read as a marker.
const MARKER_START = new RegExp(String.raw`(?<!\\)\[(?=` + REFS + ')', 'g');
// What the end of the text may hold while a marker is still arriving (or the backslash that may escape one).
const OPEN_MARKER = /(?: *(?<!\\)\[[\d\s,;]{0,24}|\\)$/;

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
 * Checks the citation markers of a streamed answer against the passages it was given.
 * Markers naming a given passage are kept (normalised to `[1, 2]`) and each passage is
 * reported once, at its first mention; markers naming anything else are removed, so an
 * answer never cites a passage it was not given. Text that may be the start of a marker
 * (`… [1`) is held back until the next delta decides it. Code (fenced blocks and inline
 * spans) is shown as written: `items[1]` in a snippet is no citation.
 */
export class CitationFilter {
  private pending = '';
  private readonly seen = new Set<number>();
  private readonly order: CitedSource[] = [];
  private readonly code = new CodeTracker();

  constructor(private readonly sources: ReadonlyMap<number, CitedSource>) {}

  /** The text that can be shown now, and the passages cited for the first time in it. */
  push(delta: string): { text: string; cited: CitedSource[] } {
    const buffer = this.pending + delta;
    // A run of backticks at the end may grow into a fence; outside code, a marker may be arriving.
    const ticks = /`+$/.exec(buffer);
    let cut = ticks ? ticks.index : buffer.length;
    if (!ticks && !this.code.inCodeAfter(buffer)) {
      const open = OPEN_MARKER.exec(buffer);
      if (open) cut = open.index;
    }
    this.pending = buffer.slice(cut);
    return this.process(buffer.slice(0, cut));
  }

  /** Everything held back, at the end of the stream. */
  flush(): { text: string; cited: CitedSource[] } {
    const rest = this.pending;
    this.pending = '';
    return this.process(rest);
  }

  /** Every cited passage, in order of first mention. */
  get cited(): readonly CitedSource[] {
    return this.order;
  }

  private process(text: string): { text: string; cited: CitedSource[] } {
    const cited: CitedSource[] = [];
    const out = this.code
      .split(text)
      .map(({ text: part, code }) => (code ? part : this.markers(part, cited)))
      .join('');
    return { text: out, cited };
  }

  private markers(text: string, cited: CitedSource[]): string {
    return text.replace(MARKER, (_marker, lead: string, list: string) => {
      const refs = [...new Set(list.split(/[,;]/).map((r) => Number(r.trim())))].filter((ref) => this.sources.has(ref));
      for (const ref of refs) {
        if (this.seen.has(ref)) continue;
        this.seen.add(ref);
        const source = this.sources.get(ref)!;
        this.order.push(source);
        cited.push(source);
      }
      // A removed marker takes the spaces before it along.
      return refs.length > 0 ? `${lead}[${refs.join(', ')}]` : '';
    });
  }
}

/**
 * Where Markdown code is in a text that arrives in pieces: fenced blocks (a line opening with
 * three or more backticks or tildes, up to the line closing it) and inline spans (a run of
 * backticks up to the next run as long; a blank line ends an unclosed one). Callers never cut
 * a piece inside a run of backticks.
 */
class CodeTracker {
  private fence: string | null = null;
  private span = 0;
  private lineStart = true;

  /** `text` in order as parts in code and not, advancing the state past it. */
  split(text: string): { text: string; code: boolean }[] {
    const parts: { text: string; code: boolean }[] = [];
    const add = (piece: string, code: boolean) => {
      if (piece === '') return;
      const last = parts[parts.length - 1];
      if (last && last.code === code) last.text += piece;
      else parts.push({ text: piece, code });
    };
    let i = 0;
    while (i < text.length) {
      const ch = text[i]!;
      if (this.lineStart) {
        const fence = /^ {0,3}(`{3,}|~{3,})/.exec(text.slice(i));
        if (fence && (this.fence === null ? this.span === 0 : fence[1]![0] === this.fence[0] && fence[1]!.length >= this.fence.length)) {
          const end = text.indexOf('\n', i);
          const line = end === -1 ? text.slice(i) : text.slice(i, end + 1);
          this.fence = this.fence === null ? fence[1]! : null;
          add(line, true);
          i += line.length;
          this.lineStart = end !== -1;
          continue;
        }
      }
      if (ch === '\n') {
        if (this.lineStart && this.fence === null) this.span = 0; // a blank line ends an unclosed inline span
        add(ch, this.fence !== null || this.span > 0);
        this.lineStart = true;
        i++;
        continue;
      }
      this.lineStart = false;
      if (this.fence === null && ch === '`') {
        let n = 1;
        while (text[i + n] === '`') n++;
        if (this.span === 0) this.span = n;
        else if (this.span === n) {
          add(text.slice(i, i + n), true);
          this.span = 0;
          i += n;
          continue;
        }
        add(text.slice(i, i + n), true);
        i += n;
        continue;
      }
      add(ch, this.fence !== null || this.span > 0);
      i++;
    }
    return parts;
  }

  /** Whether code would be open after `text`, without advancing the state. */
  inCodeAfter(text: string): boolean {
    const copy = Object.assign(new CodeTracker(), this);
    copy.split(text);
    return copy.fence !== null || copy.span > 0;
  }
}
