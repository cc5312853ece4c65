/**
 * An MDX page as the Markdown a reader of the rendered page sees, for `lore import`: what its
 * components say stays, the syntax goes. Code fences are never touched.
 *
 * - ESM lines (`import …`, `export …`) go.
 * - A component that renders a command (`<PackageManagerCommand command="npm install express" />`:
 *   a self-closing tag with a `command`, `cmd` or `code` attribute) becomes a fenced code block,
 *   so "install it with:" keeps what it introduces.
 * - Content nested in a component is dedented to the component's own level: `<Param>` bodies
 *   indented ten spaces are text, not an indented code block.
 * - Callouts and parameters become labels (`<Alert type="warning">` → "Warning:", `<Param
 *   name="limit" default='"100kb"'>` → "`limit` (default: `"100kb"`):"), as markdownStructure
 *   reads them.
 * - Other tags go, their text content stays; a tag written over several lines goes whole.
 */
import { fencedLines, markdownStructure } from '../domain/ingestion/text/markdownInline.js';

const ESM_LINE = /^(?:import|export)\s/;
/** A component tag alone on its line: `<Name …>`, `<Name … />` or `</Name>`. */
const OWN_LINE_TAG = /^(\s*)<(\/?)([A-Z][\w.]*)\b([^<>]*?)(\/?)>\s*$/;
/** The start of a component tag whose attributes go on over the next lines. */
const OPEN_TAG_START = /^\s*<([A-Z][\w.]*)\b[^<>]*$/;
const INLINE_TAG = /<\/?[A-Z][\w.]*(?:\s[^<>]*?)?\/?>/g;
const COMMAND_ATTRIBUTE = /(?:^|\s)(?:command|cmd|code)=(?:"([^"]*)"|'([^']*)'|\{`([^`]*)`\})/;
const LANG_ATTRIBUTE = /(?:^|\s)(?:lang|language)=["']([\w+-]+)["']/;

/** `text` (an MDX page without its front matter) as Markdown. */
export function mdxAsMarkdown(text: string): string {
  const lines = text.split('\n');
  const code = fencedLines(lines);
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (code[i]) {
      out.push(line);
      continue;
    }
    if (ESM_LINE.test(line)) {
      out.push('');
      continue;
    }
    const tag = OWN_LINE_TAG.exec(line);
    const command = tag && tag[5] === '/' ? COMMAND_ATTRIBUTE.exec(tag[4]!) : null;
    if (command) {
      const indent = tag![1]!;
      const lang = LANG_ATTRIBUTE.exec(tag![4]!)?.[1] ?? 'sh';
      const fence = '```';
      out.push(`${indent}${fence}${lang}`, ...(command[1] ?? command[2] ?? command[3] ?? '').split('\n').map((l) => indent + l), `${indent}${fence}`);
      continue;
    }
    // A tag whose attributes run over several lines goes whole (the component's props are not text).
    if (OPEN_TAG_START.test(line)) {
      let end = i;
      while (end + 1 < lines.length && !/>\s*$/.test(lines[end]!) && !code[end + 1]) end++;
      if (/\/>\s*$/.test(lines[end]!) || end > i) {
        for (let k = i; k <= end; k++) out.push('');
        i = end;
        continue;
      }
    }
    out.push(line);
  }
  return stripTags(markdownStructure(dedentComponents(out, fencedLines(out))));
}

/**
 * Lines nested in a component (between `<Name …>` and `</Name>`, each alone on its line) shifted
 * left by the least indentation of the lines directly in it (its text, and the tags of the
 * components nested in it), so each level of nesting starts at the margin.
 */
function dedentComponents(input: readonly string[], code: readonly boolean[]): string {
  const lines = [...input];
  const open: { name: string; at: number }[] = [];
  const ranges: { from: number; to: number; depth: number }[] = [];
  lines.forEach((line, i) => {
    if (code[i]) return;
    const tag = OWN_LINE_TAG.exec(line);
    if (!tag || tag[5] === '/') return;
    if (tag[2] !== '/') open.push({ name: tag[3]!, at: i });
    else {
      const k = open.map((o) => o.name).lastIndexOf(tag[3]!);
      if (k < 0) return;
      ranges.push({ from: open[k]!.at + 1, to: i, depth: k });
      open.length = k;
    }
  });
  // The innermost component each line is directly in (-1: none).
  const owner = lines.map(() => -1);
  ranges.sort((a, b) => a.depth - b.depth);
  ranges.forEach((r, n) => owner.fill(n, r.from, r.to));
  const indent = (line: string) => /^[ \t]*/.exec(line)![0].length;
  ranges.forEach((_, n) => {
    const direct = lines.map((_, i) => i).filter((i) => owner[i] === n);
    const shift = Math.min(Infinity, ...direct.filter((i) => lines[i]!.trim() !== '').map((i) => indent(lines[i]!)));
    if (shift > 0 && shift < Infinity) for (const i of direct) lines[i] = lines[i]!.slice(Math.min(shift, indent(lines[i]!)));
  });
  return lines.join('\n');
}

/** Component tags left after markdownStructure removed, outside code; their text stays. */
function stripTags(text: string): string {
  const lines = text.split('\n');
  const code = fencedLines(lines);
  return lines.map((line, i) => (code[i] ? line : line.replace(INLINE_TAG, ''))).join('\n');
}
