/** Relevance judgements of the benchmarks' data sets, and the ranking metric read from them. */
import { readFileSync } from 'node:fs';
import { jsonl } from './jsonl.js';

/** Relevance judgements of a BEIR-style qrels file (tab-separated `query-id corpus-id score`, a header row): query → document → grade. */
export function qrels(file: string): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const line of readFileSync(file, 'utf8').trim().split('\n').slice(1)) {
    const [q, d, s] = line.split('\t');
    if (!out.has(q!)) out.set(q!, new Map());
    out.get(q!)!.set(d!, Number(s));
  }
  return out;
}

/** A query and what is relevant to it, by key (a document's id, or a heading's file), with its grade. */
export interface Judged { id: string; text: string; relevant: Map<string, number> }

/** The queries of a BEIR-style `queries.jsonl` that `qrelsFile` judges, in file order. */
export function judgedQueries(queriesFile: string, qrelsFile: string): Judged[] {
  const rel = qrels(qrelsFile);
  return jsonl<{ _id: string; text: string }>(queriesFile)
    .filter((q) => rel.has(q._id))
    .map((q) => ({ id: q._id, text: q.text, relevant: rel.get(q._id)! }));
}

/** nDCG@10 of keys in rank order; a key repeated (a second section of the gold file) gains nothing again. */
export function ndcg10(ranked: readonly string[], relevant: Map<string, number>): number {
  const seen = new Set<string>();
  const dcg = ranked.slice(0, 10).reduce((sum, k, i) => {
    const gain = seen.has(k) ? 0 : (relevant.get(k) ?? 0);
    seen.add(k);
    return sum + gain / Math.log2(i + 2);
  }, 0);
  const ideal = [...relevant.values()].sort((a, b) => b - a).slice(0, 10).reduce((sum, g, i) => sum + g / Math.log2(i + 2), 0);
  return ideal > 0 ? dcg / ideal : 0;
}
