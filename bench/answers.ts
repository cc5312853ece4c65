/**
 * Answer quality and speed of the configured answer provider (default: the embedded
 * extractive one) on XQuAD: for each language, the 240 paragraphs are ingested through the
 * HTTP API, every question is asked through chat without streaming, and the benchmark
 * reports the share of answers containing a gold answer string, the share whose citations
 * include the gold paragraph, and the median time to the first text_delta of streamed chat.
 *
 *   npm run bench:answers                           # en, de, zh, th; every question
 *   npm run bench:answers -- --langs en --questions 200 --streamed 100
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { percentile, startLore } from './harness.js';

const { values } = parseArgs({
  options: {
    langs: { type: 'string', default: 'en,de,zh,th' },
    questions: { type: 'string', default: '0' },
    streamed: { type: 'string', default: '200' },
    data: { type: 'string', default: path.resolve('../shared/data/xquad') },
  },
});
const maxQuestions = Number(values.questions) || Infinity;
const streamedQuestions = Number(values.streamed);
const jsonl = <T>(file: string): T[] => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as T);
const TARGETS: Record<string, number> = { en: 0.8 };

const lore = await startLore('bench-answers');
const { call, container } = lore;
const url = (lang: string, id: string) => `https://xquad.example/${lang}/${id}`;
/** Case-insensitive containment; spaces ignored for scripts written without them. */
const contains = (answer: string, gold: string, lang: string) => {
  const norm = (s: string) => (['zh', 'th', 'ja'].includes(lang) ? s.replace(/\s+/g, '') : s).toLowerCase();
  return norm(answer).includes(norm(gold));
};

interface Row { lang: string; questions: number; gold: number; cited: number; chars: number; ttft: number; noAnswer: number }
const rows: Row[] = [];
for (const lang of values.langs.split(',')) {
  const base = path.join(values.data, lang);
  const collection = (await call('POST', '/api/v1/collections', { name: `xquad-${lang}` })).data.id;
  const paragraphs = jsonl<{ _id: string; title: string; text: string }>(path.join(base, 'corpus.jsonl'));
  for (let i = 0; i < paragraphs.length; i += 50) {
    const entries = paragraphs.slice(i, i + 50).map((p) => ({ source_type: 'xquad', source_id: p._id, title: p.title.replace(/_/g, ' '), raw_text: p.text, source_url: url(lang, p._id) }));
    await call('POST', `/api/v1/collections/${collection}/entries/batch`, { entries });
  }
  const integration = (await call('POST', '/api/v1/integrations', { type: 'chatbot', name: `xquad-${lang}`, collection_ids: [collection] })).data.id;
  const qa = jsonl<{ question: string; answers: string[]; context_id: string }>(path.join(base, 'qa.jsonl')).slice(0, maxQuestions);

  let gold = 0;
  let cited = 0;
  let chars = 0;
  let noAnswer = 0;
  for (const q of qa) {
    const reply = await call('POST', `/api/v1/integrations/${integration}/chat`, { message: q.question, stream: false });
    const [stored] = await container.db.query<{ citations: { url: string }[] }>(
      "SELECT citations FROM conversation_messages WHERE conversation_id = $1 AND role = 'assistant'",
      [reply.conversation_id],
    );
    if (!stored) noAnswer++;
    if (q.answers.some((a) => contains(reply.message, a, lang))) gold++;
    if (stored?.citations.some((c) => c.url === url(lang, q.context_id))) cited++;
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
  rows.push({ lang, questions: qa.length, gold: gold / qa.length, cited: cited / qa.length, chars: chars / qa.length, ttft: percentile(firsts, 50), noAnswer });
  console.error(`${lang} done`);
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
console.log('\nanswers on XQuAD (chat, one new conversation per question)');
console.log(`${'lang'.padEnd(5)} ${'questions'.padStart(9)}  ${'gold answer in text'.padEnd(26)} ${'gold paragraph cited'.padEnd(26)} ${'median first delta'.padEnd(19)} mean chars  unanswered`);
for (const r of rows) {
  const target = TARGETS[r.lang] ?? 0.7;
  console.log(
    `${r.lang.padEnd(5)} ${String(r.questions).padStart(9)}  ${`${pct(r.gold)} (target ≥ ${pct(target)})`.padEnd(26)} ${`${pct(r.cited)} (target ≥ 95 %)`.padEnd(26)} ` +
      `${`${r.ttft.toFixed(1)} ms (≤ 150)`.padEnd(19)} ${r.chars.toFixed(0).padStart(10)}  ${String(r.noAnswer).padStart(10)}`,
  );
}
await lore.close();
