/**
 * Structure-aware chunking of entry text for retrieval.
 *
 * The text is read as Markdown-ish plain text (ATX and setext headings, blank-line separated
 * paragraphs, list items, fenced code blocks). Blocks are packed greedily into chunks of at
 * most `maxTokens` tokens; headings start a new chunk and are tracked as a heading trail;
 * paragraphs that are too long are split at sentence boundaries (then words, then characters),
 * and a chunk that continues the previous chunk's section starts with a little overlap.
 *
 * Token counts use {@link estimateTokens} by default: a fast estimate of the number of
 * wordpieces the all-MiniLM-L6-v2 (BERT uncased) tokenizer produces, calibrated to rarely
 * underestimate.
 */

import {
  englishWeight,
  estimateTokens,
  roundTokens,
  tally,
  tallyCost,
  tallyEnglish,
  tallyFixed,
  tallyForeign,
  tallyMarkers,
  tallyWords,
} from './tokenEstimate.js';
import { headingText } from './markdownInline.js';
import { segmentsOf, sentenceSegmenter, wordSegmenter } from './segments.js';

export { estimateTokens };

/**
 * A heading as the chunk's heading trail holds it: what a reader sees (a component in it,
 * VitePress's `<NonInheritBadge />`, is no word of the heading), or as written when that is nothing.
 */
function trailTitle(heading: string): string {
  return headingText(heading) || heading.trim();
}

export interface Chunk {
  /** 0-based position in the entry. */
  index: number;
  /** The chunk's own text (a contiguous passage of the source, possibly with overlap from the previous chunk). */
  text: string;
  /** Heading trail in force at the start of this chunk, e.g. ["Install", "On Linux"]; empty when none. */
  headings: string[];
  /** Estimated token count of `text` (using the same counter as the bound). */
  tokens: number;
}

export interface ChunkOptions {
  /** Upper bound on tokens per chunk (default 200). */
  maxTokens?: number;
  /** Tokens of trailing context repeated at the start of the next chunk when a section must be split (default 40). */
  overlapTokens?: number;
  /** Token counter; default: a fast estimate calibrated to BERT wordpiece (see {@link estimateTokens}). */
  countTokens?: (text: string) => number;
}

const DEFAULT_MAX_TOKENS = 200;
const DEFAULT_OVERLAP_TOKENS = 40;

/** How the packer counts. */
interface Counter {
  /** Whether the counts from `split` add up to the count of the pieces' concatenation. */
  additive: boolean;
  /** The bound: every chunk's text counts at most maxTokens. */
  count(text: string): number;
  /**
   * Counts a block given as contiguous `pieces`: the block's count, each piece's count, and a
   * counter for smaller pieces of it, consistent with one another.
   */
  split(pieces: readonly string[]): { tokens: number; counts: number[]; measure: (text: string) => number };
}

/**
 * The default counter. Pieces of a block are costed with the block's English weight, so that
 * they add up to the block's estimate (a lone sentence may lack the function words that tell
 * English apart), and the block is tallied only once.
 */
const estimateCounter: Counter = {
  additive: true,
  count: estimateTokens,
  split(pieces) {
    const costs = new Float64Array(pieces.length * 3);
    let markers = 0;
    let asciiWords = 0;
    pieces.forEach((piece, i) => {
      tally(piece);
      costs[3 * i] = tallyFixed;
      costs[3 * i + 1] = tallyEnglish;
      costs[3 * i + 2] = tallyForeign;
      markers += tallyMarkers;
      asciiWords += tallyWords;
    });
    const weight = englishWeight(markers, asciiWords);
    let total = 0;
    const counts = pieces.map((_, i) => {
      const cost = costs[3 * i]! + weight * costs[3 * i + 1]! + (1 - weight) * costs[3 * i + 2]!;
      total += cost;
      return cost;
    });
    return {
      tokens: roundTokens(total),
      counts,
      measure: (text) => {
        tally(text);
        return tallyCost(weight);
      },
    };
  },
};

function customCounter(count: (text: string) => number): Counter {
  return {
    additive: false,
    count,
    split: (pieces) => ({ tokens: count(pieces.join('')), counts: pieces.map(count), measure: count }),
  };
}

// ---------------------------------------------------------------------------------------------
// Segmentation helpers
// ---------------------------------------------------------------------------------------------

/** Contiguous sentence segments (each with its trailing whitespace); they concatenate to `text`. */
function sentences(text: string): string[] {
  return Array.from(segmentsOf(sentenceSegmenter(), text), (s) => s.segment);
}

/**
 * Contiguous word-level pieces of `text`: each word-like segment together with the
 * whitespace and punctuation that follows it; they concatenate to `text`.
 */
function words(text: string): string[] {
  const out: string[] = [];
  let lead = ''; // whitespace before the first word goes with it
  for (const s of segmentsOf(wordSegmenter(), text)) {
    if (out.length > 0 && !s.isWordLike) out[out.length - 1] += s.segment;
    else if (out.length === 0 && !s.isWordLike && s.segment.trim() === '') lead += s.segment;
    else {
      out.push(lead + s.segment);
      lead = '';
    }
  }
  if (lead !== '') out.push(lead);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Block parsing
// ---------------------------------------------------------------------------------------------

interface HeadingBlock {
  kind: 'heading';
  text: string;
  /** Separator from the previous block: '\n' when adjacent, '\n\n' after a blank line. */
  gap: string;
  level: number;
  title: string;
}

interface ProseBlock {
  kind: 'prose';
  text: string;
  gap: string;
}

interface CodeBlock {
  kind: 'code';
  text: string;
  gap: string;
  /** Opening fence line, repeated when the block is split across chunks. */
  open: string;
  /** Closing fence used for parts of a split block. */
  close: string;
  /** Whether the source closes the fence (an unclosed fence runs to the end of the text). */
  closed: boolean;
}

type Block = HeadingBlock | ProseBlock | CodeBlock;

const ATX_HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const SETEXT_UNDERLINE = /^ {0,3}(={2,}|-{2,})[ \t]*$/;
const FENCE_OPEN = /^[ \t]*(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSE = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;
const LIST_ITEM = /^[ \t]*(?:[-*+•‣◦▪]|\d{1,9}[.)])[ \t]+\S/;

function parseBlocks(source: string): Block[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let para: string[] | null = null;
  let paraGap = '';
  let paraIsList = false;
  let blankBefore = false;

  const takeGap = (): string => {
    const gap = blankBefore ? '\n\n' : '\n';
    blankBefore = false;
    return gap;
  };
  const closeParagraph = (): void => {
    if (para) blocks.push({ kind: 'prose', text: para.join('\n'), gap: paraGap });
    para = null;
  };

  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const line = raw.trimEnd();
    if (line.trim() === '') {
      closeParagraph();
      blankBefore = true;
      continue;
    }

    const fence = FENCE_OPEN.exec(line);
    if (fence && !(fence[1]!.startsWith('`') && fence[2]!.includes('`'))) {
      closeParagraph();
      const marker = fence[1]!;
      let end = i + 1;
      let closed = false;
      for (; end < lines.length; end++) {
        const close = FENCE_CLOSE.exec(lines[end]!);
        if (close && close[1]![0] === marker[0] && close[1]!.length >= marker.length) {
          closed = true;
          break;
        }
      }
      let last = closed ? end : lines.length - 1;
      while (!closed && last > i && lines[last]!.trim() === '') last--;
      blocks.push({
        kind: 'code',
        text: lines.slice(i, last + 1).join('\n'),
        gap: takeGap(),
        open: line.trim(),
        close: marker,
        closed,
      });
      i = last;
      continue;
    }

    const atx = ATX_HEADING.exec(line);
    if (atx && atx[2]!.trim() !== '') {
      closeParagraph();
      blocks.push({ kind: 'heading', text: line.trim(), gap: takeGap(), level: atx[1]!.length, title: trailTitle(atx[2]!) });
      continue;
    }

    if (para !== null && !paraIsList && (para as string[]).length === 1) {
      const underline = SETEXT_UNDERLINE.exec(line);
      if (underline) {
        const title = (para as string[])[0]!;
        blocks.push({
          kind: 'heading',
          text: `${title.trim()}\n${line.trim()}`,
          gap: paraGap,
          level: underline[1]!.startsWith('=') ? 1 : 2,
          title: trailTitle(title),
        });
        para = null;
        continue;
      }
    }

    if (LIST_ITEM.test(line)) {
      closeParagraph();
      para = [line];
      paraGap = takeGap();
      paraIsList = true;
      continue;
    }

    if (para) (para as string[]).push(line);
    else {
      para = [line];
      paraGap = takeGap();
      paraIsList = false;
    }
  }
  closeParagraph();
  return blocks;
}

// ---------------------------------------------------------------------------------------------
// Packing
// ---------------------------------------------------------------------------------------------

interface Unit {
  text: string;
  tokens: number;
}

/** A piece of the overlap source; `whole` marks an entire block not yet split into sentences. */
interface TailUnit extends Unit {
  whole?: boolean;
}

/** Length of the code point starting at `i`. */
function codePointLength(s: string, i: number): number {
  const c = s.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && i + 1 < s.length ? 2 : 1;
}

function isSpace(c: number): boolean {
  return c <= 32 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

const FENCE_ONLY = /^[ \t]*(`{3,}|~{3,})[^\n`]*$/;

/**
 * Merges pieces that are only a fence line into the piece before them (or after, for the
 * first), and whitespace-only pieces into the piece after them, so that re-packing never
 * leaves a fence or blank lines alone.
 */
function mergeFences(pieces: string[]): string[] {
  const out: string[] = [];
  let blank = '';
  for (const piece of pieces) {
    if (piece.trim() === '') {
      blank += piece;
      continue;
    }
    const text = blank + piece;
    blank = '';
    if (out.length > 0 && FENCE_ONLY.test(text.trim())) out[out.length - 1] += text;
    else out.push(text);
  }
  if (blank !== '') {
    if (out.length > 0) out[out.length - 1] += blank;
    else out.push(blank);
  }
  if (out.length > 1 && FENCE_ONLY.test(out[0]!.trim())) out.splice(0, 2, out[0]! + out[1]!);
  return out;
}

/** Characters per token that no counter is expected to exceed; bounds how much text is examined. */
const MAX_CHARS_PER_TOKEN = 24;

class Packer {
  private readonly out: Chunk[] = [];
  private readonly trail: { level: number; title: string }[] = [];
  /** Raw pieces of the chunk being built (separators included). */
  private parts: string[] = [];
  /** Tokens of the chunk being built (sum of pieces, or exact after a boundary check). */
  private used = 0;
  /** Whether the chunk holds anything besides headings and overlap. */
  private hasContent = false;
  /** Heading trail recorded for the chunk being built (null until it gets content). */
  private headings: string[] | null = null;
  /** Pieces of the last prose block's portion in this chunk: the source of overlap. */
  private tail: TailUnit[] = [];
  private tailBlock = -1;
  /** Overlap source carried over to the next chunk. */
  private carry: TailUnit[] = [];
  /** Closing fence to append if the chunk is flushed inside a split code block. */
  private openCode: string | null = null;
  /** Length of the overlap text the chunk being built starts with. */
  private overlapChars = 0;
  /** Whether the chunk being built starts with a repeated opening fence. */
  private reopened = false;
  private readonly jointCosts = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly overlap: number,
    private readonly counter: Counter,
  ) {}

  finish(): Chunk[] {
    this.flush(false);
    return this.out;
  }

  heading(block: HeadingBlock): void {
    if (this.hasContent) this.flush(false);
    this.carry = [];
    this.tail = [];
    this.tailBlock = -1;
    const unit = { text: block.text, tokens: this.counter.count(block.text) };
    // Consecutive headings share a chunk unless they overflow it.
    if (this.parts.length > 0 && this.used + unit.tokens > this.max && !this.fitsExactly(block.gap, unit)) this.flush(false);
    while (this.trail.length > 0 && this.trail[this.trail.length - 1]!.level >= block.level) this.trail.pop();
    this.trail.push({ level: block.level, title: block.title });
    if (this.tryAdd(block.gap, unit, 0)) return;
    // A heading longer than a chunk: split it like prose.
    let joint = block.gap;
    for (const piece of this.splitProse(block.text, this.max, this.counter.count)) {
      if (!this.tryAdd(joint, piece, 0)) {
        this.flush(false);
        if (!this.tryAdd('', piece, 0)) this.forceAdd(piece, -1);
      }
      joint = '';
    }
  }

  prose(block: ProseBlock, id: number): void {
    // A long block is segmented up front, so that it is tallied once.
    let segments = block.text.length > 3 * this.max ? sentences(block.text) : null;
    let split = segments ? this.counter.split(segments) : null;
    const tokens = split ? split.tokens : this.counter.count(block.text);
    if (tokens <= this.max) {
      const unit = { text: block.text, tokens };
      if (this.addContent(block.gap, unit, 0, id, true)) return;
      if (this.hasContent) {
        this.flush(true);
        if (this.addContent(block.gap, unit, 0, id, true)) return;
      }
    }
    // Too long (or only headings so far): fill chunks sentence by sentence.
    segments ??= sentences(block.text);
    split ??= this.counter.split(segments);
    const units: Unit[] = [];
    let blank = ''; // whitespace-only segments are prefixed to the next one
    segments.forEach((text, i) => {
      if (text.trim() === '') {
        blank += text;
        return;
      }
      const t = split.counts[i]!;
      if (t <= this.max) units.push({ text: blank + text, tokens: blank === '' ? t : split.measure(blank + text) });
      else this.splitLong(blank + text, this.max, split.measure, units);
      blank = '';
    });
    let joint = block.gap;
    for (const unit of units) {
      if (!this.addContent(joint, unit, 0, id, false)) {
        this.flush(true);
        if (!this.addContent(joint, unit, 0, id, false)) this.forceAdd(unit, id);
      }
      joint = '';
    }
  }

  code(block: CodeBlock): void {
    const count = this.counter.count;
    const unit = { text: block.text, tokens: count(block.text) };
    if (unit.tokens <= this.max) {
      if (this.addContent(block.gap, unit, 0, -1, false)) return;
      if (this.hasContent) {
        this.flush(true);
        if (this.addContent(block.gap, unit, 0, -1, false)) return;
      }
    } else if (this.hasContent) {
      this.flush(true);
    }

    // Split by lines; every part is wrapped in fences so that it stays a code block.
    const openTokens = count(block.open);
    const closeTokens = count(`\n${block.close}`);
    const limit = this.max - openTokens - this.jointCost('\n') - closeTokens;
    if (limit < 1) {
      this.prose({ kind: 'prose', text: block.text, gap: block.gap }, -1);
      return;
    }
    const units: (Unit & { joint: string })[] = [];
    block.text.split('\n').forEach((line, i) => {
      const joint = i === 0 ? block.gap : '\n';
      const tokens = count(line);
      if (tokens <= limit) units.push({ text: line, tokens, joint });
      else this.splitLong(line, limit, count, []).forEach((piece, j) => units.push({ ...piece, joint: j === 0 ? joint : '' }));
    });
    units.forEach((piece, i) => {
      const closing = block.closed && i === units.length - 1;
      const reserve = closing ? 0 : closeTokens;
      if (!this.addContent(piece.joint, piece, reserve, -1, false)) {
        if (piece.text.trim() === '') return; // blank at a chunk boundary: nothing to carry over
        this.flush(false);
        if (i > 0) {
          this.parts.push(block.open);
          this.used = openTokens;
          this.reopened = true;
          this.headings ??= this.titles();
        }
        if (!this.addContent(i > 0 ? '\n' : '', piece, reserve, -1, false)) this.forceAdd(piece, -1);
      }
      this.openCode = closing ? null : block.close;
    });
    this.openCode = null;
  }

  // --- internals ---

  private titles(): string[] {
    return this.trail.map((h) => h.title);
  }

  private fitsExactly(joint: string, unit: Unit): boolean {
    return this.counter.count(this.parts.join('') + joint + unit.text) <= this.max;
  }

  /**
   * Appends `unit` if the chunk stays within the bound (keeping `reserve` tokens free). When the
   * sum of pieces exceeds the bound, the whole is counted (`recount`), as it may cost less.
   */
  private tryAdd(joint: string, unit: Unit, reserve: number, recount = true): boolean {
    if (this.parts.length === 0) {
      if (unit.tokens + reserve > this.max) return false;
      this.parts.push(unit.text);
      this.used = unit.tokens;
      return true;
    }
    let next = this.used + this.jointCost(joint) + unit.tokens;
    if (next + reserve > this.max) {
      if (!recount) return false;
      next = this.counter.count(this.parts.join('') + joint + unit.text);
      if (next + reserve > this.max) return false;
    }
    this.parts.push(joint, unit.text);
    this.used = next;
    return true;
  }

  private jointCost(joint: string): number {
    if (joint === '') return 0;
    let cost = this.jointCosts.get(joint);
    if (cost === undefined) this.jointCosts.set(joint, (cost = this.counter.count(joint)));
    return cost;
  }

  /** Appends content of block `block` (-1: not prose), first inserting overlap carried from the previous chunk. */
  private addContent(joint: string, unit: Unit, reserve: number, block: number, whole: boolean): boolean {
    if (this.parts.length === 0 && unit.text.trim() === '') return true; // would be trimmed away
    const sameBlock = block >= 0 && block === this.tailBlock;
    // Sentences of a block measured consistently with it add up: recounting would not help.
    const recount = !(this.counter.additive && block >= 0 && !whole);
    if (this.parts.length === 0 && this.carry.length > 0) {
      const overlap = this.pickOverlap(this.carry, unit.tokens + reserve);
      this.carry = [];
      if (overlap) {
        this.parts.push(overlap.text);
        this.used = overlap.tokens;
        if (this.tryAdd(joint, unit, reserve, recount)) {
          this.overlapChars = overlap.text.length;
          this.tail = sameBlock ? [overlap, unit] : [{ ...unit, whole }];
          return this.added(block);
        }
        this.parts = [];
        this.used = 0;
      }
    }
    if (!this.tryAdd(this.parts.length > 0 ? joint : '', unit, reserve, recount)) return false;
    if (sameBlock && this.tail.length > 0) this.tail.push(unit);
    else this.tail = [{ ...unit, whole }];
    return this.added(block);
  }

  private added(block: number): boolean {
    if (block < 0) this.tail = [];
    this.tailBlock = block;
    this.hasContent = true;
    this.headings ??= this.titles();
    return true;
  }

  /** Last resort for a unit that cannot fit even an empty chunk (a single oversized character). */
  private forceAdd(unit: Unit, block: number): void {
    if (this.parts.length > 0) this.parts.push('\n');
    this.parts.push(unit.text);
    this.used += unit.tokens;
    this.tail = [];
    this.added(block);
  }

  private flush(withOverlap: boolean): void {
    if (this.parts.length > 0) {
      // Pieces of the chunk, each with the separator before it.
      const pieces = [this.parts[0]!];
      for (let k = 1; k + 1 < this.parts.length; k += 2) pieces.push(this.parts[k]! + this.parts[k + 1]!);
      // Never emit a chunk that holds nothing but overlap.
      if (this.overlapChars === 0 || pieces.slice(1).join('').trim() !== '') {
        this.emit(pieces, this.headings ?? this.titles(), this.overlapChars > 0, this.reopened, this.openCode);
      }
    }
    this.overlapChars = 0;
    this.reopened = false;
    this.carry = withOverlap && this.overlap > 0 ? this.tail : [];
    this.tail = [];
    this.parts = [];
    this.used = 0;
    this.hasContent = false;
    this.headings = null;
    this.openCode = null;
  }

  /**
   * Emits a chunk made of `pieces`: the first is overlap if `overlap`, or a repeated opening
   * fence if `reopened`; `close` is a closing fence to add.
   */
  private emit(pieces: string[], headings: string[], overlap: boolean, reopened: boolean, close: string | null): void {
    const text = (pieces.join('') + (close === null ? '' : `\n${close}`)).trim();
    if (text === '') return;
    const tokens = this.counter.count(text);
    if (tokens <= this.max) {
      this.out.push({ index: this.out.length, text, headings, tokens });
      return;
    }
    // The whole counts more than its pieces (the counter is not additive): drop the overlap,
    // then if need be re-pack the pieces counting exactly (without the added fences).
    if (overlap) this.emit(pieces.slice(1), headings, false, reopened, close);
    else this.packExactly(mergeFences(reopened ? pieces.slice(1) : pieces), headings);
  }

  /** Emits `text` as one chunk, or as several split at sentences, words or characters if it is too long. */
  private emitText(text: string, headings: string[]): void {
    const count = this.counter.count;
    const trimmed = text.trim();
    if (trimmed === '') return;
    const tokens = count(trimmed);
    if (tokens <= this.max || codePointLength(trimmed, 0) === trimmed.length) {
      this.out.push({ index: this.out.length, text: trimmed, headings: [...headings], tokens });
      return;
    }
    let pieces = mergeFences(this.splitProse(trimmed, this.max, count).map((u) => u.text));
    if (pieces.length < 2) pieces = mergeFences(this.splitLong(trimmed, this.max, count, []).map((u) => u.text));
    if (pieces.length < 2) {
      const units: Unit[] = [];
      this.splitChars(trimmed, Math.max(1, this.max - 1), count, units);
      pieces = units.map((u) => u.text);
    }
    this.packExactly(pieces, headings);
  }

  /** Greedily packs contiguous pieces into chunks, counting each candidate exactly. */
  private packExactly(pieces: string[], headings: string[]): void {
    let current = '';
    for (const piece of pieces) {
      if (current.trim() !== '' && this.counter.count((current + piece).trim()) > this.max) {
        this.emitText(current, headings);
        current = piece;
      } else current += piece;
    }
    this.emitText(current, headings);
  }

  /**
   * Overlap for a chunk whose first content costs `need` tokens: the trailing whole sentences of
   * `source` worth about `overlap` tokens (a slightly longer last sentence is accepted), else
   * its trailing words; never more than half a chunk.
   */
  private pickOverlap(source: TailUnit[], need: number): Unit | null {
    const hard = Math.min(Math.floor(this.max / 2), this.max - need);
    const soft = Math.min(this.overlap, hard);
    if (soft <= 0 || source.length === 0) return null;
    const only = source[0]!;
    const pieces = source.length === 1 && only.whole ? this.lastSentences(only.text, soft) : source;
    if (pieces.length === 0) return null;
    let start = pieces.length;
    let total = 0;
    for (let k = pieces.length - 1; k >= 0; k--) {
      const t = pieces[k]!.tokens;
      if (total + t > soft) break;
      total += t;
      start = k;
    }
    let text: string;
    let known = false; // whether `total` is the text's count
    if (start < pieces.length) {
      text = pieces.slice(start).map((p) => p.text).join('');
      known = this.counter.additive && pieces === source;
    } else {
      const last = pieces[pieces.length - 1]!;
      const fits = last.tokens <= Math.min(hard, Math.floor(soft * 1.5));
      text = fits ? last.text : this.lastWords(last.text, soft);
    }
    text = text.trimStart();
    if (text.trim() === '') return null;
    const tokens = known ? total : this.counter.count(text);
    return tokens <= hard ? { text, tokens } : null;
  }

  /** Sentences at the end of `text`, enough to cover `budget` tokens. */
  private lastSentences(text: string, budget: number): Unit[] {
    const window = budget * 2 * MAX_CHARS_PER_TOKEN + 64;
    let cut = 0;
    if (text.length > window) {
      cut = text.length - window;
      while (cut < text.length && !isSpace(text.charCodeAt(cut))) cut++;
      if (cut === text.length) cut = text.length - window;
    }
    const segments = sentences(text.slice(cut));
    if (cut > 0) segments.shift(); // probably a partial sentence
    return segments.map((s) => ({ text: s, tokens: this.counter.count(s) }));
  }

  /** Trailing words of `text` worth at most `budget` tokens. */
  private lastWords(text: string, budget: number): string {
    const count = this.counter.count;
    let start = text.length;
    let total = 0;
    let i = text.length;
    for (;;) {
      let end = i;
      while (end > 0 && isSpace(text.charCodeAt(end - 1))) end--;
      let begin = end;
      while (begin > 0 && !isSpace(text.charCodeAt(begin - 1))) begin--;
      if (begin === end) break;
      if (end - begin > budget * MAX_CHARS_PER_TOKEN) break;
      const t = count(text.slice(begin, end));
      if (total + t > budget) break;
      total += t;
      start = begin;
      i = begin;
    }
    if (start < text.length) return text.slice(start);
    // No whitespace-delimited word fits (e.g. Chinese or Thai): use word segmentation of the end.
    const window = budget * MAX_CHARS_PER_TOKEN + 64;
    const pieces = words(text.slice(Math.max(0, text.length - window)));
    if (text.length > window) pieces.shift();
    let from = pieces.length;
    total = 0;
    for (let k = pieces.length - 1; k >= 0; k--) {
      const t = count(pieces[k]!);
      if (total + t > budget) break;
      total += t;
      from = k;
    }
    return pieces.slice(from).join('');
  }

  /** Sentence units of `text`, each within `limit` tokens (long sentences broken into words). */
  private splitProse(text: string, limit: number, measure: (text: string) => number): Unit[] {
    const out: Unit[] = [];
    for (const sentence of sentences(text)) {
      const tokens = measure(sentence);
      if (tokens <= limit) out.push({ text: sentence, tokens });
      else this.splitLong(sentence, limit, measure, out);
    }
    return out;
  }

  /** Word units of `text` (appended to `out`), each within `limit` tokens; over-long words are cut by characters. */
  private splitLong(text: string, limit: number, measure: (text: string) => number, out: Unit[]): Unit[] {
    for (const word of words(text)) {
      const tokens = measure(word);
      if (tokens <= limit) out.push({ text: word, tokens });
      else this.splitChars(word, limit, measure, out);
    }
    return out;
  }

  private splitChars(text: string, limit: number, measure: (text: string) => number, out: Unit[]): void {
    let rest = text;
    while (rest !== '') {
      const first = codePointLength(rest, 0);
      // The longest prefix within the limit (a bounded window keeps this near-linear).
      let lo = first;
      let hi = Math.min(rest.length, Math.max(first, (limit + 1) * MAX_CHARS_PER_TOKEN));
      if (measure(rest.slice(0, hi)) <= limit) lo = hi;
      else {
        hi--;
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1;
          if (measure(rest.slice(0, mid)) <= limit) lo = mid;
          else hi = mid - 1;
        }
      }
      let cut = lo;
      const c = rest.charCodeAt(cut - 1);
      if (cut > first && c >= 0xd800 && c <= 0xdbff) cut--; // do not split a surrogate pair
      const piece = rest.slice(0, cut);
      out.push({ text: piece, tokens: measure(piece) });
      rest = rest.slice(cut);
    }
  }
}

/**
 * Splits text into retrieval chunks. Pure, deterministic, linear-ish time.
 * Empty or whitespace-only text gives [].
 *
 * - Headings (ATX `#`…`######` and setext) start a new chunk once the current one has content,
 *   stay in the chunk text, and form the `headings` trail.
 * - Paragraphs, list items and fenced code blocks are packed whole, greedily, up to `maxTokens`.
 *   A longer paragraph is split at sentence boundaries (Intl.Segmenter), a longer sentence at
 *   word boundaries, a longer word by characters. A code block is never split if it fits a
 *   chunk; otherwise it is split by lines and each part re-fenced.
 * - A chunk continuing the previous chunk's section starts with about `overlapTokens` (at most
 *   half of `maxTokens`) of the previous chunk's trailing sentences; never across a heading.
 * - Every chunk has `tokens <= maxTokens` (counted on the final text), except a single character
 *   that alone counts more than `maxTokens`.
 */
export function chunkText(text: string, options: ChunkOptions = {}): Chunk[] {
  const maxTokens = Math.floor(options.maxTokens ?? DEFAULT_MAX_TOKENS);
  const overlapTokens = Math.floor(options.overlapTokens ?? DEFAULT_OVERLAP_TOKENS);
  if (!Number.isFinite(maxTokens) || maxTokens < 1) throw new RangeError(`maxTokens must be at least 1, got ${options.maxTokens}`);
  if (!Number.isFinite(overlapTokens) || overlapTokens < 0) throw new RangeError(`overlapTokens must be non-negative, got ${options.overlapTokens}`);
  if (text.trim() === '') return [];

  const counter = options.countTokens && options.countTokens !== estimateTokens ? customCounter(options.countTokens) : estimateCounter;
  const packer = new Packer(maxTokens, Math.min(overlapTokens, Math.floor(maxTokens / 2)), counter);
  parseBlocks(text).forEach((block, id) => {
    if (block.kind === 'heading') packer.heading(block);
    else if (block.kind === 'code') packer.code(block);
    else packer.prose(block, id);
  });
  return packer.finish();
}
