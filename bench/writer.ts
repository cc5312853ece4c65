/**
 * The extractive writer alone, replayed on the passages `npm run bench:answers -- --capture
 * FILE` recorded: every question of the docs, vite and express sets is answered again from the
 * same passages by the writer as the working tree has it, in seconds instead of minutes, and
 * judged as bench:answers judges (gold string in the answer, gold section cited, prose rules).
 * Search and the HTTP pipeline are left out, so the numbers can differ a little from
 * bench:answers'; a citation of a heading inside the gold section cites it, as there
 * (thirdPartyDocs `inSection`). bench:answers stays the measure a change is reported with. Each run keeps its verdicts in
 * FILE.verdicts.json and prints the questions that changed since the previous run.
 *
 *   npm run bench:answers -- --sets docs,vite,express --capture .scratch/writer-passages.jsonl
 *   npm run bench:writer                                  # replay, per set and language
 *   npm run bench:writer -- --worst 20
 *   npm run bench:writer -- --oracle     # the gold passages alone: the choice within a section
 *   npm run bench:writer -- --only 'strictPort|assets dir'   # these answers with their passages and best candidates
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { createEmbedder } from '../src/container.js';
import type { AnswerRequest } from '../src/domain/answers/port.js';
import { docEntryUrl, loreDocEntries, loreDocNames, readLoreDoc } from '../src/loreDocs.js';
import { createExtractiveProvider, embeddingSimilarity } from '../src/providers/llm/extractive.js';
import { selectAnswer, type Candidate } from '../src/providers/llm/extractiveSelect.js';
import { listFolder } from '../src/importers/folder.js';
import { jsonl } from './jsonl.js';
import { headingsOf, proseFailures, type Rule } from './proseRules.js';
import { containsGold, docsFolders, DOCS_ROOT, folderEntries, inSection, sourceUrl, type DocsQuestion } from './thirdPartyDocs.js';

const { values } = parseArgs({
  options: {
    capture: { type: 'string', default: '.scratch/writer-passages.jsonl' },
    worst: { type: 'string', default: '0' },
    only: { type: 'string' },
    candidates: { type: 'string', default: '8' },
    oracle: { type: 'boolean', default: false },
  },
});

/** A question's gold sections: their URLs, each with the ids of the headings inside it (meta.anchors). */
interface Known { q: DocsQuestion; group: string; lang: string; urls: [string, unknown][]; headings: Set<string> }
interface Verdict { group: string; question: string; gold: boolean; cited: boolean; failed: Rule[]; text: string; cites: string[]; goldAt: number }

const known = new Map<string, Known>();
const docsHeadings = new Set<string>();
for (const name of await loreDocNames()) for (const h of headingsOf((await readLoreDoc(name)) ?? '')) docsHeadings.add(h);
const docsAnchors = new Map((await loreDocEntries('https://lore.test')).map((e) => [e.source_id, e.meta?.anchors]));
for (const q of jsonl<DocsQuestion>('bench/data/docs-qa.jsonl')) {
  known.set(q.question, { q, group: 'docs', lang: 'en', urls: q.sources.map((s) => [docEntryUrl('https://lore.test', s), docsAnchors.get(s)]), headings: docsHeadings });
}
for (const set of ['vite', 'express'] as const) {
  const questions = jsonl<DocsQuestion>(`bench/data/${set}-qa.jsonl`);
  for (const folder of docsFolders(set, DOCS_ROOT)) {
    const headings = new Set<string>();
    for (const file of (await listFolder(folder.dir)).files) for (const h of headingsOf(await readFile(file.absolute, 'utf8'))) headings.add(h);
    const anchors = new Map((await folderEntries(folder.dir, folder.baseUrl)).map((e) => [e.source_id, e.meta?.anchors]));
    for (const q of questions.filter((x) => (x.lang ?? 'en') === folder.lang)) {
      known.set(q.question, { q, group: folder.name, lang: folder.lang, urls: q.sources.map((s) => [sourceUrl(folder.baseUrl, s), anchors.get(s)]), headings });
    }
  }
}

const embedder = await createEmbedder(loadConfig({ ...process.env, LORE_DATA_DIR: '.scratch' }));
const similarity = embeddingSimilarity(embedder);
const writer = createExtractiveProvider({ similarity });
const only = values.only ? new RegExp(values.only, 'i') : null;
const verdicts: Verdict[] = [];
const asked = jsonl<Pick<AnswerRequest, 'question' | 'passages' | 'terms'>>(values.capture);
for (const request of asked) {
  const k = known.get(request.question);
  if (!k) continue;
  const isGold = (url: string | null) => k.urls.some(([gold, anchors]) => inSection(url ?? '', gold, anchors));
  // --oracle: the gold passages alone (when given), to measure the choice within a section apart from the choice of section.
  if (values.oracle) {
    const gold = request.passages.filter((p) => isGold(p.url));
    if (gold.length > 0) request.passages = gold;
  }
  let text = '';
  for await (const chunk of writer.stream({ ...request, messages: [] }, new AbortController().signal)) if (chunk.type === 'text') text += chunk.delta;
  let explained: readonly Candidate[] = [];
  if (only?.test(request.question)) await selectAnswer(request.question, request.passages, { maxSentences: 3, maxChars: 600, terms: request.terms }, similarity, (c) => (explained = c));
  const refs = new Set([...text.matchAll(/(?<!\\)\[(\d+)\]/g)].map((m) => Number(m[1])));
  const cites = request.passages.filter((p) => refs.has(p.ref)).map((p) => p.url ?? '');
  const verdict: Verdict = {
    group: k.group,
    question: request.question,
    gold: k.q.gold.some((g) => containsGold(text, g, k.lang)),
    cited: cites.some(isGold),
    failed: proseFailures(text, k.headings),
    text,
    cites,
    goldAt: request.passages.findIndex((p) => isGold(p.url)) + 1,
  };
  verdicts.push(verdict);
  if (only?.test(request.question)) {
    console.log(`\n### [${k.group}] ${request.question}  gold: ${k.q.gold.join(' | ')}  [${verdict.gold ? 'gold' : 'NO GOLD'}, ${verdict.cited ? 'cited' : 'NOT CITED'}${verdict.failed.length ? `, ${verdict.failed.join(', ')}` : ''}]`);
    console.log(`expected: ${k.urls.map(([gold]) => gold).join(', ')}`);
    for (const p of request.passages) console.log(`  [${p.ref}]${isGold(p.url) ? '*' : ' '} ${p.url}  (${(p.source ?? p.text).length} chars)`);
    console.log(text);
    console.log('best candidates: score = coverage, heading coverage, cosine (×2) …');
    for (const c of explained.slice(0, Number(values.candidates))) {
      console.log(`  ${c.score.toFixed(2)} cov ${c.coverage.toFixed(2)} head ${c.headingCoverage.toFixed(2)} cos ${c.semantic.toFixed(2)} [${c.ref}] ${c.kind}${c.instructs ? ' instructs' : ''}${c.defines ? ' defines' : ''}${c.brings ? ' brings' : ''}: ${c.text.slice(0, 110).replace(/\n/g, ' ')}`);
    }
  }
}

const pct = (n: number, d: number) => `${((100 * n) / Math.max(1, d)).toFixed(1)} %`.padStart(7);
const groups = [...new Set(verdicts.map((v) => v.group))];
console.log(`\n${'set'.padEnd(14)} questions   gold     cited    prose`);
const row = (name: string, list: Verdict[]) =>
  console.log(`${name.padEnd(14)} ${String(list.length).padStart(9)} ${pct(list.filter((v) => v.gold).length, list.length)}  ${pct(list.filter((v) => v.cited).length, list.length)}  ${pct(list.filter((v) => v.failed.length === 0).length, list.length)}`);
for (const g of groups) row(g, verdicts.filter((v) => v.group === g));
row('express, all', verdicts.filter((v) => v.group.startsWith('express')));
row('third-party', verdicts.filter((v) => v.group !== 'docs'));

// Where the misses come from: the gold section not among the passages, among them but not
// cited (the writer chose another passage), or cited without the gold string (another part of it).
console.log(`\nmisses (third-party sets): gold passage given at rank 1 / 2–6 / not given; of those given: another passage cited, or the gold one cited without the gold string`);
const third = verdicts.filter((v) => v.group !== 'docs');
const given = third.filter((v) => v.goldAt > 0);
console.log(`  given at 1: ${third.filter((v) => v.goldAt === 1).length}, at 2–6: ${third.filter((v) => v.goldAt > 1).length}, not given: ${third.filter((v) => v.goldAt === 0).length}`);
console.log(`  given, not cited: ${given.filter((v) => !v.cited).length} (${given.filter((v) => !v.cited && v.goldAt === 1).length} of them at rank 1); cited without the gold string: ${given.filter((v) => v.cited && !v.gold).length}; not given yet gold: ${third.filter((v) => v.goldAt === 0 && v.gold).length}`);

const worst = verdicts.filter((v) => !v.gold || !v.cited || v.failed.length > 0).slice(0, Number(values.worst));
for (const v of worst) console.log(`\n### [${v.group}] ${v.question}  [${[...v.failed, v.gold ? '' : 'gold missing', v.cited ? '' : 'not cited'].filter(Boolean).join(', ')}]\n${v.text}\ncited: ${v.cites.join(', ')}`);

// What changed since the previous replay.
const saved = `${values.capture}.verdicts.json`;
if (existsSync(saved)) {
  const before = new Map((JSON.parse(readFileSync(saved, 'utf8')) as Verdict[]).map((v) => [v.question, v]));
  const mark = (v: Verdict | undefined) => (v ? `${v.gold ? 'G' : '-'}${v.cited ? 'C' : '-'}${v.failed.length === 0 ? 'P' : '-'}` : '???');
  const changed = verdicts.filter((v) => mark(v) !== mark(before.get(v.question)));
  if (changed.length > 0) console.log(`\nchanged since the previous run (gold, cited, prose):`);
  for (const v of changed) console.log(`  ${mark(before.get(v.question))} → ${mark(v)}  [${v.group}] ${v.question}`);
}
writeFileSync(saved, JSON.stringify(verdicts));

