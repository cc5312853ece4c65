/**
 * The README's (and docs/*.md's) shell blocks as a test runs them: extracted with marked's
 * lexer, split into steps at their `# →` lines, and the checks a reader makes of what came
 * back (no error body, the keys and the hits the README shows).
 */
import { readFileSync } from 'node:fs';
import { marked, type Token } from 'marked';

export interface ShellBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  text: string;
  /** Set by a `<!-- doc-test: skip — reason -->` comment right before the block. */
  skip?: string;
}

/** A block's commands up to one `# →` expectation (or the block's end), and that expectation. */
export interface Step {
  line: number;
  commands: string;
  /** The text after `# →` (and the comment lines continuing it), or undefined. */
  expected?: string;
}

const SHELL = new Set(['sh', 'bash', 'shell']);
const SKIP = /<!--\s*doc-test:\s*skip\b\s*[—:-]?\s*([\s\S]*?)\s*-->/;

/** Every shell block of a Markdown file, in order, with its line and skip reason. */
export function shellBlocks(file: string): ShellBlock[] {
  const source = readFileSync(file, 'utf8');
  const blocks: ShellBlock[] = [];
  let offset = 0;
  let pendingSkip: string | undefined;
  const walk = (tokens: Token[]): void => {
    for (const token of tokens) {
      const at = source.indexOf(token.raw, offset);
      if (at >= 0 && token.type !== 'list' && token.type !== 'list_item' && token.type !== 'blockquote') offset = at + token.raw.length;
      if (token.type === 'html') {
        const skip = SKIP.exec(token.raw);
        pendingSkip = skip ? skip[1] || 'no reason given' : undefined;
        continue;
      }
      if (token.type === 'code') {
        if (SHELL.has((token.lang ?? '').split(/\s/)[0]!)) {
          const line = source.slice(0, at >= 0 ? at : offset).split('\n').length;
          blocks.push({ file, line, text: token.text, ...(pendingSkip ? { skip: pendingSkip } : {}) });
        }
        pendingSkip = undefined;
        continue;
      }
      if (token.type === 'space') continue;
      pendingSkip = undefined;
      const nested = (token as { tokens?: Token[]; items?: Token[] }).items ?? (token as { tokens?: Token[] }).tokens;
      if (nested && token.type !== 'paragraph' && token.type !== 'text' && token.type !== 'heading') walk(nested);
    }
  };
  walk(marked.lexer(source));
  return blocks;
}

/** Splits a block at its `# →` lines: each step's commands and what the README says they print. */
export function steps(block: ShellBlock): Step[] {
  const lines = block.text.split('\n');
  const result: Step[] = [];
  let commands: string[] = [];
  let start = 0;
  for (let i = 0; i < lines.length; i++) {
    const arrow = /^\s*#\s*→\s?(.*)$/.exec(lines[i]!);
    if (!arrow) {
      if (commands.length === 0) start = i;
      commands.push(lines[i]!);
      continue;
    }
    const expected = [arrow[1]!];
    while (i + 1 < lines.length && /^\s*#\s{2,}\S/.test(lines[i + 1]!)) expected.push(lines[++i]!.replace(/^\s*#\s*/, ''));
    result.push({ line: block.line + 1 + start, commands: commands.join('\n'), expected: expected.join(' ') });
    commands = [];
  }
  if (commands.some((c) => c.trim() && !c.trim().startsWith('#'))) result.push({ line: block.line + 1 + start, commands: commands.join('\n') });
  return result;
}

/** The JSON values a command printed: whole lines, SSE `data:` lines, and values printed back to back. */
export function jsonValues(output: string): unknown[] {
  const values: unknown[] = [];
  const text = output.replace(/^data: (?=[{[])/gm, '');
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"' && depth > 0) inString = true;
    else if (c === '{' || c === '[') {
      if (depth === 0) start = i;
      depth++;
    } else if ((c === '}' || c === ']') && depth > 0 && --depth === 0) {
      try {
        values.push(JSON.parse(text.slice(start, i + 1)));
      } catch {
        // Not JSON (a shell listing in brackets, say): nothing to check.
      }
    }
  }
  return values;
}

/** Lore's error body: `{message}`, or `{message, errors}` on 422 — and an SSE error event. */
function isErrorBody(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  if ((value as { type?: unknown }).type === 'error') return true;
  return typeof (value as { message?: unknown }).message === 'string' && keys.every((k) => k === 'message' || k === 'errors');
}

/**
 * What a reader would call a failure in a step's output, given what the README shows: an
 * error body; a key the README shows that is missing; an empty list where it shows a hit.
 * Returns the problems found (empty: the step did what the README says).
 */
export function problems(output: string, expected: string | undefined): string[] {
  const found: string[] = [];
  const values = jsonValues(output);
  for (const value of values) if (isErrorBody(value)) found.push(`error body ${JSON.stringify(value).slice(0, 300)}`);
  if (!expected || !/[{[]/.test(expected)) return found;
  if (values.length === 0) return [...found, `no JSON where the README shows ${expected.slice(0, 120)}`];
  const printed = JSON.stringify(values);
  for (const [, key] of expected.matchAll(/"([A-Za-z_][\w.]*)":/g)) {
    if (!printed.includes(`"${key}":`)) found.push(`no "${key}" where the README shows one`);
  }
  for (const [, key, value] of expected.matchAll(/"([A-Za-z_]\w*)":\s*("(?:[^"\\…]|\\.)*"|null|true|false|-?\d+)(?=\s*[,}\]])/g)) {
    if (!printed.includes(`"${key}":${value}`)) found.push(`no "${key}": ${value} where the README shows one`);
  }
  for (const [, key] of expected.matchAll(/"([A-Za-z_]\w*)":\s*\[\s*[{"…]/g)) {
    if (!hasNonEmpty(values, key!)) found.push(`"${key}" is empty where the README shows a hit`);
  }
  return found;
}

function hasNonEmpty(value: unknown, key: string): boolean {
  if (Array.isArray(value)) return value.some((v) => hasNonEmpty(v, key));
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  if (Array.isArray(record[key]) && (record[key] as unknown[]).length > 0) return true;
  return Object.values(record).some((v) => hasNonEmpty(v, key));
}

/** A placeholder left for the reader to fill in (`…` in a command, not in a comment or a JSON body's sample). */
export function placeholders(commands: string): string[] {
  return commands
    .split('\n')
    .map((line) => line.replace(/\s#\s.*$/, '').trimEnd())
    .filter((line) => !line.trim().startsWith('#') && line.includes('…'));
}
