/** A passage an answer may cite, as citation events show it. */
export interface CitedSource {
  ref: number;
  title: string;
  url: string;
  /** The cited entry's image (`meta.image` or `searchable_meta.image`), when it has a valid http(s) URL. */
  image?: string;
}

// `[1]`, `[1, 2]`, `[1][2]` (each bracket on its own), `[1; 3]`; refs of at most 3 digits.
const MARKER = /( *)\[\s*(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\s*\]/g;
// What the end of the text may hold while a marker is still arriving.
const OPEN_MARKER = / *\[[\d\s,;]{0,24}$/;

/**
 * Checks the citation markers of a streamed answer against the passages it was given.
 * Markers naming a given passage are kept (normalised to `[1, 2]`) and each passage is
 * reported once, at its first mention; markers naming anything else are removed, so an
 * answer never cites a passage it was not given. Text that may be the start of a marker
 * (`… [1`) is held back until the next delta decides it.
 */
export class CitationFilter {
  private pending = '';
  private readonly seen = new Set<number>();
  private readonly order: CitedSource[] = [];

  constructor(private readonly sources: ReadonlyMap<number, CitedSource>) {}

  /** The text that can be shown now, and the passages cited for the first time in it. */
  push(delta: string): { text: string; cited: CitedSource[] } {
    const buffer = this.pending + delta;
    const open = OPEN_MARKER.exec(buffer);
    const ready = open ? buffer.slice(0, open.index) : buffer;
    this.pending = open ? buffer.slice(open.index) : '';
    return this.process(ready);
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
    const out = text.replace(MARKER, (_marker, lead: string, list: string) => {
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
    return { text: out, cited };
  }
}
