import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Embedder } from '../src/domain/ingestion/port.js';

/**
 * An embedder that remembers vectors by text, on disk between runs, so a benchmark that
 * needs a large embedded corpus computes it with the real model once. Vectors are the
 * model's own; only repeated work is saved. Not for the query path of a latency run.
 */
export function cachingEmbedder(inner: Embedder, file: string): Embedder & { save(): void; readonly misses: number; enabled: boolean } {
  const key = (text: string) => createHash('sha1').update(inner.model).update('\0').update(text).digest('hex');
  const cache = new Map<string, Float32Array>();
  if (existsSync(`${file}.keys`) && existsSync(`${file}.bin`)) {
    const keys = readFileSync(`${file}.keys`, 'utf8').split('\n').filter(Boolean);
    const buffer = readFileSync(`${file}.bin`);
    const all = new Float32Array(buffer.buffer, buffer.byteOffset, buffer.byteLength / 4);
    if (all.length === keys.length * inner.dimensions) {
      keys.forEach((k, i) => cache.set(k, all.slice(i * inner.dimensions, (i + 1) * inner.dimensions)));
    }
  }
  let misses = 0;
  let dirty = false;
  return {
    /** When false, every call goes to the model (a latency run must not hit the cache). */
    enabled: true,
    model: inner.model,
    dimensions: inner.dimensions,
    get misses() {
      return misses;
    },
    async embed(texts, signal) {
      if (!this.enabled) return inner.embed(texts, signal);
      const keys = texts.map(key);
      const todo = [...new Set(keys.map((k, i) => (cache.has(k) ? -1 : i)).filter((i) => i >= 0))];
      if (todo.length > 0) {
        misses += todo.length;
        dirty = true;
        const vectors = await inner.embed(todo.map((i) => texts[i]!), signal);
        todo.forEach((textIndex, j) => cache.set(keys[textIndex]!, vectors[j]!));
      }
      return keys.map((k) => cache.get(k)!);
    },
    save() {
      if (!dirty) return;
      mkdirSync(path.dirname(file), { recursive: true });
      const keys = [...cache.keys()];
      const all = new Float32Array(keys.length * inner.dimensions);
      keys.forEach((k, i) => all.set(cache.get(k)!, i * inner.dimensions));
      writeFileSync(`${file}.bin`, Buffer.from(all.buffer));
      writeFileSync(`${file}.keys`, keys.join('\n'));
      dirty = false;
    },
  };
}
