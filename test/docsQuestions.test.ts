// The docs question set of bench:answers (bench/data/docs-qa.jsonl) stays true to the docs:
// every source is a section the demo ingests, and every question's gold string is in one of
// its sources. A docs edit that breaks a question fails here, not silently in the bench.
// The sets over third-party docs (bench/data/vite-qa.jsonl, express-qa.jsonl) are checked the
// same way against the docs under ../shared/data/docs, as their authors wrote them, when there.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loreDocEntries } from '../src/loreDocs.js';
import { jsonl } from '../bench/jsonl.js';
import { authoredSections, docsAvailable, docsFolders, EXPRESS_LANGS, questionProblems, type DocsQuestion } from '../bench/thirdPartyDocs.js';

const FILE = fileURLToPath(new URL('../bench/data/docs-qa.jsonl', import.meta.url));
const KINDS = new Set(['table', 'code', 'list', 'prose']);
const TYPES = new Set(['definition', 'howto', 'yesno', 'value', 'comparison', 'explanation', 'why']);

describe('docs question set (bench/data/docs-qa.jsonl)', () => {
  it('has valid questions whose gold strings are in their sources', async () => {
    const sections = new Map((await loreDocEntries('http://x')).map((e) => [e.source_id, (e.raw_text ?? '').toLowerCase()]));
    const lines = readFileSync(FILE, 'utf8').trim().split('\n');
    assert.ok(lines.length >= 60, `${lines.length} questions`);
    const seen = new Set<string>();
    for (const [i, line] of lines.entries()) {
      const q = JSON.parse(line) as { question: unknown; gold: unknown; sources: unknown; kind: unknown; type: unknown };
      const where = `line ${i + 1}: ${String(q.question)}`;
      assert.ok(typeof q.question === 'string' && q.question.trim() !== '', where);
      assert.ok(!seen.has(q.question), `${where}: repeated`);
      seen.add(q.question);
      assert.ok(Array.isArray(q.gold) && q.gold.length > 0 && q.gold.every((g) => typeof g === 'string' && g.trim() !== ''), `${where}: gold`);
      assert.ok(Array.isArray(q.sources) && q.sources.length > 0, `${where}: sources`);
      for (const source of q.sources as string[]) assert.ok(sections.has(source), `${where}: unknown source ${source}`);
      assert.ok(KINDS.has(q.kind as string) && TYPES.has(q.type as string), `${where}: kind/type`);
      const texts = (q.sources as string[]).map((s) => sections.get(s)!);
      assert.ok((q.gold as string[]).some((g) => texts.some((t) => t.includes(g.toLowerCase()))), `${where}: no gold string in its sources`);
    }
  });
});

/** The shared evaluation data, beside the project (not part of it). */
const SHARED_DOCS = fileURLToPath(new URL('../../shared/data/docs', import.meta.url));
const skip = docsAvailable(SHARED_DOCS) ? false : `no third-party docs at ${SHARED_DOCS}`;

describe('third-party docs question sets (bench/data/vite-qa.jsonl, express-qa.jsonl)', () => {
  for (const [set, minimum] of [['vite', { en: 60 }], ['express', { en: 60, de: 20, es: 20, ja: 20, 'zh-cn': 20 }]] as const) {
    it(`${set}: enough questions per language, each with a known source holding a gold string`, { skip }, async () => {
      const questions = jsonl<DocsQuestion>(fileURLToPath(new URL(`../bench/data/${set}-qa.jsonl`, import.meta.url)));
      const langs = new Set<string>(set === 'express' ? EXPRESS_LANGS : ['en']);
      for (const q of questions) assert.ok(langs.has(q.lang ?? 'en'), `${q.question}: lang ${q.lang}`);
      for (const folder of docsFolders(set, SHARED_DOCS)) {
        const mine = questions.filter((q) => (q.lang ?? 'en') === folder.lang);
        assert.ok(mine.length >= (minimum as Record<string, number>)[folder.lang]!, `${folder.name}: ${mine.length} questions`);
        assert.deepEqual(questionProblems(mine, await authoredSections(folder.dir), folder.lang), [], folder.name);
      }
    });
  }
});
