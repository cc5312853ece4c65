/**
 * A query as a visitor types it into a search box (bench:typing, bench:search --forms): as
 * written, its last word cut, one typo, or both, made deterministically from the query's id.
 */
import { createHash } from 'node:crypto';

export const FORMS = ['as written', 'cut', 'typo', 'both'] as const;
export type Form = (typeof FORMS)[number];
/** Languages written without spaces: no word to cut or mistype, so only `as written` is measured. */
const UNSPACED = new Set(['zh', 'ja', 'th']);

/** A word of a query: where it is and its letters (punctuation around it left out). */
interface Word { start: number; chars: string[] }

function wordsOf(query: string): Word[] {
  return [...query.matchAll(/\S+/g)]
    .map((m) => {
      const core = /^[^\p{L}\p{M}\p{N}_]*(.*?)[^\p{L}\p{M}\p{N}_]*$/u.exec(m[0])!;
      return { start: m.index! + m[0].indexOf(core[1]!), chars: Array.from(core[1]!) };
    })
    .filter((w) => w.chars.length > 0);
}

/** A word a typo may go into: four letters or more, no digit or `_` (identifiers are typed with care, or pasted). */
const typeable = (w: Word) => w.chars.filter((c) => /\p{L}/u.test(c)).length >= 4 && !w.chars.some((c) => /[\p{N}_]/u.test(c));

/** The longest typeable word of `words` (the first of equals), or undefined. */
const longest = (words: Word[]) => words.filter(typeable).reduce<Word | undefined>((best, w) => (!best || w.chars.length > best.chars.length ? w : best), undefined);

/**
 * One typo in `chars` chosen by `seed`: two adjacent letters swapped, one dropped or one doubled;
 * never the first letter, and never the dot or hyphen of `import.meta` or `content-type`.
 */
function typo(chars: string[], seed: Buffer): string[] {
  const letter = (i: number) => i > 0 && /[\p{L}\p{M}]/u.test(chars[i] ?? '');
  const letters = chars.flatMap((_, i) => (letter(i) ? [i] : []));
  // A swap of two equal letters would change nothing: swap only where they differ.
  const swappable = letters.filter((i) => letter(i + 1) && chars[i] !== chars[i + 1]);
  const kind = seed[0]! % 3;
  const at = (positions: number[]) => positions[seed.readUInt32BE(1) % positions.length]!;
  const out = [...chars];
  if (kind === 0 && swappable.length > 0) {
    const i = at(swappable);
    [out[i], out[i + 1]] = [out[i + 1]!, out[i]!];
  } else if (kind === 2) {
    const i = at(letters);
    out.splice(i, 0, chars[i]!);
  } else {
    out.splice(at(letters), 1);
  }
  return out;
}

/** `query` with `word`'s letters replaced by `chars`. */
const replaced = (query: string, word: Word, chars: string[]) => query.slice(0, word.start) + chars.join('') + query.slice(word.start + word.chars.join('').length);

/**
 * The forms of a query as a visitor types it, chosen by a hash of its id (the same every run).
 * `cut`: everything after the last word dropped (typing stops before the "?") and the last word
 * cut to 60 % of its length (rounded up, at least 2 characters; under 4 it stays whole).
 * `typo`: one typo in the longest typeable word (the query unchanged when it has none). `both`:
 * the typo in the longest typeable word before the last, else in the last word, then the cut.
 * Null for a language written without spaces.
 */
export function forms(id: string, query: string, lang: string): Record<Form, string | null> {
  if (UNSPACED.has(lang)) return { 'as written': query, cut: null, typo: null, both: null };
  const seed = createHash('sha1').update(id).digest();
  const cut = (q: string) => {
    const last = wordsOf(q).at(-1);
    if (!last) return q;
    const keep = last.chars.length < 4 ? last.chars.length : Math.max(2, Math.ceil(last.chars.length * 0.6));
    return q.slice(0, last.start) + last.chars.slice(0, keep).join('');
  };
  const withTypo = (q: string, word: Word | undefined) => (word ? replaced(q, word, typo(word.chars, seed)) : q);
  const words = wordsOf(query);
  const beforeLast = longest(words.slice(0, -1));
  return {
    'as written': query,
    cut: cut(query),
    typo: withTypo(query, longest(words)),
    both: cut(withTypo(query, beforeLast ?? longest(words.slice(-1)))),
  };
}

