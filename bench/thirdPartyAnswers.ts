/**
 * The `vite` and `express` sets of `npm run bench:answers`: answers on docs that are not ours
 * (issue 32). Each docs folder under ../shared/data/docs is imported the way a user imports
 * docs, `lore import DIR --sections` (importFolder over the HTTP API, published at the project's
 * own site so cited URLs are the real pages), into a collection of its own with a chatbot over
 * it (Express: one per language); every question of its set is asked through chat and through
 * summarise (not streamed) and judged as the docs set judges: gold string in the answer, gold
 * section cited, reads as prose (./proseRules.ts). Reported per folder (per language for
 * Express), with the questions whose gold string the import itself lost (in the authored
 * section, not in the imported text: what an answer cannot quote), the prose rules broken, and
 * the worst chat answers in full.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { askByChatAndSummarise } from './askQuestions.js';
import { importFolder } from '../src/cli/folderImport.js';
import { listFolder } from '../src/importers/folder.js';
import type { startLore } from './harness.js';
import { jsonl } from './jsonl.js';
import { headingsOf, proseFailures, RULES, type Rule } from './proseRules.js';
import { containsGold, docsFolders, folderEntries, isSourceOf, type DocsFolder, type DocsQuestion } from './thirdPartyDocs.js';

type Lore = Awaited<ReturnType<typeof startLore>>;
type Route = 'chat' | 'summarise';
interface Answer { q: DocsQuestion; text: string; urls: string[]; gold: boolean; cited: boolean; failed: Rule[]; retrieved?: number; lost: boolean }
interface FolderResult { folder: DocsFolder; sections: number; byRoute: Record<Route, Answer[]> }

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const share = (list: readonly Answer[], test: (a: Answer) => boolean) => list.filter(test).length / Math.max(1, list.length);

/** Runs one set (`vite` or `express`) against the running `lore` and prints its report. */
export async function thirdPartySet(lore: Lore, set: 'vite' | 'express', options: { questions: string; root: string; worst: number; max: number }): Promise<void> {
  const questions = jsonl<DocsQuestion>(options.questions);
  const results: FolderResult[] = [];
  for (const folder of docsFolders(set, options.root)) {
    const mine = questions.filter((q) => (q.lang ?? 'en') === folder.lang).slice(0, options.max);
    if (mine.length > 0) results.push(await askFolder(lore, folder, mine));
    console.error(`${folder.name} done`);
  }
  report(set, options.questions, results, options.worst);
}

/** Imports `folder` as a user would, then asks every question by chat and by summarise. */
async function askFolder(lore: Lore, folder: DocsFolder, questions: readonly DocsQuestion[]): Promise<FolderResult> {
  const { call, container } = lore;
  const collection = (await call('POST', '/api/v1/collections', { name: folder.name })).data.id as string;
  const imported = await importFolder({ dir: folder.dir, collection, server: lore.url, token: lore.token, baseUrl: folder.baseUrl, prune: false, ignore: [], sections: true, progress: false });
  if (imported.failed.length > 0) throw new Error(`${folder.name}: import failed for ${imported.failed.map((f) => f.path).join(', ')}`);
  const integration = (await call('POST', '/api/v1/integrations', { type: 'chatbot', name: folder.name, collection_ids: [collection] })).data.id as string;

  const headings = new Set<string>();
  for (const file of (await listFolder(folder.dir)).files) for (const h of headingsOf(await readFile(file.absolute, 'utf8'))) headings.add(h);
  const entries = await folderEntries(folder.dir, folder.baseUrl);
  const texts = new Map(entries.map((e) => [e.source_id, e.raw_text]));
  const anchors = new Map(entries.map((e) => [e.source_id, e.meta?.anchors]));
  const judge = (q: DocsQuestion, text: string, urls: string[]): Answer => ({
    q,
    text,
    urls,
    gold: q.gold.some((g) => containsGold(text, g, folder.lang)),
    cited: urls.some((u) => isSourceOf(q, folder.baseUrl, u, anchors)),
    failed: proseFailures(text, headings),
    lost: !q.gold.some((g) => q.sources.some((s) => containsGold(texts.get(s) ?? '', g, folder.lang))),
  });

  const byRoute = await askByChatAndSummarise(lore, integration, questions, judge);
  return { folder, sections: imported.entries, byRoute };
}

function report(set: string, file: string, results: readonly FolderResult[], worstCount: number): void {
  const total = results.reduce((n, r) => n + r.byRoute.chat.length, 0);
  console.log(`\nanswers on ${set === 'vite' ? "Vite's" : "Express's"} docs (${total} questions of ${path.relative(process.cwd(), file)}; imported with lore import --sections)`);
  console.log(`${'docs'.padEnd(15)} ${'route'.padEnd(10)} ${'questions'.padStart(9)} ${'sections'.padStart(8)}  ${'gold in answer'.padEnd(15)} ${'gold source cited'.padEnd(18)} ${'reads as prose'.padEnd(15)} ${'gold retrieved'.padEnd(15)} ${'gold lost on import'.padEnd(20)} mean chars`);
  const all: Record<Route, Answer[]> = { chat: [], summarise: [] };
  for (const { folder, sections, byRoute } of results) {
    for (const route of ['chat', 'summarise'] as const) {
      const list = byRoute[route];
      all[route].push(...list);
      const retrieved = route === 'chat' ? pct(share(list, (a) => a.retrieved !== undefined)) : '';
      console.log(
        `${folder.name.padEnd(15)} ${route.padEnd(10)} ${String(list.length).padStart(9)} ${String(sections).padStart(8)}  ${pct(share(list, (a) => a.gold)).padEnd(15)} ${pct(share(list, (a) => a.cited)).padEnd(18)} ` +
          `${pct(share(list, (a) => a.failed.length === 0)).padEnd(15)} ${retrieved.padEnd(15)} ${String(list.filter((a) => a.lost).length).padEnd(20)} ${(list.reduce((n, a) => n + a.text.length, 0) / Math.max(1, list.length)).toFixed(0).padStart(10)}`,
      );
    }
  }
  if (results.length > 1) {
    for (const route of ['chat', 'summarise'] as const) {
      const list = all[route];
      console.log(`${'all'.padEnd(15)} ${route.padEnd(10)} ${String(list.length).padStart(9)} ${''.padStart(8)}  ${pct(share(list, (a) => a.gold)).padEnd(15)} ${pct(share(list, (a) => a.cited)).padEnd(18)} ${pct(share(list, (a) => a.failed.length === 0)).padEnd(15)}`);
    }
  }
  console.log(`\nprose rules broken (chat / summarise): ${RULES.map((r) => `${r} ${all.chat.filter((a) => a.failed.includes(r)).length}/${all.summarise.filter((a) => a.failed.includes(r)).length}`).join(', ')}`);
  for (const kind of ['table', 'code', 'list', 'prose']) {
    const list = all.chat.filter((a) => a.q.kind === kind);
    if (list.length > 0) console.log(`chat, answers in ${kind.padEnd(5)} (${String(list.length).padStart(3)}): gold ${pct(share(list, (a) => a.gold))}, cited ${pct(share(list, (a) => a.cited))}, prose ${pct(share(list, (a) => a.failed.length === 0))}`);
  }
  const badness = (a: Answer) => a.failed.length * 4 + (a.gold ? 0 : 2) + (a.cited ? 0 : 1);
  const worst = [...all.chat].sort((a, b) => badness(b) - badness(a)).slice(0, worstCount).filter((a) => badness(a) > 0);
  console.log(`\nthe ${worst.length} worst chat answers (${set})`);
  for (const a of worst) {
    const problems = [...a.failed, ...(a.gold ? [] : ['gold missing']), ...(a.cited ? [] : ['source not cited']), ...(a.lost ? ['gold lost on import'] : [])];
    console.log(`\n### [${a.q.lang ?? 'en'}] ${a.q.question}  [${problems.join(', ')}]  gold: ${a.q.gold.join(' | ')}; sources: ${a.q.sources.join(', ')}; retrieved at ${a.retrieved ?? '-'}\n${a.text}\ncited: ${a.urls.join(', ') || 'nothing'}`);
  }
}
