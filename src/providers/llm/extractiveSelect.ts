/**
 * What the extractive answer provider quotes, and in what shape. Tuned on XQuAD with
 * `npm run bench:extractive` and on Lore's own docs with `npm run bench:answers -- --sets docs`.
 *
 * A passage is read as Markdown (./passageBlocks.ts): its paragraphs give sentences, its
 * lists items, its tables rows (quoted as statements: "`DATABASE_URL`: use a PostgreSQL
 * server … instead of PGlite"), its code blocks and headings only context. These are the
 * units an answer is made of. Score of a unit = its coverage, the idf-weighted share of the
 * question's content terms it contains (idf over all the passages' units, so words every
 * passage repeats count little and the rare question words most; question words such as
 * "how many", "wie viele", "多少", "กี่" never count; the code block a sentence introduces
 * counts for it at CODE_CREDIT)
 *   + NEIGHBOUR_SHARE × the better coverage of the sentences just before and after it (for
 *     sentences, and not for how-to questions: rows, items and instructions stand alone)
 *   + HEADING_SHARE × the coverage of the headings it stands under (the passage title too),
 *     and QUESTION_HEADING_SHARE × it more under a heading that is a question (an FAQ)
 *   + a bonus for its passage's retrieval rank (earlier passages were found more relevant)
 *   + outside English, PASSAGE_SHARE × the coverage of its whole passage (it picks the best
 *     unit; the units following it are compared without it)
 *   + a bonus when the question asks for a number, a date or a limit and the unit has digits
 *   + a bonus when an English "What is X?" meets the sentence that opens "X is …"
 *   − a penalty for very short or very long units
 *   − a penalty for a unit linking to another of the passages: it points to the answer.
 *
 * The answer is built around the best unit (coherence over coverage): further units join
 * when they score at least FOLLOW_SHARE of it (rows and items also need FOLLOW_SHARE of its
 * coverage and one of its matched words: they are facts of their own), from at most two
 * passages; a definition, an instruction answering a how-to, or the best match for a yes/no
 * question takes nothing from other passages. (Requiring a second passage to cover question
 * words the first does not cost XQuAD up to 0.8 points and the docs set 4: words are a poor
 * proxy for "another part of the question".) A sentence that introduces a code block, list
 * or table (it ends with a colon) brings that block along — one block per answer — or loses
 * its colon; for a how-to question a code block right after the chosen sentence comes too,
 * and a step of a numbered list brings the whole list. Headings are never quoted, and
 * neither is the first sentence of a chunk that starts mid-sentence. Terms come from the search tokeniser
 * (stemming, folding, Chinese/Japanese bigrams, Thai words), in each passage's own language.
 */
import { linkTexts, MARKDOWN_LINK } from '../../domain/ingestion/text/markdownInline.js';
import type { QuestionTerm } from '../../domain/answers/port.js';
import { passageText } from '../../domain/search/evidence.js';
import { wordSegmenter } from '../../domain/ingestion/text/segments.js';
import { questionTerms, scaffoldBigrams } from '../../domain/ingestion/text/questionWords.js';
import { separableVerbTerm } from '../../domain/ingestion/text/separableVerbs.js';
import { analyze, detectLanguage, type Language } from '../../domain/ingestion/text/tokenize.js';
import { passageBlocks, type Block } from './passageBlocks.js';
import { openCodeSpan, splitSentences } from './sentences.js';

/** A retrieved passage, in retrieval order (only what selection reads). */
export interface Passage {
  ref: number;
  text: string;
  title?: string | null;
  /** The page the passage comes from: relative links in its text are read from it. */
  url?: string | null;
  /** The whole entry `text` was taken from: read instead of `text` when short enough (domain/search/evidence.ts `passageText`). */
  source?: string;
  /** Added to the score of each of its units: the visitor is reading this passage (AnswerRequest). */
  prior?: number;
  /** The title of the page a section passage was cut from (AnswerRequest `pageTitle`): a weaker heading of its units. */
  pageTitle?: string | null;
}

/**
 * How close in meaning `question` is to each of `texts` (cosine of sentence embeddings), in
 * order. The extractive provider gets one from the local embedding model.
 */
export type Similarity = (question: string, texts: readonly string[]) => Promise<number[]>;

/**
 * A piece of the answer: consecutive sentences of a paragraph, items (or table rows), or a
 * code block. `headings`: on the first piece of each passage, the headings the quoted units
 * of that passage stand under (the first unit's), so its citation can link that section.
 */
export type Piece = { headings?: string[] } & (
  | { kind: 'sentences'; ref: number; sentences: string[] }
  /** `cited` false: the sentence introducing the items carries the citation. */
  | { kind: 'items'; ref: number; items: string[]; ordered: boolean; cited: boolean }
  | { kind: 'code'; ref: number; lang: string; text: string }
);

/** By passage rank; more would let a passage's rank outweigh what its sentences say. */
const RANK_BONUS = [0.12, 0.06, 0.03, 0.015];
/**
 * Answers often sit next to the sentence that matches the question ("Peyton Manning became …
 * He is also the oldest quarterback …"): +2 points of answers holding the gold string on
 * XQuAD for about 10% longer answers.
 */
const NEIGHBOUR_SHARE = 0.4;
const HEADING_SHARE = 0.15;
/**
 * A section passage's page title is a heading of all its units, at this share of a heading's
 * match: "The Why" stands under "Dependency Pre-Bundling", and "Why does Vite pre-bundle
 * dependencies?" is asked of the page. bench:writer Vite cited 83.8 → 85.3 %, no other answer
 * changed; the same at 1 (on another machine's capture, where the section ranked lower and a
 * sibling under the same page won: no answer changed). In the text the model embeds it cost
 * 2–6 answers.
 */
const PAGE_SHARE = 0.5;
/**
 * In a language the embedding model does not read (it re-scores English units only; not for
 * undetermined ones either, short or mostly code: they may be English), a unit
 * gains this share of its passage's coverage: the question's terms found anywhere in the
 * passage, its headings and code included. A sentence sharing two words of "¿Cómo configuro
 * las cabeceras de seguridad?" in the CORS options is not the answer when the Helmet section
 * holds all three. It chooses the best unit only: followers are compared without it, so
 * answers are no longer (bench:writer Express de/es/ja/zh-cn gold 78.7 → 80.9 %, cited 80.9 →
 * 84.0 %, third-party 82.7 / 84.1 → 83.6 / 85.4 %; XQuAD, gold at its BM25 rank, within ±0.5
 * point in every language; 0.4–0.6 the same). In English it traded Express and Vite answers
 * for Lore's docs' (0.15–0.4: third-party gold −0.4 point, docs cited +2.6–4): not there.
 */
const PASSAGE_SHARE = 0.5;
/**
 * A heading that is a question (an FAQ's "Which version of Node.js does Express require?") is
 * what its section answers: matching it counts this much more (bench:writer third-party gold
 * 72.1 → 73.9 %, cited 73.0 → 75.2 %; 0.3–1.5 tried) — when it asks the same kind of question:
 * "Which template engines does Express support?" does not answer "How do I set the template
 * engine?" (third-party 76.0 / 78.7 → 76.4 / 79.6 %).
 */
const QUESTION_HEADING = /[?？]\s*$/u;
const QUESTION_HEADING_SHARE = 1;
/**
 * A question heading counts only when it names this share of the question: an FAQ's "Wie kann
 * ich meine Anwendung strukturieren?" shares one word of "Wie fahre ich die Anwendung sauber
 * herunter?" and is not the question asked (with `questionWeights`, bench:writer third-party
 * 80.1 / 83.2 → 80.5 / 83.6 %; 0.35–0.45 the same, 0.3 and 0.6 less).
 */
const QUESTION_HEADING_MIN = 0.4;
const CODE_CREDIT = 0.6;
const NUMERIC_BONUS = 0.08;
/**
 * For how-to questions, units that instruct (a sentence introducing a code block, one quoting a
 * command or snippet inline, a step of a numbered list, a table row naming a setting) bring
 * their code and keep other passages out, when they match at least this share of the question.
 * (They once gained a score bonus too, 0.5: with the embedding model's re-scoring it only cost
 * answers, bench:writer third-party gold 63.3 % against 68.1 % without.)
 */
const HOWTO_MIN_COVERAGE = 0.4;
/**
 * Outside English (no model re-scoring), an instructing unit gains this for a how-to: a tie
 * breaker among the sentences that follow the best one, so "テンプレートエンジンを設定するには？"
 * quotes the sentence with `app.set('view engine', 'pug')` rather than another that shares as
 * many of its words (bench:writer Express ja gold 78.3 → 87.0 %, no set lower; 0.1 gained half
 * as much, 0.2 and more cost es and zh-cn answers; XQuAD unchanged).
 */
const HOWTO_TIE = 0.05;
/** Inline code that is a command or snippet, not a name: long, with a space or markup. */
const SNIPPET = /`[^`]{20,}`/;
const DEFINITION_QUESTION = /^\s*(?:what|who)\s+(?:is|are|was|were)\s+(?:an?\s+|the\s+)?([^?]{2,60}?)\s*\?*\s*$/i;
const DEFINITION_BONUS = 0.6;
/** Lengths below/above these (in characters, CJK counted triple) cost up to the penalty. */
const SHORT_CHARS = 40;
const LONG_CHARS = 300;
const LENGTH_PENALTY = 0.15;
/** A further unit must score at least this share of the best one (higher: shorter answers). */
const FOLLOW_SHARE = 0.6;
/**
 * With a model (the bundled all-MiniLM-L6-v2, English only): the best SEMANTIC_CANDIDATES
 * English units gain SEMANTIC_WEIGHT × their cosine to the question, embedded under their
 * nearest heading. Docs set: gold 79.7 → 85.5 %, cited 84.1 → 87.0 %; XQuAD en 90.9 → 92.6 %
 * (other languages lost up to 3.7 points with it: the model does not read them); it costs
 * about 60 ms before the first delta. 12 candidates did no better; weights 0.25–10 tried.
 */
const SEMANTIC_CANDIDATES = 8;
/**
 * Beyond those, each passage's best English unit not among them is embedded too when its
 * coverage is at least this share of the best candidate's: the top 8 by words can all come
 * from one passage, and the cosine then never hears the passage that answers ("How big can a
 * cookie-session cookie be?"). bench:writer third-party cited 88.1 → 88.5 %, gold unchanged,
 * no answer lost; the same at 0.6–0.8 and with 2 units per passage. With no floor (any unit
 * of every passage) it traded answers both ways. (On another machine's capture, whose model
 * rounds differently: Express en 85.9 / 92.2 → 87.5 / 93.8 %, nothing else changed; XQuAD en
 * bench:extractive 92.4 / 92.8 → 92.4 / 92.9 %.)
 */
const PASSAGE_CANDIDATE_COVERAGE = 0.6;
const SEMANTIC_WEIGHT = 2;
/**
 * A sentence that introduces a code block is read with the block's first characters: what it
 * brings is part of what it says (docs set: gold 85.5 → 87.0–88.4 %, cited 88.4 → 88.4–89.9 %
 * for 100–800 characters).
 */
const SEMANTIC_CODE_CHARS = 400;
const MAX_SOURCES = 2;
/**
 * A best sentence shorter than this (as read) is joined by the sentences around it in its
 * paragraph until the answer is this long (bench:writer third-party gold 68.6 → 69.0 %; 120 and 160 lost
 * citations).
 */
const SHORT_ANSWER_CHARS = 80;
/**
 * What a unit linking to another of the passages loses (see `pointers`): bench:writer
 * third-party gold 78.2 → 78.7 %, cited 80.4 → 81.3 % (Vite 72.1 / 75.0 → 73.5 / 77.9 %),
 * Lore's docs unchanged; 0.1 and 0.2 gained half of it, 0.4 and 0.5 about as much; a
 * bonus for the passage pointed to lost as many answers as it won.
 */
const POINTER_PENALTY = 0.3;
/** Term-set Jaccard similarity at which a unit repeats one already chosen. */
const DUPLICATE_JACCARD = 0.6;
const PREFIX_MIN = 5;
const PREFIX_CREDIT = 0.6;
/** The largest blocks an answer brings along whole. */
const MAX_CODE_LINES = 24;
const MAX_CODE_CHARS = 1200;
const MAX_ITEMS = 8;
/** Two blocks may come in one answer when each has at most this many lines (items, rows) and characters. */
const SMALL_LINES = 5;
const SMALL_CHARS = 300;
const MAX_ITEM_CHARS = 900;

/** Questions asking for a quantity, a date or a limit: units with digits are likelier answers. */
const NUMERIC_QUESTION =
  /\bhow (?:many|much|long|old|big|large|often)\b|\bwhen\b|\bwhat year\b|\b(?:limits?|maximum|minimum|max|default|timeout|port)\b|\bwie (?:viele?|lange|alt)\b|\bwann\b|\bcuánt|\bcuándo\b|\bcâ[țt]|\bcând\b|сколько|когда|в каком году|πόσ|πότε|\bkaç\b|ne zaman|bao nhiêu|\bmấy\b|khi nào|năm nào|कितन|कब|\bكم\b|متى|多少|几|何时|什么时候|哪一年|哪年|กี่|เท่าไ|เมื่อไ|ปีใด|ปีไหน|いつ|いくつ|何年/iu;
/** How-to questions, in English, German, Spanish, Portuguese, French, Chinese and Japanese: the answer is often a command, a snippet or a list of steps. */
const HOWTO_QUESTION = new RegExp(
  [
    String.raw`^\s*(?:how\s+(?:(?:do|does|should|would|could)\s+(?:i|we|you|one)\b|can|to\b)|how\s+i\b|what(?:'s| is) the (?:command|way|snippet)\b|(?:steps?|instructions?) (?:to|for)\b|(?:set ?up|install|configure|embed|create|add|run|start|deploy|enable|use)\b)|\bhow to\b`,
    // "Wie installiere ich …?", "Wie kann man …?" ("Wie nennt man …?" asks for a name)
    String.raw`^\s*wie\s+(?!nennt\b|hei(?:ß|ss)t\b)\p{L}+\s+(?:ich|man|wir)\b`,
    // "¿Cómo instalo …?", "¿Cómo me salto …?" (a verb in the first person; "¿Cómo funciona …?" asks how it works), "Como faço …?"
    String.raw`^\s*¿?\s*cómo\s+(?:(?:me|lo|la|le)\s+)?\p{L}+o\b|^\s*como\s+(?:eu\s+)?(?:faço|posso|devo|consigo)\b`,
    // "Comment installer …?", "Comment est-ce que je …?", "Comment puis-je …?"
    String.raw`^\s*comment\s+(?:\p{L}+er\b|est-ce qu|\p{L}+-(?:je|on)\b)`,
    // "如何安装…？", "在 Express 5 中如何…？", "怎么…？"
    String.raw`^\s*(?:在.{1,24}?中\s*)?(?:如何|怎么|怎样|怎麼|怎樣)`,
    // "…するには？", "…にはどうすればいいですか？", "…はどう設定しますか？"
    String.raw`(?:には|どうすれば(?:いい|よい)|どう\S{0,6}(?:します|しますか|書きます|すれば))[？?]?\s*\S{0,8}[？?]?\s*$`,
    // "…はどのように処理すればいいですか？", "どのように…できますか？", "…の設定方法は？" ("…はどのように動作しますか？" asks how it works)
    String.raw`どのように\S{0,16}?(?:すれば|できます)|すれば(?:いい|よい)|方法は[？?]?\s*$`,
  ].join('|'),
  'iu',
);
/**
 * English questions asking for a set of things ("What are the steps of …?", "Which benchmarks
 * does Lore have?"): a plural noun after which/what (are the). Answered by a list, when the
 * best match is in one, as the list itself or its outline.
 */
const ENUMERATION_QUESTION =
  /^\s*(?:which|what)\s+(?:(?:are|were)\s+(?:the\s+)?)?(?:[\p{L}\d.:-]+\s+){0,2}?\p{L}{2,}s\b\s*(?:does|do|did|can|could|are|were|will|should|of|in|for|on|that|there|\?|$)/iu;
/** Items of an outline (a list too long to bring whole) and how long each item's lead may be. */
const OUTLINE_ITEMS = 10;
const OUTLINE_LEAD_CHARS = 150;
/**
 * Questions asking what replaces something ("What replaces app.del() in Express 5?", "Was
 * ersetzt …?", "¿Qué reemplaza …?"): migration guides answer them with the sentence that says
 * what to use instead, which shares few of the question's words ("For registering HTTP DELETE
 * routes, use the `app.delete()` function instead").
 */
const REPLACEMENT_QUESTION = /\b(?:replace[sd]?|replacement|instead of|alternative to|in place of|successor)\b|ersetzt|\bersatz|stattdessen|\bstatt\b|reemplaz|en lugar de|en vez de|sustitu|remplac|à la place|代わり|替代|取代|代替/iu;
/** A sentence saying what to use instead (not one telling what was once used instead: "`del` was used instead of `delete`"). */
const REPLACES =
  /\b(?:use|call|register|pass|set|import|install|switch to|migrate to)\b(?:[^.]|\.(?=\S))*\binstead\b|\binstead,?\s+(?:use|call)\b|\breplaced (?:by|with)\b|\bin favou?r of\b|\bsuperseded by\b|stattdessen|ersetzt (?:durch|mit)|zugunsten|en su lugar|reemplazad[ao]s? (?:por|con)|remplacée? par|à la place|代わりに|改用|替代|取代/iu;
/** What a sentence saying what to use instead gains, times how well its headings name the question (it seldom repeats the question's words). */
const REPLACEMENT_SHARE = 2;
/** English yes/no questions ("Can I …?", "Does Lore …?", "Is there …?"). */
const YESNO_QUESTION = /^\s*(?:can|could|does|do|is|are|will|should|must|may)\s+(?!\S+\s+(?:mean|stand)\b)/i;
const DIGIT = /\p{Nd}/u;
/** Absolute paths and URLs (`/api/v1/collections`, `https://…/v2/`): the digits in them state no value. */
const PATH_LIKE = /(?<![\p{L}\p{N}_.-])\/[^\s`]*|\b[a-z][a-z0-9+.-]*:\/\/[^\s`]*/giu;
const WIDE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;
/**
 * A heading that names an API or an option (`server.port`, `res.cookie(name, value)`, a heading
 * in code): its section is that thing's reference, and what is quoted from it is led by the name.
 */
const REFERENCE_HEADING = /^(?:`[^`\n]+`|[\w$@-]+(?:[.#:][\w$@-]+)+(?:\(.*\))?|[\w$@.-]+\(.*\))$/u;
/** An item of a reference section's field list ("**Type:** `number`", "**Default**: `5173`"). */
const FIELD_ITEM = /^\*\*([^*]{1,30}?)(?::\*\*|\*\*:)\s*(\S.{0,100})$/;
/** The fields a lead names (the others, "Related:", "See also:", are not facts of the thing). */
const LEAD_FIELDS = /^(?:type|default|default value)$/i;
/** A code comment or a sentence marking an example as one not to follow. */
const BAD_COMMENT = /^\s*(?:\/\/|#|--|\/\*|<!--)\s*(?:❌|✗|✘|\b(?:bad|wrong|incorrect|avoid|don'?t|do not|never|anti-?pattern)\b)/i;
const BAD_INTRO = /\b(?:bad example|anti-?pattern|don'?t do this|do not do this|wrong way|incorrect usage)\b|❌/i;
/**
 * A section the docs mark as deprecated ("**Deprecated**: the pre-bundle process runs
 * automatically", a field "- **Deprecated**") is no answer unless the question asks about
 * deprecation: its units lose DEPRECATED_PENALTY.
 */
const DEPRECATED_MARK = /^(?:\*\*|_)?deprecated\b/i;
const DEPRECATION_QUESTION = /deprecat|\bremoved?\b|\blegacy\b|\bstill\b|\bold\b|veraltet|obsolet|en desuso|非推奨|废弃|弃用/iu;
const DEPRECATED_PENALTY = 0.3;
/** A sentence that announces the list after it without a colon ("… the following functions.", "次の…"). */
const FOLLOWING = /\b(?:the following|as follows|folgenden?|siguientes?|suivante?s?|seguintes?)\b|次の|以下の|下列|如下/iu;
/** A sentence's closing colon, ASCII or full-width (Chinese, Japanese): it introduces what follows. */
const COLON_END = /[:：]$/u;
/** An identifier in camel case (`assetsInlineLimit`, `strictPort`). */
const CAMEL_CASE = /\b\p{Ll}+(?:\p{Lu}\p{Ll}+)+\b/gu;
/**
 * Objects code names by an abbreviation before a member (`res.cookie()`, `req.ip`, `err.status`,
 * `process.env.PORT`): an English unit holding one also holds the word, as its reader knows
 * that `res.cookie()` sets a cookie in the response (bench:writer third-party gold 76.4 → 76.9 %:
 * "How do I set a cookie in the response?" is answered by `res.cookie()`, not by cookie-session).
 */
const ABBREVIATIONS: Record<string, string> = { res: 'response', req: 'request', err: 'error', env: 'environment', ctx: 'context', opts: 'options', msg: 'message', dir: 'directory' };
const CODE_OBJECT = new RegExp(String.raw`\b(${Object.keys(ABBREVIATIONS).join('|')})\.(?=\w)`, 'g');
/** Cells that hold nothing ("—" for "no default"). */
const EMPTY_CELL = /^(?:[-–—]|n\/a|none)?$/i;

/** A quotable unit as it was scored, for a benchmark explaining an answer (`selectAnswer`'s `explain`). */
export type Candidate = Pick<Unit, 'ref' | 'kind' | 'text' | 'coverage' | 'headingCoverage' | 'semantic' | 'score' | 'instructs' | 'defines' | 'brings'>;

interface Unit {
  ref: number;
  rank: number;
  /** The passage's prior (Passage.prior). */
  prior: number;
  /** Position in the passage, over all its units. */
  order: number;
  block: number;
  /** The list item a unit is (or is a sentence of); -1 outside lists. */
  item: number;
  kind: 'sentence' | 'item' | 'row';
  text: string;
  language: string;
  /** Introduces a code block, quotes a snippet, is a step of a numbered list or a row naming a setting. */
  instructs: boolean;
  /** Opens "X is …" for a question "What is X?". */
  defines: boolean;
  /** Introduces the block after it with a colon (code, list, table), or nested items: quoted, it brings them. */
  brings: boolean;
  /** Stands in a section the docs mark as deprecated (DEPRECATED_MARK). */
  deprecated: boolean;
  terms: Set<string>;
  /** Terms of the code block the unit introduces (empty when none). */
  code: Set<string>;
  /** Terms of the headings the unit stands under, and of the passage title. */
  heading: Set<string>;
  /** Terms of the page title of a section passage, when it is not the passage's title (PAGE_SHARE). */
  page: Set<string>;
  /** The nearest heading (or the title), as text. */
  context: string;
  /** The headings it stands under, outermost first. */
  trail: string[];
  /** The start of the code block the unit introduces, if any. */
  codeStart: string;
  /**
   * For a unit of a reference section (REFERENCE_HEADING): the name in code and its fields
   * ("`server.port` (type: `number`; default: `5173`)"), quoted before the first of its units.
   */
  lead: string;
  quotable: boolean;
  coverage: number;
  headingCoverage: number;
  /** What the coverage of its whole passage (every unit, code block and heading of it) adds to its score: it chooses the best unit, not how many follow it. */
  passageBonus: number;
  /** Cosine to the question by the embedding model (shortlisted units only; else 0). */
  semantic: number;
  /** The share of the question's weight each of its terms gives this unit. */
  matched: number[];
  score: number;
}

interface Read {
  ref: number;
  blocks: Block[];
}


/**
 * The answer to `question` from `passages` (in retrieval order), as pieces in reading order:
 * at most `maxSentences` quoted units within about `maxChars` (code blocks and the blocks a
 * sentence introduces come on top, within their own bounds; the best unit alone may be
 * longer: it is then cut at a word boundary with "…"), no near-duplicates, from at most two
 * passages. Empty only when no passage has any text.
 */
export async function selectAnswer(
  question: string,
  passages: readonly Passage[],
  limits: { maxSentences: number; maxChars: number; terms?: readonly QuestionTerm[] },
  similarity?: Similarity,
  explain?: (candidates: readonly Candidate[]) => void,
): Promise<Piece[]> {
  const asked = question.split('\n')[0] ?? question;
  const howto = HOWTO_QUESTION.test(asked);
  const yesno = YESNO_QUESTION.test(asked);
  const read: Read[] = [];
  const units: Unit[] = [];
  passages.forEach((passage, rank) => {
    const text = passageText(passage.text, passage.source);
    const language = detectLanguage(text);
    const blocks = passageBlocks(text, language, passage.url ?? null);
    read.push({ ref: passage.ref, blocks });
    units.push(...unitsOf(passage, rank, blocks, language));
  });
  score(question, asked, units, new Map(limits.terms?.map((t) => [t.term, t.idf])));
  const candidates = units.filter((u) => u.quotable).sort(byScore);
  if (similarity && candidates.length > 1 && candidates.some((u) => u.language === 'en') && questionLanguage(asked, units) === 'en') {
    const english = candidates.filter((u) => u.language === 'en');
    const shortlist = english.slice(0, SEMANTIC_CANDIDATES);
    // Every passage's best unit gets a cosine too, when it matches the question's words about as well.
    const floor = PASSAGE_CANDIDATE_COVERAGE * (shortlist[0]?.coverage ?? 0);
    const heard = new Set(shortlist.map((u) => u.rank));
    for (const u of english.slice(SEMANTIC_CANDIDATES)) {
      if (heard.has(u.rank) || u.coverage <= 0 || u.coverage < floor) continue;
      heard.add(u.rank);
      shortlist.push(u);
    }
    const sims = await similarity(asked, shortlist.map(semanticText));
    shortlist.forEach((u, i) => {
      u.semantic = sims[i] ?? 0;
      u.score += SEMANTIC_WEIGHT * u.semantic;
    });
  }
  pointers(candidates, passages);
  candidates.sort(byScore);
  explain?.(candidates);
  const best = candidates[0];
  if (!best) return [];

  if (ENUMERATION_QUESTION.test(asked) && !best.defines) {
    const list = enumeration(best, read);
    if (list) return withSections(list, [best]);
  }

  const chosen: Unit[] = [best];
  let used = citedLength(best);
  // A short best sentence rarely says all: its paragraph's sentences around it (the next one, or the
  // one before when that holds more of the question's words) come before anything else ("There's no need to
  // render HTML with res.render(). If you have a specific file, use res.sendFile().").
  if (best.kind === 'sentence' && !best.brings) {
    const at = units.indexOf(best);
    const joins = (u: Unit | undefined): u is Unit =>
      u !== undefined && u.rank === best.rank && u.block === best.block && u.item === best.item && u.kind === 'sentence' && u.quotable && used + citedLength(u) <= limits.maxChars;
    let before = at - 1;
    let after = at + 1;
    let read = readLength(best.text);
    while (read < SHORT_ANSWER_CHARS && chosen.length < limits.maxSentences) {
      const previous = joins(units[before]) && !units[before]!.brings ? units[before] : undefined;
      const next = joins(units[after]) ? units[after] : undefined;
      const u = previous && (!next || previous.coverage > next.coverage) ? previous : next;
      if (!u) break;
      if (u === previous) before--;
      else after++;
      // A sentence the paragraph repeats (a translation's slip) says nothing more: the one past it may.
      if (chosen.some((d) => similar(u.terms, d.terms))) continue;
      chosen.push(u);
      used += citedLength(u);
      read += readLength(u.text);
      if (u.brings) break;
    }
  }
  const own = (u: Unit) => u.score - u.passageBonus;
  const followers = candidates.slice(1).sort((a, b) => own(b) - own(a) || a.rank - b.rank || a.order - b.order);
  for (const c of followers) {
    if (chosen.length >= limits.maxSentences) break;
    if (c.coverage === 0 || own(c) < FOLLOW_SHARE * own(best)) break;
    // Rows and items are facts of their own: one that only rides on bonuses, or matches none
    // of the words the best unit matched, answers something else.
    if (c.kind !== 'sentence' && (c.coverage < FOLLOW_SHARE * best.coverage || !c.matched.some((w, j) => w > 0 && best.matched[j]! > 0))) continue;
    if (chosen.some((d) => similar(c.terms, d.terms)) || used + citedLength(c) > limits.maxChars) continue;
    if (!chosen.some((d) => d.rank === c.rank)) {
      // A how-to answered by instructions, a "What is X?" by X's definition, a yes/no question
      // by its best match: nothing from elsewhere.
      // Nor does an answer whose best unit brings a block (a snippet, a list, a table).
      if ((howto && best.instructs) || best.defines || best.brings || yesno) continue;
      if (new Set(chosen.map((d) => d.rank)).size >= MAX_SOURCES) continue;
    }
    chosen.push(c);
    used += citedLength(c);
  }
  // A definition reads on into its paragraph ("X is … . It …").
  const next = units[units.indexOf(best) + 1];
  if (best.defines && next?.block === best.block && next.item === best.item && next.rank === best.rank && !chosen.includes(next) && chosen.length < limits.maxSentences && used + citedLength(next) <= limits.maxChars) {
    chosen.push(next);
  }
  const first = new Map<number, number>();
  for (const [i, c] of chosen.entries()) if (!first.has(c.rank)) first.set(c.rank, i);
  chosen.sort((a, b) => first.get(a.rank)! - first.get(b.rank)! || a.order - b.order);
  const wanted = contentTerms(question, best.language);
  const relevance = (text: string) => {
    const terms = new Set(analyze(linkTexts(text), best.language).terms);
    return wanted.filter((t) => terms.has(t)).length;
  };
  return withSections(pieces(chosen, read, howto ? best : null, limits.maxChars, relevance), chosen);
}

const byScore = (a: Unit, b: Unit) => b.score - a.score || a.rank - b.rank || a.order - b.order;

/**
 * A link's or a passage's page as compared by `pointers`: no `.html`, no trailing slash, any
 * case, and the fragment's letters and digits only (a site's own anchors and the importer's
 * differ in punctuation: VitePress links `#index-html-and-project-root`, the section of
 * "`index.html` and Project Root" is imported as `#indexhtml-and-project-root`), percent-encoded
 * letters decoded.
 */
function pageUrl(url: string): string {
  const [page, fragment] = url.split('#', 2) as [string, string | undefined];
  const base = page.toLowerCase().replace(/\.html$/, '').replace(/\/+$/, '');
  return fragment === undefined ? base : `${base}#${decoded(fragment).toLowerCase().replace(/[^\p{L}\p{N}]/gu, '')}`;
}

/** A fragment as read: `#ge%C3%A4ndert` is `#geändert` (left as it is when not valid percent-encoding). */
function decoded(fragment: string): string {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}

const LINK_TARGET = /\]\(([^()\s]+)\)/g;

/**
 * Units that link to another of the passages lose POINTER_PENALTY: such a unit says where the
 * answer is ("You can also scaffold these projects by [running `create-vite`](…/guide/
 * #scaffolding-your-first-vite-project)"), and the passage it points to says it. So do the
 * units of a reference section whose fields link to another of the passages, unless their
 * headings name the question better than that passage's: such a section inherits from the
 * one it links to (`preview.proxy`, "default: [`server.proxy`](…#server-proxy)", repeats
 * `server.proxy`'s sentences), and a question naming neither asks about the original.
 */
function pointers(candidates: Unit[], passages: readonly Passage[]): void {
  const at = new Map<string, number>();
  passages.forEach((p, rank) => p.url && at.set(pageUrl(p.url), rank));
  if (at.size < 2) return;
  const target = (text: string, rank: number) => {
    for (const [, url] of text.matchAll(LINK_TARGET)) {
      const found = at.get(pageUrl(url!));
      if (found !== undefined && found !== rank) return found;
    }
    return undefined;
  };
  const headingCoverage = new Map<number, number>();
  for (const u of candidates) headingCoverage.set(u.rank, Math.max(headingCoverage.get(u.rank) ?? 0, u.headingCoverage));
  for (const u of candidates) {
    if (target(u.text, u.rank) !== undefined) {
      u.score -= POINTER_PENALTY;
      continue;
    }
    const original = u.lead === '' ? undefined : target(u.lead, u.rank);
    if (original !== undefined && u.headingCoverage <= (headingCoverage.get(original) ?? 0)) u.score -= POINTER_PENALTY;
  }
}

/**
 * The answer to a question asking for a set of things whose best match is in a list of at
 * least three items, or introduces one: the sentence introducing the list (when one ends in a colon right
 * before it), then the list — whole when it is short enough, else its outline: each
 * top-level item's first sentence, cut at a clause within OUTLINE_LEAD_CHARS. Null when the
 * best unit is not in such a list.
 */
function enumeration(best: Unit, read: readonly Read[]): Piece[] | null {
  const blocks = read.find((r) => r.ref === best.ref)!.blocks;
  // The best unit is in the list, or is the sentence that introduces it.
  const own = blocks[best.block];
  const introduces = own?.kind === 'prose' && own.sentences[own.sentences.length - 1] === best.text && COLON_END.test(best.text);
  const at = introduces ? best.block + 1 : best.block;
  const block = blocks[at];
  if (block?.kind !== 'list') return null;
  const top = block.items.filter((it) => it.depth === 0);
  if (top.length < 3) return null;
  const out: Piece[] = [];
  const before = blocks[at - 1];
  const intro = before?.kind === 'prose' ? before.sentences[before.sentences.length - 1]! : '';
  if (COLON_END.test(intro) && !(before?.kind === 'prose' && before.fragment && before.sentences.length === 1)) {
    out.push({ kind: 'sentences', ref: best.ref, sentences: [capitalise(intro)] });
  }
  const items = fits(block) ? top.map((it) => capitalise(it.text)) : top.slice(0, OUTLINE_ITEMS).map((it) => lead(it.text, best.language));
  out.push({ kind: 'items', ref: best.ref, items, ordered: block.ordered, cited: out.length === 0 });
  return out;
}

/**
 * An item's lead: its first sentence, or when that is longer than OUTLINE_LEAD_CHARS, the
 * longest start of it that ends before a clause (`;`, ` — `, ` (`, `, `) with code spans,
 * emphasis and brackets closed, then "…".
 */
function lead(text: string, language: string): string {
  const first = splitSentences(text, language)[0] ?? text;
  if (first.length <= OUTLINE_LEAD_CHARS) return capitalise(first);
  const count = (part: string, re: RegExp) => part.match(re)?.length ?? 0;
  const balanced = (part: string) =>
    count(part, /`/g) % 2 === 0 && count(part, /\*\*/g) % 2 === 0 && count(part, /\(/g) === count(part, /\)/g) && count(part, /\[/g) === count(part, /\]/g);
  let cut = -1;
  for (const m of first.matchAll(/;\s|\s[—–]\s|\s\(|,\s/g)) {
    if (m.index > OUTLINE_LEAD_CHARS) break;
    if (m.index >= 20 && balanced(first.slice(0, m.index))) cut = m.index;
  }
  const part = cut > 0 ? first.slice(0, cut) : truncate(first, OUTLINE_LEAD_CHARS).slice(0, -1);
  // Better whole than with a code span or emphasis left open.
  return capitalise(balanced(part) ? `${part.replace(/[\s,;:]+$/, '')}…` : first);
}

/** Marks the first piece of each passage with the headings of the first unit chosen from it. */
function withSections(out: Piece[], chosen: readonly Unit[]): Piece[] {
  const seen = new Set<number>();
  for (const piece of out) {
    if (seen.has(piece.ref)) continue;
    seen.add(piece.ref);
    const unit = chosen.find((u) => u.ref === piece.ref);
    if (unit) piece.headings = unit.trail;
  }
  return out;
}

/** A unit as the embedding model reads it: under its nearest heading. */
function semanticText(u: Unit): string {
  const text = u.codeStart ? `${linkTexts(u.text)}\n${u.codeStart}` : linkTexts(u.text);
  return u.context ? `${u.context}: ${text}` : text;
}

/**
 * The language of the question; a question too short to tell ("postgres setup?", "Wie rendere ich
 * einfaches HTML?") is taken to be in the language most of the passages' units are in.
 */
function questionLanguage(asked: string, units: readonly Unit[]): string {
  const detected = detectLanguage(asked);
  if (detected !== 'und') return detected;
  const counts = new Map<string, number>();
  for (const u of units) counts.set(u.language, (counts.get(u.language) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'und';
}

/** The quotable units of a passage's blocks, with the headings above them. */
function unitsOf(passage: Passage, rank: number, blocks: Block[], language: string): Unit[] {
  const out: Unit[] = [];
  // A link's words are its text: its URL ("https://vite.dev/…") says nothing the reader sees.
  // An identifier's words count too: "inline" finds `assetsInlineLimit`, "strict port" `strictPort`,
  // "response" `res.cookie()` (ABBREVIATIONS).
  const terms = (text: string) => {
    const plain = linkTexts(text);
    const words = plain.match(CAMEL_CASE)?.map((w) => w.replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')) ?? [];
    if (language === 'en') for (const m of plain.matchAll(CODE_OBJECT)) words.push(ABBREVIATIONS[m[1]!]!);
    return new Set([...analyze(words.length > 0 ? `${plain} ${words.join(' ')}` : plain, language).terms, ...identifierTerms(plain, language)]);
  };
  const headings: { depth: number; text: string }[] = [];
  const pageTerms = passage.pageTitle && passage.pageTitle !== passage.title ? terms(passage.pageTitle) : new Set<string>();
  const unit = (block: number, kind: Unit['kind'], text: string, quotable: boolean, code = new Set<string>(), step = false, item = -1, codeStart = ''): Unit => ({
    ref: passage.ref,
    rank,
    prior: passage.prior ?? 0,
    order: out.length,
    block,
    item,
    kind,
    text,
    language,
    defines: false,
    brings: false,
    deprecated: false,
    instructs: step || code.size > 0 || (SNIPPET.test(text) && /`[^`]*[\s<(=][^`]*`/.test(text)),
    terms: terms(text),
    code,
    heading: terms([passage.title ?? '', ...headings.map((h) => h.text)].join(' \n ')),
    page: pageTerms,
    context: headings[headings.length - 1]?.text ?? passage.title ?? '',
    trail: headings.map((h) => h.text),
    codeStart,
    lead: '',
    // A unit whose code the passage cuts off ("(`npm run … --seconds" at a chunk's end) would end inside code.
    quotable: quotable && openCodeSpan(text) === -1,
    coverage: 0,
    semantic: 0,
    headingCoverage: 0,
    passageBonus: 0,
    matched: [],
    score: 0,
  });
  // The lead of the section being read ('' outside reference sections), and its terms.
  let lead = '';
  let leadTerms: Set<string> = new Set();
  const setLead = (text: string) => {
    lead = text;
    leadTerms = terms(text);
  };
  // The section each unit stands in (its heading's block, -1 before any), and the sections marked deprecated.
  const sectionOf: number[] = [];
  const deprecated = new Set<number>();
  let section = -1;
  blocks.forEach((block, b) => {
    const from = out.length;
    if (block.kind === 'heading') section = b;
    else if ((block.kind === 'prose' && DEPRECATED_MARK.test(block.sentences[0] ?? '')) || (block.kind === 'list' && block.items.some((it) => DEPRECATED_MARK.test(it.text)))) deprecated.add(section);
    switch (block.kind) {
      case 'heading':
        while (headings.length > 0 && headings[headings.length - 1]!.depth >= block.depth) headings.pop();
        headings.push(block);
        setLead(referenceName(block.text));
        break;
      case 'prose': {
        // A section's fields written as a paragraph right under its heading ("Type: `Number` or
        // `String`<br />Default: `1kb`", Express's option references) lead what is quoted from
        // it, the heading being the option's name, instead of being quoted alone.
        const above = blocks[b - 1];
        const fields = above?.kind === 'heading' && block.sentences.length === 1 ? proseFields(block.sentences[0]!) : null;
        if (above?.kind === 'heading' && fields) {
          setLead(`${lead || `\`${above.text.replace(/^`|`$/g, '')}\``} (${fields})`);
          break;
        }
        const next = blocks[b + 1];
        // An example the docs mark as what not to do ("Bad example!") teaches nothing to quote.
        const bad = next?.kind === 'code' && antiPattern(blocks, b + 1);
        const code = next?.kind === 'code' && !bad ? terms(next.text) : new Set<string>();
        block.sentences.forEach((s, i) => {
          const last = i === block.sentences.length - 1;
          const u = unit(b, 'sentence', s, !(i === 0 && block.fragment) && !(last && bad), last ? code : undefined, false, -1, last && next?.kind === 'code' && !bad ? next.text.slice(0, SEMANTIC_CODE_CHARS) : '');
          u.brings = last && ((COLON_END.test(s) && (next?.kind === 'code' || next?.kind === 'list' || next?.kind === 'table')) || (next?.kind === 'list' && FOLLOWING.test(s)));
          // A sentence introducing what the page renders and the text does not hold ("… versions are:"
          // before a component) says nothing by itself.
          if (last && COLON_END.test(s) && !u.brings) u.quotable = false;
          out.push(u);
        });
        break;
      }
      case 'list':
        if (lead !== '' && blocks[b - 1]?.kind === 'heading' && block.items.every((it) => FIELD_ITEM.test(it.text))) {
          // The reference's fields lead what is quoted from its section instead of being quoted alone.
          // A type that is a union or a signature ("`number` | `((filePath…`") says more than a lead can carry.
          const fields = block.items.map((it) => FIELD_ITEM.exec(it.text)!).filter((m) => LEAD_FIELDS.test(m[1]!.trim()) && !/\s\|\s/.test(m[2]!));
          if (fields.length > 0) setLead(`${lead} (${fields.map((m) => `${m[1]!.trim().toLowerCase()}: ${m[2]!.trim()}`).join('; ')})`);
          break;
        }
        block.items.forEach((item, k) => {
          // An item of several sentences ("**Retrieve**: the hybrid search … . Each entry …") is prose.
          const sentences = splitSentences(item.text, language);
          if (sentences.length < 2) {
            const u = unit(b, 'item', item.text, true, undefined, block.ordered, k);
            // An item that introduces nested ones ("Calibration into `similarity`:") says what they say, as a sentence its code block.
            const children = COLON_END.test(item.text) ? childItems(block, k) : [];
            if (children.length > 0) {
              u.code = terms(children.join(' \n '));
              u.codeStart = children.join('\n').slice(0, SEMANTIC_CODE_CHARS);
              u.brings = true;
            }
            out.push(u);
          } else for (const sentence of sentences) out.push(unit(b, 'sentence', sentence, true, undefined, block.ordered, k));
        });
        break;
      case 'table':
        for (const row of block.rows) {
          const statement = rowStatement(block.header, row);
          // A row naming a setting (`DATABASE_URL`) tells how to do what its other cells say.
          if (statement) out.push(unit(b, 'row', statement, true, undefined, /^\s*`[^`]+`/.test(row[0] ?? '')));
        }
        break;
      case 'code':
        break;
    }
    for (let i = from; i < out.length; i++) sectionOf[i] = section;
    if (lead === '') return;
    for (const u of out.slice(from)) {
      u.lead = lead;
      u.code = new Set([...u.code, ...leadTerms]);
    }
  });
  if (deprecated.size > 0) out.forEach((u, i) => (u.deprecated = deprecated.has(sectionOf[i]!)));
  return out;
}

/** A paragraph of a reference section's fields: "Type: `Number` or `String` Default: `1kb`". */
const PROSE_FIELDS = /^(?:\*\*)?Type(?:\*\*)?:\s*(\S.{0,80}?)\s+(?:\*\*)?Default(?: value)?(?:\*\*)?:\s*(\S.{0,80})$/i;

/** The fields a paragraph states ("type: …; default: …"), or null when it is no field paragraph; a type that is a union says more than a lead can carry. */
function proseFields(sentence: string): string | null {
  const m = PROSE_FIELDS.exec(sentence.trim());
  if (!m) return null;
  const type = m[1]!.trim();
  const fallback = m[2]!.trim().replace(/\.$/, '');
  return /\s\|\s/.test(type) ? `default: ${fallback}` : `type: ${type}; default: ${fallback}`;
}

/** The name a reference heading gives (in code), or '' for any other heading. */
function referenceName(heading: string): string {
  // Renderer components in a heading (`optimizeDeps.include <NonInheritBadge />`) are not its name.
  const text = heading.replace(/<\/?[A-Za-z][^<>]*>/g, '').trim();
  if (!REFERENCE_HEADING.test(text)) return '';
  const name = text.replace(/^`|`$/g, '');
  return name.includes('`') ? '' : `\`${name}\``;
}

/**
 * A table row as a statement: its first cell, a colon, and its longest other cell; the
 * remaining non-empty cells follow in parentheses under their header ("`PORT`, `HOST`: where
 * to listen (default `3000`, `127.0.0.1`)"). Empty cells ("—") are left out.
 */
export function rowStatement(header: readonly string[], row: readonly string[]): string {
  const cells = row.map((text, i) => ({ text: text.trim(), label: header[i]?.trim() ?? '' })).filter((c) => !EMPTY_CELL.test(c.text));
  if (cells.length === 0) return '';
  const [subject, ...rest] = cells;
  if (rest.length === 0) return capitalise(subject!.text);
  const main = rest.reduce((a, b) => (plainLength(b.text) > plainLength(a.text) ? b : a));
  const extra = rest.filter((c) => c !== main).map((c) => (c.label ? `${c.label.toLowerCase()} ${c.text}` : c.text));
  return capitalise(`${subject!.text}: ${main.text}${extra.length > 0 ? ` (${extra.join('; ')})` : ''}`);
}

/** A row or item begins a sentence of the answer: its first letter in upper case. */
function capitalise(text: string): string {
  return text.replace(/^\p{Ll}/u, (c) => c.toUpperCase());
}

function plainLength(text: string): number {
  return text.replace(/`[^`]*`/g, 'x').length;
}

function score(question: string, asked: string, units: Unit[], idf: ReadonlyMap<string, number>): void {
  const byLanguage = new Map<string, Unit[]>();
  for (const u of units) {
    const group = byLanguage.get(u.language);
    if (group) group.push(u);
    else byLanguage.set(u.language, [u]);
  }
  // Coverage per language: the question is analysed as each passage language would analyse it.
  for (const [language, group] of byLanguage) {
    const terms = contentTerms(question, language);
    const own = group.map((u) => terms.map((t) => Math.max(match(t, u.terms), CODE_CREDIT * match(t, u.code))));
    const held = questionWeights(terms.map((_, j) => own.reduce((sum, m) => sum + (m[j]! > 0 ? 1 : 0), 0)), units.length);
    const weights = wordsAlone(language) ? informative(held, terms, idf) : held;
    const total = weights.reduce((a, b) => a + b, 0);
    const found = new Map<number, number[]>();
    group.forEach((u, i) => {
      u.matched = total > 0 ? weights.map((w, j) => (w * own[i]![j]!) / total) : weights.map(() => 0);
      u.coverage = u.matched.reduce((a, b) => a + b, 0);
      const heading = terms.map((t) => Math.max(match(t, u.heading), PAGE_SHARE * match(t, u.page)));
      u.headingCoverage = total > 0 ? weights.reduce((sum, w, j) => sum + w * heading[j]!, 0) / total : 0;
      if (!wordsAlone(language)) return;
      const seen = found.get(u.rank) ?? terms.map(() => 0);
      found.set(u.rank, seen.map((m, j) => Math.max(m, own[i]![j]!, heading[j]!)));
    });
    if (wordsAlone(language) && total > 0) for (const u of group) u.passageBonus = (PASSAGE_SHARE * weights.reduce((sum, w, j) => sum + w * found.get(u.rank)![j]!, 0)) / total;
  }
  const numeric = NUMERIC_QUESTION.test(asked);
  const subject = DEFINITION_QUESTION.exec(asked)?.[1]?.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const definition = subject ? new RegExp(`^(?:an?\\s+|the\\s+)?${subject}\\s+(?:is|are|was|were)\\b`, 'i') : null;
  const howto = HOWTO_QUESTION.test(asked);
  const replacement = REPLACEMENT_QUESTION.test(asked);
  const deprecation = DEPRECATION_QUESTION.test(asked);
  // Sentences take context from their neighbours; rows and items are facts of their own, and
  // so is an instruction: a how-to is answered by what the unit itself says to do.
  const neighbour = (u: Unit, v: Unit | undefined) => (v?.rank === u.rank && v.kind === 'sentence' ? v.coverage : 0);
  for (const [i, u] of units.entries()) {
    u.defines = definition?.test(u.text) ?? false;
    const context = u.kind === 'sentence' && !howto ? Math.max(neighbour(u, units[i - 1]), neighbour(u, units[i + 1])) : 0;
    u.score =
      u.coverage +
      NEIGHBOUR_SHARE * context +
      HEADING_SHARE * u.headingCoverage +
      u.passageBonus +
      (howto && u.instructs && wordsAlone(u.language) ? HOWTO_TIE : 0) +
      (QUESTION_HEADING.test(u.context) && HOWTO_QUESTION.test(u.context) === howto && u.headingCoverage >= QUESTION_HEADING_MIN ? QUESTION_HEADING_SHARE * u.headingCoverage : 0) +
      (RANK_BONUS[u.rank] ?? 0) +
      u.prior +
      (numeric && u.coverage > 0 && DIGIT.test(u.text.replace(PATH_LIKE, ' ')) ? NUMERIC_BONUS : 0) +
      (u.defines ? DEFINITION_BONUS : 0) +
      (replacement && REPLACES.test(u.text) ? REPLACEMENT_SHARE * u.headingCoverage : 0) -
      (u.deprecated && !deprecation ? DEPRECATED_PENALTY : 0) -
      lengthPenalty(u.text);
  }
}

/**
 * The chosen units as pieces: consecutive units of one block become one piece. A sentence
 * ending in a colon brings the block it introduces; for a how-to question, so does a
 * matching sentence a code block follows (the best unit's first); one block per answer, so
 * a later colon is dropped instead, as is the colon of a block too long to bring. A best
 * unit that is a step of a numbered list brings its whole list.
 */
function pieces(chosen: readonly Unit[], read: readonly Read[], howtoAnchor: Unit | null, maxChars: number, relevance: (text: string) => number): Piece[] {
  const out: Piece[] = [];
  // One block per answer: a second would bury the first — unless both are small (two short
  // commands: "install it with: … To install it without saving: …").
  let brought: Block | null = null;
  const mayBring = (block: Block) => brought === null || (small(brought) && small(block));
  const blocksOf = (ref: number) => read.find((r) => r.ref === ref)!.blocks;
  const attached = new Set<string>();
  // The reference sections already named: "ref\0lead".
  const led = new Set<string>();
  const introducesCode = (u: Unit) => {
    const blocks = blocksOf(u.ref);
    const block = blocks[u.block]!;
    return u.kind === 'sentence' && block.kind === 'prose' && block.sentences[block.sentences.length - 1] === u.text && blocks[u.block + 1]?.kind === 'code' && fits(blocks[u.block + 1]!);
  };
  // A how-to's best unit brings its code block before any other sentence may.
  const anchorBrings = howtoAnchor !== null && introducesCode(howtoAnchor);
  for (let i = 0; i < chosen.length; ) {
    const u = chosen[i]!;
    let j = i + 1;
    while (j < chosen.length && chosen[j]!.ref === u.ref && chosen[j]!.block === u.block && chosen[j]!.item === u.item) j++;
    const group = chosen.slice(i, j);
    i = j;
    const blocks = blocksOf(u.ref);
    const block = blocks[u.block]!;
    if (attached.has(`${u.ref}:${u.block}`) || attached.has(`${u.ref}:${u.block}:${u.item}`)) continue;
    if (block.kind === 'list' && group.includes(howtoAnchor!) && block.ordered && fits(block)) {
      out.push({ kind: 'items', ref: u.ref, items: block.items.map((it) => capitalise(it.text)), ordered: true, cited: true });
      attached.add(`${u.ref}:${u.block}`);
      brought = block;
      continue;
    }
    // An item that brings is one introducing nested items (unitsOf).
    if (u.kind === 'item' && u.brings && group.length === 1 && brought === null && block.kind === 'list') {
      const children = childItems(block, u.item);
      out.push({ kind: 'sentences', ref: u.ref, sentences: [capitalise(u.text)] });
      const whole = itemsFit(children);
      out.push({ kind: 'items', ref: u.ref, items: children.map((c) => (whole ? capitalise(c) : lead(c, u.language))), ordered: false, cited: false });
      for (let k = u.item + 1; k < block.items.length && block.items[k]!.depth > block.items[u.item]!.depth; k++) attached.add(`${u.ref}:${u.block}:${k}`);
      brought = block;
      continue;
    }
    if (u.kind !== 'sentence') {
      const texts = group.map((g) => capitalise(g.text));
      if (texts.length === 1) out.push({ kind: 'sentences', ref: u.ref, sentences: [statement(texts[0]!, maxChars)] });
      else out.push({ kind: 'items', ref: u.ref, items: texts, ordered: false, cited: true });
      continue;
    }
    const sentences = group.map((g) => (g.text.length > maxChars ? truncate(g.text, maxChars) : g.text));
    sentences[0] = capitalise(sentences[0]!); // a list item's sentence may start in lower case
    // The first words quoted from each reference section name what they are about.
    if (u.lead !== '' && !led.has(`${u.ref}\0${u.lead}`)) {
      sentences[0] = `${u.lead}: ${sentences[0]}`;
      led.add(`${u.ref}\0${u.lead}`);
    }
    const last = sentences[sentences.length - 1]!;
    const lastOfBlock = block.kind === 'prose' && block.sentences[block.sentences.length - 1] === group[group.length - 1]!.text;
    const next = lastOfBlock ? blocks[u.block + 1] : undefined;
    const introduces = COLON_END.test(last);
    // "Express has the following built-in middleware functions." before a list introduces it as a colon would.
    const announces = !introduces && next?.kind === 'list' && FOLLOWING.test(last);
    const wanted = next && (introduces || announces || (howtoAnchor !== null && next.kind === 'code' && (anchorBrings ? group.includes(howtoAnchor) : group[group.length - 1]!.coverage >= HOWTO_MIN_COVERAGE))) && next.kind !== 'heading' && next.kind !== 'prose';
    // The block whole, or a list too long to bring whole as its outline: each top item's lead
    // ("This process serves two purposes: 1. **CommonJS and UMD compatibility:** … 2. **Performance:** …").
    const piece =
      !wanted || attached.has(`${u.ref}:${u.block + 1}`) ? null
      : mayBring(next) && fits(next) ? blockPiece(u.ref, next, relevance)
      : next.kind === 'list' && brought === null ? outlinePiece(u.ref, next, u.language)
      : null;
    if (wanted && piece) {
      out.push({ kind: 'sentences', ref: u.ref, sentences });
      out.push(piece);
      attached.add(`${u.ref}:${u.block + 1}`);
      brought = next;
      continue;
    }
    if (introduces) sentences[sentences.length - 1] = fullStop(last);
    out.push({ kind: 'sentences', ref: u.ref, sentences });
  }
  return out;
}

/** The texts of the items nested right under item `k` of a list. */
function childItems(block: Block & { kind: 'list' }, k: number): string[] {
  const depth = block.items[k]!.depth;
  const out: string[] = [];
  for (const item of block.items.slice(k + 1)) {
    if (item.depth <= depth) break;
    if (item.depth === depth + 1) out.push(item.text);
  }
  return out;
}

/** A block short enough to sit beside another in one answer: a command or two, a few items or rows. */
function small(block: Block): boolean {
  if (block.kind === 'code') return block.text.split('\n').length <= SMALL_LINES && block.text.length <= SMALL_CHARS;
  if (block.kind === 'list') return block.items.length <= SMALL_LINES && block.items.reduce((n, it) => n + it.text.length, 0) <= SMALL_CHARS;
  if (block.kind === 'table') return block.rows.length <= SMALL_LINES;
  return false;
}

/** A list as its top items' leads (see `lead`) when they are few and short enough to quote, else null. */
function outlinePiece(ref: number, block: Block & { kind: 'list' }, language: string): Piece | null {
  const top = block.items.filter((it) => it.depth === 0);
  if (top.length < 2 || top.length > OUTLINE_ITEMS) return null;
  const leads = top.map((it) => lead(it.text, language));
  return itemsFit(leads) ? { kind: 'items', ref, items: leads, ordered: block.ordered, cited: false } : null;
}

/** Whether items are few and short enough to bring whole. */
function itemsFit(items: readonly string[]): boolean {
  return items.length <= MAX_ITEMS && items.reduce((n, text) => n + text.length, 0) <= MAX_ITEM_CHARS;
}

/**
 * Whether code block `at` is an example of what not to do: its first line is a comment saying
 * so ("// Bad example!", "# ❌ don't"), or the sentence before it does ("Bad example:", "This is an
 * anti-pattern:").
 */
function antiPattern(blocks: readonly Block[], at: number): boolean {
  const block = blocks[at];
  if (block?.kind !== 'code') return false;
  const firstLine = block.text.split('\n').find((l) => l.trim() !== '') ?? '';
  if (BAD_COMMENT.test(firstLine)) return true;
  const before = blocks[at - 1];
  return before?.kind === 'prose' && BAD_INTRO.test(before.sentences[before.sentences.length - 1] ?? '');
}

function fits(block: Block): boolean {
  if (block.kind === 'code') return codeExcerpt(block.text) !== null;
  if (block.kind === 'list') return itemsFit(block.items.map((it) => it.text));
  if (block.kind === 'table') return block.rows.length <= MAX_ITEMS;
  return false;
}

function blockPiece(ref: number, block: Block, relevance: (text: string) => number): Piece {
  if (block.kind === 'code') return { kind: 'code', ref, lang: block.lang, text: codeExcerpt(block.text, relevance)! };
  if (block.kind === 'list') return { kind: 'items', ref, items: block.items.map((it) => capitalise(it.text)), ordered: block.ordered, cited: false };
  if (block.kind === 'table') return { kind: 'items', ref, items: block.rows.map((r) => rowStatement(block.header, r)).filter(Boolean), ordered: false, cited: false };
  throw new Error(`not an attachable block: ${block.kind}`);
}

/**
 * A code block as an answer quotes it: whole when it is short enough, else one of its parts
 * between blank lines (a long example usually starts with the command the sentence before it
 * introduces); null when no part is short enough.
 */
function codeExcerpt(code: string, relevance?: (part: string) => number): string | null {
  const short = (text: string) => text.split('\n').length <= MAX_CODE_LINES && text.length <= MAX_CODE_CHARS;
  if (short(code)) return code;
  const parts = code.split(/\n[ \t]*\n/).filter(short);
  if (parts.length === 0) return null;
  // The first part, which the sentence before the block introduces; another only when the
  // first matches none of the question's words (preferring the best match there took the
  // page upsert's '# Create or replace …' for "how do I create an API key").
  if (!relevance || relevance(parts[0]!) > 0) return parts[0]!;
  return parts.reduce((best, part) => (relevance(part) > relevance(best) ? part : best));
}

/** A closing colon as a full stop: "." or, after a full-width colon, "。". */
function fullStop(text: string): string {
  return text.replace(/\s*:$/, '.').replace(/：$/, '。');
}

/** A row or item quoted as a sentence: cut when too long, closed with a full stop. */
function statement(text: string, maxChars: number): string {
  const cut = text.length > maxChars ? truncate(text, maxChars) : text;
  return /[.!?。！？…:：]$/u.test(cut) ? fullStop(cut) : `${cut}.`;
}

/** Whether units in `language` are scored by their words alone: the model re-scores English, and an undetermined unit (short, or mostly code) may be English. */
function wordsAlone(language: string): boolean {
  return language !== 'en' && language !== 'und';
}

/**
 * The weight of each of the question's words in coverage: its idf over the units. Coverage is
 * the share of the question a unit holds, and a word of the question that no unit of the
 * passages' language holds is still part of the question: it weighs as much as the
 * rarest word they hold (as the evidence gate weighs it), not nothing. Weighed as nothing, a
 * question's one common word ("Anwendung") was the whole of it wherever its other words are
 * only in a heading ("Angemessenes Herunterfahren") or in no passage, and a German question
 * read over an English page ("Wie lege ich die Template-Engine fest?") was held whole by any
 * sentence naming a template engine. bench:writer third-party 79.6 / 82.7 → 80.1 / 83.2 %,
 * Lore's docs unchanged; a word held only by headings weighed by their idf instead moved nothing.
 *
 * `held[j]`: how many of the `units` units hold the question's word j.
 */
function questionWeights(held: readonly number[], units: number): number[] {
  const idf = held.map((n) => (n === 0 ? 0 : Math.log(1 + (units - n + 0.5) / (n + 0.5))));
  const rarest = Math.max(0, ...idf);
  return held.map((n, j) => (n === 0 ? rarest : idf[j]!));
}

/**
 * Where the embedding model does not read the language (`wordsAlone`), each of the question's
 * words also weighs by how telling it is in the collections (its idf there: AnswerRequest
 * `terms`, from search), not only among the passages' units: six passages are too few to tell
 * a common word from a telling one. A word rare among them but common in the docs ("misma" of
 * "¿Cómo encadeno manejadores de ruta para una misma ruta?") weighed as much as the subject,
 * and a sentence holding it beat the section about that subject. This share of a word's weight
 * follows its idf's share of the most telling word's; a word search did not find in the
 * collections keeps its whole weight. bench:answers (chat, gold / cited) Express es 75.0 /
 * 75.0 → 83.3 / 79.2 %, ja gold 79.2 → 83.3 %, zh-cn 87.5 / 91.7 → 91.7 / 95.8 %, de cited
 * 79.2 → 75.0 % (a right answer from the migration guide instead of the FAQ), the rest
 * unchanged; bench:writer Express all 83.5 / 88.0 → 86.1 /
 * 88.6 % at 0.75, 85.4 / 88.0 at 0.5, 84.8 / 88.6 at 1. XQuAD (bench:extractive, gold at its
 * BM25 rank) up to 1.2 points in ar, hi and ro, cited up in every language but zh (−0.1); th
 * −0.8, zh −0.5. In English, where the model's cosine re-scores the candidates, it traded as
 * many answers as it gained (bench:writer: 6 for 6): not there.
 */
const COLLECTION_IDF_SHARE = 0.75;

function informative(weights: readonly number[], terms: readonly string[], idf: ReadonlyMap<string, number>): readonly number[] {
  const known = terms.map((t) => idf.get(t));
  const top = Math.max(0, ...known.map((x) => x ?? 0));
  if (top <= 0) return weights;
  return weights.map((w, j) => w * (1 - COLLECTION_IDF_SHARE + COLLECTION_IDF_SHARE * (known[j] === undefined ? 1 : known[j]! / top)));
}

/**
 * How far a unit's terms contain `term`: 1 when exactly, PREFIX_CREDIT when a term shares
 * its first two thirds (at least PREFIX_MIN characters) — compounds and inflections the
 * stemmer leaves apart ("Warschauer"/"Warschau", Turkish and Greek case endings); on XQuAD
 * this adds 1–1.5 points in de, el, ru, tr and costs nothing elsewhere.
 */
function match(term: string, terms: Set<string>): number {
  if (terms.size === 0) return 0;
  if (terms.has(term)) return 1;
  if (term.length < PREFIX_MIN) return 0;
  for (const t of terms) {
    if (t.length < PREFIX_MIN) continue;
    const need = Math.max(PREFIX_MIN, Math.ceil((2 / 3) * Math.min(t.length, term.length)));
    let k = 0;
    while (k < need && t.charCodeAt(k) === term.charCodeAt(k)) k++;
    if (k === need) return PREFIX_CREDIT;
  }
  return 0;
}

/** Dotted identifiers: `app.del()`, `express.json`. */
const IDENTIFIER = /(?<![\w$.])[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+/g;

/**
 * The parts of a text's dotted identifiers that the language's stop list drops, as terms:
 * they are names there, not words (Spanish "del" of `app.del()`: without it the heading
 * `app.del()` held only "app", and "¿Qué reemplaza a app.del() en Express 5?" was answered
 * from `app.router`). The same word in prose stays a stop word.
 */
function identifierTerms(text: string, language: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(IDENTIFIER)) {
    const kept = new Set(analyze(m[0], language as Language).terms);
    // A part alone is analysed to itself even when it is a stop word.
    for (const part of m[0].split('.')) for (const term of analyze(part, language as Language).terms) if (!kept.has(term)) out.push(term);
  }
  return out;
}

/** The question's distinct terms in `language`, without question words and the bigrams joining them to a word (unless that leaves none). */
function contentTerms(question: string, language: string): string[] {
  const asked = questionTerms(language);
  const joined = scaffoldBigrams(question, language as Language);
  const stops = { has: (t: string) => asked.has(t) || joined.has(t) };
  // A German verb the question splits counts whole too ("richte … ein": einrichten).
  const verb = language === 'de' ? separableVerbTerm(question) : null;
  const terms = [...new Set([...analyze(question, language).terms, ...(verb ? [verb] : []), ...identifierTerms(question, language)])];
  const content = terms.filter((t) => !stops.has(t));
  return content.length > 0 ? content : terms;
}

/** Length as read: links as their text, Chinese, Japanese and Korean characters counted triple. */
function readLength(markdown: string): number {
  const text = linkTexts(markdown);
  return text.length + 2 * (text.match(WIDE)?.length ?? 0);
}

function lengthPenalty(markdown: string): number {
  const length = readLength(markdown);
  if (length < SHORT_CHARS) return LENGTH_PENALTY * (1 - length / SHORT_CHARS);
  if (length > LONG_CHARS) return LENGTH_PENALTY * Math.min(1, (length - LONG_CHARS) / LONG_CHARS);
  return 0;
}

function similar(a: Set<string>, b: Set<string>): boolean {
  // Parallel facts differ in their numbers ("Express 4.x needs Node.js 0.10", "Express 5.x needs Node.js 18"): not repeats.
  const numbers = (terms: Set<string>) => [...terms].filter((t) => DIGIT.test(t)).sort().join(' ');
  if (numbers(a) !== numbers(b)) return false;
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  const union = a.size + b.size - shared;
  return union === 0 || shared / union >= DUPLICATE_JACCARD;
}

/** Length as read (links as their text), with its citation (" [12]"). */
function citedLength(u: Unit): number {
  return linkTexts(u.text).length + String(u.ref).length + 3;
}

/**
 * The longest prefix of `text` that ends at a word boundary within `max` characters, without
 * trailing punctuation, plus "…". Never inside inline code: a span the cut would leave open is
 * left out, or, when that would leave less than a third of `max`, kept whole.
 */
function truncate(text: string, max: number): string {
  let end = 0;
  for (const { index, segment } of wordSegmenter().segment(text)) {
    if (index + segment.length > max - 1) break;
    end = index + segment.length;
  }
  let cut = text.slice(0, end || max - 1);
  // Never inside a link: before it.
  for (const link of text.matchAll(MARKDOWN_LINK)) if (link.index < cut.length && link.index + link[0].length > cut.length) cut = text.slice(0, link.index);
  const open = openCodeSpan(cut);
  if (open !== -1) {
    const ticks = /^`+/.exec(cut.slice(open))![0];
    const close = text.slice(open + ticks.length).search(new RegExp(`(?<!\`)${ticks}(?!\`)`));
    cut = open >= max / 3 || close === -1 ? cut.slice(0, open) : text.slice(0, open + 2 * ticks.length + close);
  }
  return cut.replace(/[\s\p{P}]+$/u, '') + '…';
}
