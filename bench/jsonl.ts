import { readFileSync } from 'node:fs';

/** The records of a JSON-lines file (the benchmarks' data sets). */
export function jsonl<T>(file: string): T[] {
  return readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as T);
}

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
