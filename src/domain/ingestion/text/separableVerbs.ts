/**
 * German's separable verbs, as questions split them: a question puts the particle last ("Wie
 * richte ich einen Fehlerhandler ein?", "Wie fahre ich die Anwendung herunter?"), while
 * documentation writes the verb whole ("einrichten", "Herunterfahren"). Search looks the verb
 * up whole (domain/search/query.ts joined words), and the extractive writer counts it as a
 * word of the question.
 */
import { analyze, analyzedWords } from './tokenize.js';

/** The particles a German verb separates from (ab|fahren, ein|richten, fest|legen, herunter|fahren …). */
const PARTICLES = new Set(
  'ab an auf aus bei bereit dar durch ein fest fort frei her herab heran herauf heraus herein herum herunter hervor hin hinauf hinaus hinein hinunter hoch los mit nach statt teil um vor voran voraus vorbei weg weiter wieder zu zurück zusammen'.split(' '),
);
/** Question words before the finite verb ("Wie richte ich …"); without one, the verb comes first ("Richte ich … ein?"). */
const QUESTION_WORDS = new Set('wie was wo wann warum weshalb wieso wer wen wem wessen welche welcher welches welchen welchem womit wodurch wofür wozu woran worauf woher wohin'.split(' '));
const LETTERS = /^[\p{L}\p{M}]+$/u;

interface Word { start: number; end: number; terms: readonly string[] }

/**
 * The verb a German question splits, joined as documentation writes it (`text`, to be
 * analysed: "Wie lege ich die Template-Engine fest?" → "festlege", which stems as "festlegen"
 * does), with the terms of its two parts: the question's last word is a particle and its
 * finite verb is its first word, or the one after a question word. Null when the question
 * has no such shape. `analysed`: the question's words (tokenize.ts analyzedWords, German).
 */
export function separableVerb(query: string, analysed: readonly Word[]): { text: string; parts: string[] } | null {
  const last = analysed[analysed.length - 1];
  if (!last || analysed.length < 3 || !/^[\s?!.]*$/.test(query.slice(last.end))) return null;
  const particle = query.slice(last.start, last.end).toLowerCase();
  if (!PARTICLES.has(particle)) return null;
  const first = analysed[0]!;
  const at = QUESTION_WORDS.has(query.slice(first.start, first.end).toLowerCase()) ? analysed[1]! : first;
  const verb = query.slice(at.start, at.end);
  if (at === last || !LETTERS.test(verb)) return null;
  return { text: particle + verb.toLowerCase(), parts: [...at.terms, ...last.terms] };
}

/** The term of the verb a German question splits (see `separableVerb`), or null. */
export function separableVerbTerm(question: string): string | null {
  const verb = separableVerb(question, [...analyzedWords(question, 'de')]);
  const terms = verb ? analyze(verb.text, 'de').terms : [];
  return terms.length === 1 ? terms[0]! : null;
}
