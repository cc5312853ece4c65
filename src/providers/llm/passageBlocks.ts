/**
 * A passage's Markdown structure, as the extractive answer writer reads it: headings,
 * paragraphs of sentences, lists of items, tables of rows and code blocks, in order.
 * Parsed with marked's lexer (GFM); what an answer may quote is cleaned for display
 * (whitespace collapsed, citation markers the passage carries removed, code left as is).
 */
import { Lexer, type Token, type Tokens } from 'marked';
import { inlineText, markdownStructure } from '../../domain/ingestion/text/markdownInline.js';
import { splitSentences } from './sentences.js';

export type Block =
  /** Sentences of a paragraph (or of a quoted one); `fragment`: the first starts mid-sentence. */
  | { kind: 'prose'; sentences: string[]; fragment: boolean }
  /** Items in order; nested items follow their parent with a greater depth. */
  | { kind: 'list'; ordered: boolean; start: number; items: { text: string; depth: number }[] }
  /** `header` is empty for rows without one (a table cut by chunking). */
  | { kind: 'table'; header: string[]; rows: string[][] }
  | { kind: 'code'; lang: string; text: string }
  | { kind: 'heading'; text: string; depth: number };

const CITATION_MARKER = /\s*\[\d{1,4}\](?!\()/g;
const TABLE_LINE = /^\s*\|.*\|\s*$/;
/** A paragraph that is only emphasis, without a sentence end: a heading in all but name. */
const PSEUDO_HEADING = /^(?:\*\*|__)[^*_]{1,80}(?:\*\*|__):?$/;
/** Text a sentence cannot start with: a chunk cut it in the middle. */
const MID_SENTENCE = /^[\p{Ll},.;:)\]}!?…/]/u;

/**
 * The blocks of `markdown` in order. `language` (as detected by the tokeniser) refines
 * sentence splitting. What the page's renderer reads and a reader never sees (MDX imports and
 * components, VitePress containers, inline HTML, entities) becomes text or goes, and links
 * read from `base` (the passage's page URL) when relative (see markdownInline.ts); code stays
 * as written. Pure; never throws on malformed Markdown (it is read as text).
 */
export function passageBlocks(markdown: string, language: string, base: string | null = null): Block[] {
  const out: Block[] = [];
  const inline = (text: string, collapse = true) => display(inlineText(text, base), collapse);
  read(new Lexer({ gfm: true }).lex(markdownStructure(markdown.replace(/\r\n?/g, '\n'))), language, inline, out);
  const first = out.find((b) => b.kind !== 'heading');
  if (first?.kind === 'prose' && out[0] === first && MID_SENTENCE.test(first.sentences[0] ?? '')) first.fragment = true;
  return out;
}

type Inline = (text: string, collapse?: boolean) => string;

function read(tokens: readonly Token[], language: string, inline: Inline, out: Block[]): void {
  for (const token of tokens) {
    switch (token.type) {
      case 'heading':
        out.push({ kind: 'heading', text: display(token.text), depth: (token as Tokens.Heading).depth });
        break;
      case 'paragraph':
      case 'text':
      case 'html':
        paragraph(token.type === 'html' ? token.text.replace(/<[^>]*>/g, ' ') : token.text, language, inline, out);
        break;
      case 'blockquote':
        read((token as Tokens.Blockquote).tokens, language, inline, out);
        break;
      case 'list':
        out.push(list(token as Tokens.List, inline));
        break;
      case 'table': {
        const table = token as Tokens.Table;
        out.push({ kind: 'table', header: table.header.map((c) => inline(c.text)), rows: table.rows.map((r) => r.map((c) => inline(c.text))) });
        break;
      }
      case 'code':
        if (token.text.trim() !== '') out.push({ kind: 'code', lang: ((token as Tokens.Code).lang ?? '').split(/\s/)[0]!, text: token.text.replace(/\s+$/, '') });
        break;
      default:
        break; // space, hr, def: nothing to quote
    }
  }
}

function paragraph(text: string, language: string, inline: Inline, out: Block[]): void {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  // Rows of a table whose header a chunk boundary cut off are not a paragraph.
  if (lines.length > 0 && lines.every((l) => TABLE_LINE.test(l))) {
    const rows = lines.filter((l) => !/^\s*\|?[\s:|-]+\|?\s*$/.test(l)).map((l) => cells(l, inline));
    if (rows.length > 0) out.push({ kind: 'table', header: [], rows });
    return;
  }
  // Line breaks become two spaces: Thai clause splitting reads them as a boundary.
  const clean = inline(text.replace(/[ \t]*\n[ \t]*/g, '  '), false);
  if (clean === '') return;
  if (PSEUDO_HEADING.test(clean)) {
    out.push({ kind: 'heading', text: clean.replace(/[*_:]/g, '').replace(/\s+/g, ' '), depth: 6 });
    return;
  }
  const sentences = splitSentences(clean, language);
  if (sentences.length > 0) out.push({ kind: 'prose', sentences, fragment: false });
}

function list(token: Tokens.List, inline: Inline, depth = 0, into?: { text: string; depth: number }[]): Block & { kind: 'list' } {
  const items = into ?? [];
  for (const item of token.items) {
    // An item's own words: not its nested lists (items of their own), nor its code blocks (code is never text).
    const own = item.tokens.filter((t) => t.type !== 'list' && t.type !== 'code').map((t) => ('text' in t ? t.text : '')).join(' ');
    const text = inline(own);
    if (text !== '') items.push({ text, depth });
    for (const nested of item.tokens) if (nested.type === 'list') list(nested as Tokens.List, inline, depth + 1, items);
  }
  return { kind: 'list', ordered: token.ordered, start: typeof token.start === 'number' ? token.start : 1, items };
}

function cells(line: string, inline: Inline): string[] {
  return line.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((cell) => inline(cell));
}

/** Text for display: citation markers outside code spans removed; one line with single spaces when `collapse`. */
function display(text: string, collapse = true): string {
  const out = text
    .split(/(`+[^`]*`+)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(CITATION_MARKER, '')))
    .join('');
  return (collapse ? out.replace(/\s+/g, ' ') : out).trim();
}
