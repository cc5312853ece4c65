/**
 * The words of a question that say what kind of answer is wanted rather than what it is
 * about, and the queries made only of such words. The extractive answer writer never counts
 * them as overlap; search and summarise do not summarise a query made only of them.
 */
import { analyze, analyzedWords, detectLanguage, type Language } from './tokenize.js';

/**
 * Question words, copulas and auxiliaries per language: they say what kind of answer is
 * wanted, not what it is about, so they never count as overlap ("Wie hieß …" must not pick
 * "Im Dezember hieß es …"). For de, el, hi, tr and zh also the commonest function words the
 * tokeniser keeps (0.5–1 point on XQuAD there; no gain in ar, th, vi).
 */
const QUESTION_WORDS: Readonly<Record<string, string>> = {
  en: 'what which who whom whose when where why how many much did does do is was were are be been name named called known kind type can could should would will i my me we our get got one',
  de: 'was wer wen wem wessen wann wo woher wohin warum wieso wie viele viel welche welcher welches welchem welchen hat haben hatte hatten wurde wurden ist sind war waren heißt hieß hießen heißen genannt nennt beim vom ins zur zum um nach über',
  es: 'qué que cuál cuáles quién quiénes cuándo dónde cómo cuántos cuántas cuánto cuánta por fue es son era eran llama llamaba nombre',
  fr: 'que quoi qui quel quelle quels quelles quand où comment combien pourquoi est sont était nom appelle',
  ro: 'ce care cine când unde cum câți câte cât de a fost este sunt au numele numit',
  ru: 'что кто когда где как сколько какой какая какие каком какого почему чем чего кого был была было были является называется',
  el: 'τι ποιος ποια ποιο ποιοι ποιες ποιον ποιας πότε πού πώς πόσα πόσοι πόσες πόσο γιατί ήταν είναι ο η το οι τα του της των στο στη στην σε και',
  tr: 'ne kim nerede nasıl hangi kaç neden nedir kimdir zaman hangisi bir ve',
  vi: 'gì nào đâu ai bao nhiêu khi là tại sao thế như mấy',
  hi: 'क्या कौन कब कहाँ कहां कैसे कितने कितना कितनी किस किसने किसको क्यों है था थे थी के की का में को से ने और',
  ar: 'ما ماذا من متى أين كيف كم لماذا هل أي التي الذي',
  zh: '什么 谁 谁是 谁在 哪 哪位 哪里 哪个 哪些 哪种 何时 什么时候 为什么 怎么 怎样 如何 多少 几 是 的 了 吗 呢 在 和 叫 叫做 名字 称为',
  ja: '何 誰 いつ どこ どの どれ なぜ どう いくつ いくら',
  th: 'อะไร ใคร ที่ไหน เมื่อไร เมื่อไหร่ อย่างไร ทำไม เท่าไร เท่าไหร่ กี่ ไหน ใด คือ',
};

const cache = new Map<string, ReadonlySet<string>>();

/** The question words of `language` as the tokeniser makes terms of them (English ones for unknown-language text, which it stems as English). */
export function questionTerms(language: Language): ReadonlySet<string> {
  let terms = cache.get(language);
  if (!terms) {
    const words = QUESTION_WORDS[language] ?? (language === 'und' ? QUESTION_WORDS.en : undefined);
    terms = new Set(words ? analyze(words, language).terms : []);
    cache.set(language, terms);
  }
  return terms;
}

/** Scripts where one character is a word. */
const WIDE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const LATIN = /^[\p{Script=Latin}\p{Script=Common}\p{Script=Inherited}]*$/u;

/**
 * Whether `query` is too short or too vague to summarise: it has no word that is about
 * something, i.e. none of at least two characters (one in Chinese, Japanese or Korean) that
 * is neither a stop word of the tokeniser nor a question word ("h", "the", "how do I",
 * "what is the"). Latin-script text of unknown language is read as English. Pure.
 */
export function isVagueQuery(query: string): boolean {
  const detected = detectLanguage(query);
  const language = detected === 'und' && LATIN.test(query) ? 'en' : detected;
  const asked = questionTerms(language);
  for (const word of analyzedWords(query, language)) {
    const text = query.slice(word.start, word.end);
    if ((text.length >= 2 || WIDE.test(text)) && word.terms.some((t) => !asked.has(t))) return false;
  }
  return true;
}

/**
 * The character bigrams of a question that join a question word to the word beside it
 * ("如何安装" → 何安; "用什么替代" → 用什, 么替). The tokeniser makes every bigram of a Han or
 * Katakana run, so a question's terms also hold these, which are about how it is asked, not
 * what: they match only text that asks the same way ("下面的示例演示了如何安装并加载 cookie
 * 解析中间件" for "如何安装 Express？"). Only question words of two characters or more count
 * here: counting one-character function words too (是, 在, 叫) cost XQuAD zh a point
 * (bench:extractive, gold at bm25 90.6 → 89.6 %; with the rule as it is, 90.3 %).
 * Bigrams within a word, or joining two words that are both about something ("コール|バック" →
 * ルバ), are kept. Empty outside Chinese and Japanese.
 */
export function scaffoldBigrams(question: string, language: Language): ReadonlySet<string> {
  const out = new Set<string>();
  if (language !== 'zh' && language !== 'ja') return out;
  const asked = questionTerms(language);
  const isAsked = (terms: readonly string[]) => terms.length > 0 && terms.every((t) => asked.has(t));
  let previous: { end: number; last: string; asked: boolean } | null = null;
  for (const word of analyzedWords(question, language)) {
    const chars = [...question.slice(word.start, word.end)];
    const here = { end: word.end, last: chars[chars.length - 1]!, asked: chars.length >= 2 && isAsked(word.terms) };
    if (previous && previous.end === word.start && (previous.asked || here.asked)) out.add(previous.last + chars[0]!);
    previous = here;
  }
  return out;
}
