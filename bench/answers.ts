/**
 * Answer quality and speed of the configured answer provider (default: the embedded
 * extractive one), on two sets:
 *
 * - `docs`: Lore's own documentation (README.md, docs/*.md, one entry per section as the demo
 *   has it) and the questions of bench/data/docs-qa.jsonl, written as users ask them, about
 *   tables, code, lists and prose. Each is asked through chat and through summarise (not
 *   streamed); reported: gold string in the answer, gold section cited, and the share of
 *   answers that read as prose by the explicit rules of ./proseRules.ts (with the failures
 *   per rule), then the 5 worst answers in full (`--worst N` for more).
 * - `xquad`: for each language, the 240 paragraphs are ingested through the HTTP API, every
 *   question is asked through chat without streaming; reported: the share of answers
 *   containing a gold answer string, the share whose citations include the gold paragraph,
 *   the share whose gold paragraph was among the passages (search's top 6 at 0.4) but not
 *   cited (what the writer, not retrieval, left out), and the median time to the first
 *   text_delta of streamed chat.
 *
 * - `pages`: page-bound questions on the same docs (bench/data/page-qa.jsonl: "What are the
 *   limits here?" asked on two pages, with two different answers), each asked by chat without
 *   and with the page the visitor is on (`context: {url, title}`); reported: gold string in the
 *   answer and gold section cited, both ways.
 *
 * - `thresholds`: per XQuAD language, what the chat threshold keeps (the gold paragraph among
 *   the top 6 at or above it) and what it lets through (questions whose article is left out
 *   of the collection, answered), at 0.20–0.40 (see thresholdsSet).
 *
 * - `evidence`: per XQuAD language, the evidence gate (lexical floor and slope) an answer's passages must pass (./evidence.ts),
 *   English's also held to the docs, Vite and Express (English) questions;
 *   `--write` writes the table the server reads (src/providers/embeddings/evidenceGates.ts);
 *   `evidence-check`: chat itself on the held-back half with the gates the server has.
 *
 * - `vite`, `express`: docs that are not ours (../shared/data/docs), imported as `lore import
 *   DIR --sections` imports them (Express: one collection per language), with the questions of
 *   bench/data/vite-qa.jsonl and express-qa.jsonl, judged like the docs set and reported per
 *   folder and language (see ./thirdPartyAnswers.ts).
 *
 *   npm run bench:answers                           # docs; XQuAD en, de, zh, th; every question
 *   npm run bench:answers -- --sets docs
 *   npm run bench:answers -- --sets pages
 *   npm run bench:answers -- --sets vite,express --worst 10
 *   npm run bench:answers -- --sets thresholds --langs ar,de,el,en,es,hi,ro,ru,th,tr,vi,zh --questions 300
 *   npm run bench:answers -- --sets xquad --langs en --questions 200 --streamed 100
 *   npm run bench:answers -- --sets evidence --langs ar,de,el,en,es,hi,ro,ru,th,tr,vi,zh [--write] [--dump FILE]
 *   npm run bench:answers -- --sets evidence --replay FILE [--write]
 *   npm run bench:answers -- --sets evidence-check --langs ar,de,el,en,es,hi,ro,ru,th,tr,vi,zh --questions 150
 *
 * `--capture FILE` also writes what the (extractive) writer was asked, one JSON line per chat
 * question ({question, passages}), for `npm run bench:writer` to replay in seconds. `--dump FILE`
 * writes, for `evidence`, what each question found (its analysis, its matches and hits), and
 * for `evidence-check`, each question's reply (to compare two runs question by question);
 * `--replay FILE` calibrates `evidence` again from such a dump, in seconds, without importing
 * or searching anything (its languages are the dump's).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { createEmbedder } from '../src/container.js';
import type { AnswerProvider, AnswerRequest } from '../src/domain/answers/port.js';
import { createExtractiveProvider, embeddingSimilarity } from '../src/providers/llm/extractive.js';
import { retrievalQuery } from '../src/domain/answers/service.js';
import { docEntryUrl, loreDocEntries, loreDocNames, readLoreDoc } from '../src/loreDocs.js';
import { percentile, startLore } from './harness.js';
import { headingsOf, proseFailures, RULES, type Rule } from './proseRules.js';
import { askByChatAndSummarise } from './askQuestions.js';
import { jsonl } from './jsonl.js';
import { thirdPartySet } from './thirdPartyAnswers.js';
import { evidenceCheck, evidenceSet, xquadArticle, type DocsSet } from './evidence.js';
import { docsFolders, DOCS_ROOT, folderEntries, inSection, isSourceOf, type DocsQuestion } from './thirdPartyDocs.js';

const { values } = parseArgs({
  options: {
    sets: { type: 'string', default: 'docs,xquad' },
    langs: { type: 'string', default: 'en,de,zh,th' },
    questions: { type: 'string', default: '0' },
    streamed: { type: 'string', default: '200' },
    data: { type: 'string', default: path.resolve('../shared/data/xquad') },
    'docs-questions': { type: 'string', default: path.resolve('bench/data/docs-qa.jsonl') },
    'page-questions': { type: 'string', default: path.resolve('bench/data/page-qa.jsonl') },
    'third-party-docs': { type: 'string', default: DOCS_ROOT },
    worst: { type: 'string', default: '5' },
    capture: { type: 'string' },
    dump: { type: 'string' },
    replay: { type: 'string' },
    write: { type: 'boolean', default: false },
  },
});
const maxQuestions = Number(values.questions) || Infinity;
const streamedQuestions = Number(values.streamed);
const TARGETS: Record<string, number> = { en: 0.8 };
/** Gold answer in the text elsewhere (issue 14's target). */
const OTHER_TARGET = 0.75;
const sets = values.sets.split(',');

const capture = values.capture ? await capturingWriter() : undefined;
const lore = await startLore('bench-answers', capture ? { embedder: capture.embedder, answerProvider: capture.provider } : {});
const { call, container } = lore;
const url = (lang: string, id: string) => `https://xquad.example/${lang}/${id}`;
/** Case-insensitive containment; spaces ignored for scripts written without them. */
const contains = (answer: string, gold: string, lang: string) => {
  const norm = (s: string) => (['zh', 'th', 'ja'].includes(lang) ? s.replace(/\s+/g, '') : s).toLowerCase();
  return norm(answer).includes(norm(gold));
};

interface Row { lang: string; questions: number; gold: number; cited: number; given: number; chars: number; ttft: number; noAnswer: number; missed: { below: number; ranked: number; absent: number } }
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

if (sets.includes('docs')) await docsSet();
if (sets.includes('pages')) await pagesSet();
if (sets.includes('thresholds')) await thresholdsSet();
if (sets.includes('evidence-check')) {
  await evidenceCheck({
    langs: values.langs.split(','),
    questions: (lang) => jsonl<{ question: string; context_id: string; answers: string[] }>(path.join(values.data, lang, 'qa.jsonl')),
    integration: xquadArticlesIntegration,
    url,
    limit: maxQuestions === Infinity ? 150 : maxQuestions,
    dump: values.dump,
    chat: async (integration, question) => {
      const reply = await call('POST', `/api/v1/integrations/${integration}/chat`, { message: question, stream: false });
      const [stored] = await container.db.query<{ citations: { url: string }[] }>(
        "SELECT citations FROM conversation_messages WHERE conversation_id = $1 AND role = 'assistant'",
        [reply.conversation_id],
      );
      return { text: reply.message as string, cited: (stored?.citations ?? []).map((c) => c.url) };
    },
  });
}
if (sets.includes('evidence')) {
  await evidenceSet({
    langs: values.langs.split(','),
    questions: (lang) => jsonl<{ question: string; context_id: string }>(path.join(values.data, lang, 'qa.jsonl')),
    integration: xquadArticlesIntegration,
    search: async (integration, question, perPage) => {
      const params = new URLSearchParams({ query: retrievalQuery(question), threshold: '0', per_page: String(perPage), explain: 'true' });
      return (await call('GET', `/api/v1/integrations/${integration}/search?${params}`)).data;
    },
    url,
    retrievalQuery,
    matches: async (integration) => {
      const collections = (await call('GET', `/api/v1/integrations/${integration}`)).data.collection_ids as string[];
      // As chat retrieves: typos corrected (an integration's default).
      const base = { threshold: 0, meta: [], boosts: [], sorts: [], typos: true };
      return async (query, language) => (await container.deps.search.rank(lore.scope, collections, { ...base, query, language })).matches;
    },
    stats: async (integration) => {
      const [collection] = (await call('GET', `/api/v1/integrations/${integration}`)).data.collection_ids as string[];
      const [stats] = await container.db.query<{ chunks: number }>('SELECT chunk_count AS chunks FROM collection_stats WHERE collection_id = $1', [collection]);
      const rows = await container.db.query<{ term: string; df: number }>('SELECT term, df FROM collection_terms WHERE collection_id = $1', [collection]);
      return { chunks: stats?.chunks ?? 0, df: new Map(rows.map((r) => [r.term, r.df])) };
    },
    documentation: async (lang) => (lang === 'en' ? englishDocs() : []),
    write: values.write ? path.resolve('src/providers/embeddings/evidenceGates.ts') : undefined,
    dump: values.dump,
    replay: values.replay,
  });
}
for (const set of ['vite', 'express'] as const) {
  if (sets.includes(set)) await thirdPartySet(lore, set, { questions: path.resolve(`bench/data/${set}-qa.jsonl`), root: values['third-party-docs'], worst: Number(values.worst), max: maxQuestions });
}

const rows: Row[] = [];
for (const lang of sets.includes('xquad') ? values.langs.split(',') : []) {
  const integration = await xquadIntegration(`xquad-${lang}`, lang, xquadParagraphs(lang));
  const qa = jsonl<{ question: string; answers: string[]; context_id: string }>(path.join(values.data, lang, 'qa.jsonl')).slice(0, maxQuestions);

  let gold = 0;
  let cited = 0;
  let chars = 0;
  let noAnswer = 0;
  let uncitedButGiven = 0;
  const missed = { below: 0, ranked: 0, absent: 0 };
  for (const q of qa) {
    const reply = await call('POST', `/api/v1/integrations/${integration}/chat`, { message: q.question, stream: false });
    const [stored] = await container.db.query<{ citations: { url: string }[] }>(
      "SELECT citations FROM conversation_messages WHERE conversation_id = $1 AND role = 'assistant'",
      [reply.conversation_id],
    );
    if (!stored) noAnswer++;
    if (q.answers.some((a) => contains(reply.message, a, lang))) gold++;
    const citedGold = stored?.citations.some((c) => c.url === url(lang, q.context_id)) ?? false;
    if (citedGold) cited++;
    else {
      // Why not: was the gold paragraph among the passages the writer was given (as search ranks them)?
      const all = await ranked(integration, q.question, 50);
      const at = all.findIndex((h) => h.source_url === url(lang, q.context_id));
      if (at >= 0 && at < 6 && all[at]!.score_breakdown.similarity >= 0.4) uncitedButGiven++;
      else if (at < 0) missed.absent++;
      else if (at >= 6) missed.ranked++;
      else missed.below++;
      if (process.env.BENCH_MISSES) console.error(JSON.stringify({ q: q.question, at, sim: all[at]?.score_breakdown.similarity, top: all[0]?.score_breakdown.similarity }));
    }
    chars += reply.message.length;
  }

  // Time to the first text_delta, streamed, over HTTP.
  const firsts: number[] = [];
  for (const q of qa.slice(0, streamedQuestions)) {
    const started = performance.now();
    const response = await fetch(`${lore.url}/api/v1/integrations/${integration}/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${lore.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: q.question }),
    });
    const decoder = new TextDecoder();
    let text = '';
    let first: number | undefined;
    for await (const chunk of response.body!) {
      text += decoder.decode(chunk, { stream: true });
      if (first === undefined && text.includes('"type":"text_delta"')) first = performance.now() - started;
    }
    if (first !== undefined) firsts.push(first);
  }
  firsts.sort((a, b) => a - b);
  rows.push({ lang, questions: qa.length, gold: gold / qa.length, cited: cited / qa.length, given: uncitedButGiven / qa.length, chars: chars / qa.length, ttft: percentile(firsts, 50), noAnswer, missed });
  console.error(`${lang} done`);
}

if (rows.length > 0) console.log('\nanswers on XQuAD (chat, one new conversation per question)');
if (rows.length > 0) console.log(`${'lang'.padEnd(5)} ${'questions'.padStart(9)}  ${'gold answer in text'.padEnd(26)} ${'gold paragraph cited'.padEnd(26)} ${'given, not cited'.padEnd(17)} ${'not given: < 0.4 / > 6th / absent'.padEnd(34)} ${'median first delta'.padEnd(19)} mean chars  unanswered`);
for (const r of rows) {
  const target = TARGETS[r.lang] ?? OTHER_TARGET;
  console.log(
    `${r.lang.padEnd(5)} ${String(r.questions).padStart(9)}  ${`${pct(r.gold)} (target ≥ ${pct(target)})`.padEnd(26)} ${`${pct(r.cited)} (target ≥ 95 %)`.padEnd(26)} ${pct(r.given).padEnd(17)} ${`${r.missed.below} / ${r.missed.ranked} / ${r.missed.absent}`.padEnd(34)} ` +
      `${`${r.ttft.toFixed(1)} ms (≤ 150)`.padEnd(19)} ${r.chars.toFixed(0).padStart(10)}  ${String(r.noAnswer).padStart(10)}`,
  );
}
if (capture) {
  writeFileSync(values.capture!, [...capture.asked.values()].map((r) => JSON.stringify(r)).join('\n') + '\n');
  console.error(`captured ${capture.asked.size} questions in ${values.capture}`);
}
await lore.close();

/**
 * The embedded extractive writer as Lore configures it, recording each question it is asked
 * first (chat asks before summarise) with its passages.
 */
async function capturingWriter() {
  const embedder = await createEmbedder(loadConfig(process.env));
  const writer = createExtractiveProvider({ similarity: embeddingSimilarity(embedder) });
  const asked = new Map<string, Pick<AnswerRequest, 'question' | 'passages' | 'terms'>>();
  const provider: AnswerProvider = {
    provider: writer.provider,
    model: writer.model,
    stream(request, signal) {
      if (!asked.has(request.question)) asked.set(request.question, { question: request.question, passages: request.passages, terms: request.terms });
      return writer.stream(request, signal);
    },
  };
  return { embedder, provider, asked };
}

interface XquadParagraph { _id: string; title: string; text: string }

function xquadParagraphs(lang: string): XquadParagraph[] {
  return jsonl<XquadParagraph>(path.join(values.data, lang, 'corpus.jsonl'));
}

/** A chatbot integration over a new collection of `paragraphs`, ingested through the HTTP API. */
async function xquadIntegration(name: string, lang: string, paragraphs: readonly XquadParagraph[]): Promise<string> {
  const entries = paragraphs.map((p) => ({ source_type: 'xquad', source_id: p._id, title: p.title.replace(/_/g, ' '), raw_text: p.text, source_url: url(lang, p._id) }));
  return lore.integrationOver(name, entries, 'chatbot');
}

/**
 * English documentation for the evidence calibration: Lore's docs, Vite's and Express's (English),
 * each one entry per section as `lore import --sections` makes them, with their questions.
 */
async function englishDocs(): Promise<DocsSet[]> {
  const base = 'https://lore.test';
  const sets: DocsSet[] = [];
  const own = jsonl<DocsQuestion>(values['docs-questions']);
  const docs = await lore.integrationOver('evidence-docs', await loreDocEntries(base), 'chatbot');
  sets.push({ name: "Lore's docs", integration: docs, questions: own.map((q) => ({ question: q.question, isGold: (u) => q.sources.some((s) => u === docEntryUrl(base, s)) })) });
  for (const set of ['vite', 'express'] as const) {
    const folder = docsFolders(set, values['third-party-docs']).find((f) => f.lang === 'en')!;
    const integration = await lore.integrationOver(`evidence-${set}`, await folderEntries(folder.dir, folder.baseUrl), 'chatbot');
    const questions = jsonl<DocsQuestion>(path.resolve(`bench/data/${set}-qa.jsonl`)).filter((q) => (q.lang ?? 'en') === 'en');
    sets.push({ name: folder.name, integration, questions: questions.map((q) => ({ question: q.question, isGold: (u) => isSourceOf(q, folder.baseUrl, u) })) });
  }
  return sets;
}

/** A chatbot integration over the paragraphs of a language's articles whose number passes `keep`. */
function xquadArticlesIntegration(name: string, lang: string, keep: (article: number) => boolean): Promise<string> {
  return xquadIntegration(name, lang, xquadParagraphs(lang).filter((p) => keep(xquadArticle(p._id))));
}

/** The best `perPage` hits for a question at threshold 0, searched as chat retrieves (retrievalQuery). */
async function ranked(integration: string, question: string, perPage: number) {
  const params = new URLSearchParams({ query: retrievalQuery(question), threshold: '0', per_page: String(perPage) });
  return (await call('GET', `/api/v1/integrations/${integration}/search?${params}`)).data as { source_url: string; score_breakdown: { similarity: number } }[];
}

/**
 * The `thresholds` set: what a chat threshold keeps and what it lets through, per language.
 * Answerable: the first `--questions` questions over all 240 paragraphs; the gold paragraph
 * is kept when it is among the top 6 at or above the threshold. Unanswerable: a collection of
 * the odd-numbered articles only, asked the questions of the even-numbered ones (their
 * article is absent); answered when the top hit reaches the threshold.
 */
async function thresholdsSet(): Promise<void> {
  const sweep = [0.2, 0.25, 0.3, 0.35, 0.4];
  console.log('\nchat threshold per language (XQuAD): gold paragraph in the top 6 / unanswerable questions answered');
  console.log(`${'lang'.padEnd(5)} ${sweep.map((t) => `at ${t.toFixed(2)}`.padEnd(17)).join(' ')}`);
  for (const lang of values.langs.split(',')) {
    const paragraphs = xquadParagraphs(lang);
    const all = jsonl<{ question: string; context_id: string }>(path.join(values.data, lang, 'qa.jsonl'));
    const full = await xquadIntegration(`thresholds-${lang}`, lang, paragraphs);
    const half = await xquadIntegration(`thresholds-odd-${lang}`, lang, paragraphs.filter((p) => xquadArticle(p._id) % 2 === 1));
    const kept = sweep.map(() => 0);
    const answered = sweep.map(() => 0);
    const answerable = all.slice(0, maxQuestions);
    for (const q of answerable) {
      const hits = await ranked(full, q.question, 6);
      const gold = hits.find((h) => h.source_url === url(lang, q.context_id));
      sweep.forEach((t, i) => { if (gold && gold.score_breakdown.similarity >= t) kept[i]!++; });
    }
    const unanswerable = all.filter((q) => xquadArticle(q.context_id) % 2 === 0).filter((_, i) => i % 2 === 0).slice(0, maxQuestions);
    for (const q of unanswerable) {
      const top = (await ranked(half, q.question, 6))[0]?.score_breakdown.similarity ?? 0;
      sweep.forEach((t, i) => { if (top >= t) answered[i]!++; });
    }
    console.log(`${lang.padEnd(5)} ${sweep.map((_, i) => `${pct(kept[i]! / answerable.length)} / ${pct(answered[i]! / unanswerable.length)}`.padEnd(17)).join(' ')}`);
  }
}

/** A demo URL as the entry's source_id would name it (`/demo/docs/#limits` → `README.md#limits`), for reading. */
function shortUrl(base: string, url: string): string {
  const path = url.startsWith(`${base}/demo/docs/`) ? url.slice(`${base}/demo/docs/`.length) : url;
  return path.startsWith('#') || path === '' ? `README.md${path}` : path.replace(/^([^#]+)/, '$1.md');
}

interface DocsAnswer { q: DocsQuestion; text: string; urls: string[]; gold: boolean; cited: boolean; failed: Rule[]; retrieved?: number }

/** The docs set: Lore's docs as the demo holds them, every question by chat and by summarise. */
async function docsSet(): Promise<void> {
  const base = 'https://lore.test';
  const questions = jsonl<DocsQuestion>(values['docs-questions']);
  const entries = await loreDocEntries(base);
  const headings = new Set<string>();
  for (const name of await loreDocNames()) for (const h of headingsOf((await readLoreDoc(name)) ?? '')) headings.add(h);
  const ids = new Set(entries.map((e) => e.source_id));
  const anchors = new Map(entries.map((e) => [e.source_id, e.meta?.anchors]));
  for (const q of questions) {
    for (const source of q.sources) if (!ids.has(source)) throw new Error(`docs-qa: unknown source ${source} (${q.question})`);
  }
  const integration = await lore.integrationOver('lore-docs', entries, 'chatbot');
  const judge = (q: DocsQuestion, text: string, urls: string[]): DocsAnswer => ({
    q,
    text,
    urls,
    gold: q.gold.some((g) => text.toLowerCase().includes(g.toLowerCase())),
    cited: urls.some((u) => q.sources.some((s) => inSection(u, docEntryUrl(base, s), anchors.get(s)))),
    failed: proseFailures(text, headings),
  });

  const byRoute = await askByChatAndSummarise({ call, container }, integration, questions, judge);

  const share = (list: DocsAnswer[], test: (a: DocsAnswer) => boolean) => list.filter(test).length / Math.max(1, list.length);
  console.log(`\nanswers on Lore's docs (${questions.length} questions of ${path.relative(process.cwd(), values['docs-questions'])}, ${entries.length} sections)`);
  console.log(`${'route'.padEnd(10)} ${'gold in answer'.padEnd(24)} ${'gold source cited'.padEnd(24)} ${'reads as prose'.padEnd(24)} mean chars`);
  for (const [route, list] of Object.entries(byRoute)) {
    console.log(
      `${route.padEnd(10)} ${`${pct(share(list, (a) => a.gold))} (≥ 90 %)`.padEnd(24)} ${`${pct(share(list, (a) => a.cited))} (≥ 95 %)`.padEnd(24)} ` +
        `${`${pct(share(list, (a) => a.failed.length === 0))} (≥ 95 %)`.padEnd(24)} ${(list.reduce((n, a) => n + a.text.length, 0) / list.length).toFixed(0).padStart(10)}`,
    );
  }
  console.log(`\nprose rules broken (chat / summarise): ${RULES.map((r) => `${r} ${byRoute.chat.filter((a) => a.failed.includes(r)).length}/${byRoute.summarise.filter((a) => a.failed.includes(r)).length}`).join(', ')}`);
  for (const kind of ['table', 'code', 'list', 'prose']) {
    const list = byRoute.chat.filter((a) => a.q.kind === kind);
    if (list.length > 0) console.log(`chat, answers in ${kind.padEnd(5)} (${String(list.length).padStart(2)}): gold ${pct(share(list, (a) => a.gold))}, cited ${pct(share(list, (a) => a.cited))}, prose ${pct(share(list, (a) => a.failed.length === 0))}`);
  }
  const retrieved = byRoute.chat.filter((a) => a.retrieved !== undefined);
  console.log(`\nretrieval (search, top 6): a gold section among the passages for ${pct(retrieved.length / byRoute.chat.length)} of questions, first for ${pct(retrieved.filter((a) => a.retrieved === 1).length / byRoute.chat.length)}; ` +
    `the writer found the gold in ${pct(share(retrieved, (a) => a.gold))} of those`);
  const badness = (a: DocsAnswer) => a.failed.length * 4 + (a.gold ? 0 : 2) + (a.cited ? 0 : 1);
  const worst = [...byRoute.chat].sort((a, b) => badness(b) - badness(a)).slice(0, Number(values.worst)).filter((a) => badness(a) > 0);
  console.log(`\nthe ${worst.length} worst chat answers`);
  for (const a of worst) {
    const problems = [...a.failed, ...(a.gold ? [] : ['gold missing']), ...(a.cited ? [] : ['source not cited'])];
    console.log(`\n### ${a.q.question}  [${problems.join(', ')}]  gold: ${a.q.gold.join(' | ')}; sources: ${a.q.sources.join(', ')}; retrieved at ${a.retrieved ?? '-'}\n${a.text}\ncited: ${a.urls.map((u) => shortUrl(base, u)).join(', ') || 'nothing'}`);
  }
}


interface PageQuestion { question: string; page: string; gold: string[]; sources: string[] }

/** Page-bound questions, by chat without and with the visitor's page as context. */
async function pagesSet(): Promise<void> {
  const base = 'https://lore.test';
  const questions = jsonl<PageQuestion>(values['page-questions']);
  const entries = await loreDocEntries(base);
  const ids = new Set(entries.map((e) => e.source_id));
  for (const q of questions) {
    for (const source of q.sources) if (!ids.has(source)) throw new Error(`page-qa: unknown source ${source} (${q.question})`);
    // A page may name an anchor finer than the entries (a ### heading inside a section).
    if (!ids.has(q.page.split('#')[0]!)) throw new Error(`page-qa: unknown page ${q.page} (${q.question})`);
  }
  const integration = await lore.integrationOver('lore-docs-pages', entries, 'chatbot');
  const titles = new Map(entries.map((e) => [e.source_id, e.title]));

  const results = { without: { gold: 0, cited: 0 }, with: { gold: 0, cited: 0 } };
  const lines: string[] = [];
  const missed: string[] = [];
  for (const q of questions) {
    const row: string[] = [];
    for (const way of ['without', 'with'] as const) {
      const context = way === 'with' ? { url: docEntryUrl(base, q.page), title: titles.get(q.page) ?? titles.get(q.page.split('#')[0]!) ?? q.page } : false;
      const reply = await call('POST', `/api/v1/integrations/${integration}/chat`, { message: q.question, stream: false, context });
      const [stored] = await container.db.query<{ citations: { url: string }[] }>(
        "SELECT citations FROM conversation_messages WHERE conversation_id = $1 AND role = 'assistant'",
        [reply.conversation_id],
      );
      const gold = q.gold.some((g) => reply.message.toLowerCase().includes(g.toLowerCase()));
      const cited = (stored?.citations ?? []).some((c) => q.sources.some((s) => c.url === docEntryUrl(base, s)));
      results[way].gold += gold ? 1 : 0;
      results[way].cited += cited ? 1 : 0;
      row.push(`${way}: ${gold ? 'gold' : '-'} ${cited ? 'cited' : '-'}`);
      if (way === 'with' && !gold) missed.push(`### ${q.question} on ${q.page} (gold: ${q.gold.join(' | ')})\n${reply.message}\ncited: ${(stored?.citations ?? []).map((c) => shortUrl(base, c.url)).join(', ') || 'nothing'}`);
    }
    lines.push(`${q.page.padEnd(36)} ${q.question.padEnd(38)} ${row.join('  ')}`);
  }
  const n = questions.length;
  console.log(`\npage-bound questions (${n} of ${path.relative(process.cwd(), values['page-questions'])}), chat`);
  console.log(`${'page context'.padEnd(14)} ${'gold in answer'.padEnd(16)} gold section cited`);
  for (const way of ['without', 'with'] as const) console.log(`${way.padEnd(14)} ${pct(results[way].gold / n).padEnd(16)} ${pct(results[way].cited / n)}`);
  console.log(`\n${lines.join('\n')}`);
  console.log(`\nwith the page, the gold missing:\n\n${missed.join('\n\n')}`);
}
