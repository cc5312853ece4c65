import { readFileSync } from 'node:fs';

/** The records of a JSON-lines file (the benchmarks' data sets). */
export function jsonl<T>(file: string): T[] {
  return readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as T);
}
