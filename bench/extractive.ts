/**
 * Quality of the extractive answer provider on XQuAD, without the HTTP pipeline: for each
 * question, the passages are the gold paragraph plus the 4 other paragraphs of that language
 * that BM25 (the search tokeniser, k1 1.2, b 0.75) ranks highest for the question — mostly
 * paragraphs of the same article, so the distractors are hard. The gold paragraph is put at
 * rank 1, at rank 2, and at its own BM25 rank (`bm25`; rank 5 when BM25 ranks it lower).
 *
 * Per language and placement it prints: the share of answers containing a gold answer string
 * (case-insensitive, NFKC; for zh, ja and th spaces are ignored), the share citing the gold
 * paragraph, the mean answer length in characters and in sentences, and the mean time to the
 * first delta.
 *
 *   npm run bench:extractive
 *   npm run bench:extractive -- --languages en,de --placements 1,2 --limit 300
 *   npm run bench:extractive -- --sentences 1 --chars 400     # other answer limits
 *   npm run bench:extractive -- --semantic off                # lexical scoring only
 *   npm run bench:extractive -- --idf off                     # no collection idf given (AnswerRequest terms)
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { AnswerRequest, QuestionTerm } from '../src/domain/answers/port.js';
import { analyze, detectLanguage, termFrequencies } from '../src/domain/ingestion/text/tokenize.js';
import { bundledModelPath, createLocalEmbedder } from '../src/providers/embeddings/local.js';
import { createExtractiveProvider, embeddingSimilarity } from '../src/providers/llm/extractive.js';
import { jsonl } from './jsonl.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: path.resolve('../shared/data/xquad') },
    languages: { type: 'string', default: 'ar,de,el,en,es,hi,ro,ru,th,tr,vi,zh' },
    placements: { type: 'string', default: '1,2,bm25' },
    limit: { type: 'string', default: '0' },
    sentences: { type: 'string', default: '3' },
    chars: { type: 'string', default: '600' },
    semantic: { type: 'string', default: 'on' },
    idf: { type: 'string', default: 'on' },
  },
});

interface Paragraph { _id: string; title: string; text: string }
interface Question { question: string; answers: string[]; context_id: string }
// As Lore runs it: the best candidates re-scored by the bundled embedding model (`--semantic off`: lexical only).
const similarity = values.semantic === 'off' ? undefined : embeddingSimilarity(await createLocalEmbedder({ model: 'onnx-community/all-MiniLM-L6-v2-ONNX', modelPath: bundledModelPath(), dtype: 'int8' }));
const provider = createExtractiveProvider({ maxSentences: Number(values.sentences), maxChars: Number(values.chars), similarity });
const PASSAGES = 5;
const UNSPACED = new Set(['zh', 'ja', 'th']);

/**
 * BM25 over the paragraphs of one language: `rank` gives paragraph indexes, best first; `terms`
 * the question's terms the paragraphs hold with their idf, as search hands them to the writer
 * (AnswerRequest `terms`).
 */
function bm25(paragraphs: Paragraph[]): { rank: (question: string) => number[]; terms: (question: string) => QuestionTerm[] } {
  const docs = paragraphs.map((p) => termFrequencies(analyze(p.text).terms));
  const lengths = docs.map((d) => [...d.values()].reduce((a, b) => a + b, 0));
  const avg = lengths.reduce((a, b) => a + b, 0) / docs.length;
  const df = new Map<string, number>();
  for (const d of docs) for (const t of d.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const language = detectLanguage(paragraphs.map((p) => p.text).join(' '));
  const idf = (n: number) => Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
  const questionTerms = (question: string) => [...new Set(analyze(question, language).terms)];
  const terms = (question: string) => questionTerms(question).flatMap((term) => (df.has(term) ? [{ term, idf: idf(df.get(term)!) }] : []));
  const rank = (question: string) => {
    const asked = questionTerms(question);
    const scores = docs.map((d, i) => {
      let s = 0;
      for (const t of asked) {
        const tf = d.get(t);
        if (!tf) continue;
        const n = df.get(t)!;
        s += idf(n) * ((tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * lengths[i]!) / avg)));
      }
      return s;
    });
    return scores.map((s, i) => [s, i] as const).sort((a, b) => b[0] - a[0]).map(([, i]) => i);
  };
  return { rank, terms };
}

function normalise(text: string, language: string): string {
  const folded = text.normalize('NFKC').toLowerCase();
  return UNSPACED.has(language) ? folded.replace(/\s+/g, '') : folded;
}

async function answer(request: AnswerRequest): Promise<{ text: string; firstMs: number }> {
  const started = performance.now();
  let text = '';
  let firstMs = 0;
  for await (const chunk of provider.stream(request, new AbortController().signal)) {
    if (chunk.type !== 'text') continue;
    if (text === '') firstMs = performance.now() - started;
    text += chunk.delta;
  }
  return { text, firstMs };
}

const pct = (n: number, of: number) => `${((100 * n) / of).toFixed(1)}%`.padStart(7);
console.log('lang  gold at  answer  cited   chars  sentences  first ms');
for (const language of values.languages.split(',')) {
  const dir = path.join(values.data, language);
  const paragraphs = jsonl<Paragraph>(path.join(dir, 'corpus.jsonl'));
  const index = new Map(paragraphs.map((p, i) => [p._id, i]));
  let questions = jsonl<Question>(path.join(dir, 'qa.jsonl'));
  if (Number(values.limit) > 0) questions = questions.slice(0, Number(values.limit));
  const { rank, terms } = bm25(paragraphs);
  const ranked = questions.map((q) => rank(q.question));
  for (const placement of values.placements.split(',')) {
    let contains = 0;
    let cited = 0;
    let chars = 0;
    let sentences = 0;
    let firstMs = 0;
    for (const [i, q] of questions.entries()) {
      const gold = index.get(q.context_id)!;
      const others = ranked[i]!.filter((p) => p !== gold).slice(0, PASSAGES - 1);
      const at = placement === 'bm25' ? Math.min(ranked[i]!.indexOf(gold), PASSAGES - 1) : Number(placement) - 1;
      const order = [...others.slice(0, at), gold, ...others.slice(at, PASSAGES - 1)];
      const passages = order.map((p, r) => ({ ref: r + 1, title: paragraphs[p]!.title.replaceAll('_', ' '), url: null, text: paragraphs[p]!.text }));
      const result = await answer({ messages: [], question: q.question, passages, ...(values.idf === 'on' && { terms: terms(q.question) }) });
      const text = normalise(result.text, language);
      if (q.answers.some((a) => text.includes(normalise(a, language)))) contains++;
      if ([...result.text.matchAll(/\[(\d+)\]/g)].some((m) => Number(m[1]) === at + 1)) cited++;
      chars += result.text.length;
      sentences += result.text.match(/\[\d+\]/g)?.length ?? 0;
      firstMs += result.firstMs;
    }
    const n = questions.length;
    console.log(`${language.padEnd(5)} ${placement.padStart(7)} ${pct(contains, n)} ${pct(cited, n)} ${(chars / n).toFixed(0).padStart(6)} ${(sentences / n).toFixed(2).padStart(10)} ${(firstMs / n).toFixed(2).padStart(9)}`);
  }
}
