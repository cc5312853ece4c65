/**
 * The worker thread of the local embedder (local.ts): loads the model once, then embeds each
 * batch it is sent. onnxruntime-node runs a model synchronously on the calling thread, so
 * here it blocks this thread, not the server's event loop.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import os from 'node:os';
import { int8FromQ4 } from './int8Model.js';
import { meanPool } from './pooling.js';

export interface WorkerOptions {
  model: string;
  modelPath: string;
  dtype: string;
}
/** `query`: one short text, on one thread; `bulk`: chunks, on onnxruntime's default threads. */
export type Request = { id: number; texts: string[]; kind: 'query' | 'bulk' };
export type Reply =
  | { type: 'ready'; dimensions: number }
  | { type: 'failed'; message: string }
  | { type: 'done'; id: number; data: Float32Array }
  | { type: 'error'; id: number; message: string };

/**
 * The niceness of this thread (and of the onnxruntime threads it starts): the model yields the
 * cores to the server's event loop and to the database whenever they have work, and runs in
 * what they leave (a query is embedded beside its lexical pass, which waits on the database).
 * Linux only: there a thread's priority is its own (setpriority of "0" is the calling thread);
 * elsewhere it would be the whole process's.
 * Measured with `npm run bench:search -- --backends postgres --baseline off --seconds 15
 * --single 200 --reuse` (100k chunks, the bundled model, three runs alternated): 1 client
 * p95 16.3, 16.7, 18.0 → 15.9, 15.4, 15.9 ms, 8 clients 186.5, 178.8, 174.4 → 192.7, 181.0,
 * 178.3 searches/s; `npm run bench:ingest -- --docs 1000` 65.3, 68.0 → 65.7, 70.6 chunks/s.
 */
const NICE = 19;
if (process.platform === 'linux') {
  try {
    os.setPriority(0, NICE);
  } catch {
    // Not permitted here: the thread runs at the process's priority.
  }
}

const port = parentPort!;
const options = workerData as WorkerOptions;
const send = (reply: Reply, transfer: ArrayBuffer[] = []) => port.postMessage(reply, transfer);

/** Texts in, their mean-pooled and normalised embeddings out, one after another. */
type Extract = (texts: string[]) => Promise<{ data: Float32Array<ArrayBuffer>; dimensions: number }>;

try {
  const { pipeline, env, AutoTokenizer, Tensor } = await import('@huggingface/transformers');
  env.allowRemoteModels = false;
  env.localModelPath = options.modelPath;

  // `int8` of a model that ships only 4-bit weights (the bundled one): made from them here
  // (int8Model.ts). Any other dtype is the file transformers.js names for it.
  const folder = path.join(options.modelPath, options.model, 'onnx');
  let derived =
    options.dtype === 'int8' && !existsSync(path.join(folder, 'model_int8.onnx')) && existsSync(path.join(folder, 'model_q4.onnx'))
      ? int8FromQ4(path.join(folder, 'model_q4.onnx'))
      : undefined;

  const fromPipeline = async (threads?: number): Promise<Extract> => {
    const extractor = await pipeline('feature-extraction', options.model, {
      dtype: options.dtype as 'q4',
      ...(threads ? { session_options: { intraOpNumThreads: threads, interOpNumThreads: 1 } } : {}),
    });
    return async (texts) => {
      const output = await extractor(texts, { pooling: 'mean', normalize: true });
      return { data: Float32Array.from(output.data as Float32Array), dimensions: output.dims.at(-1) ?? 0 };
    };
  };
  // The same steps as transformers.js's feature-extraction pipeline (its tokenizer, padding
  // and truncation; its mean pooling over the attention mask, here in pooling.ts with the same
  // arithmetic but faster; its L2 norm), on a session made from bytes.
  let tokenizer: ReturnType<typeof AutoTokenizer.from_pretrained> | undefined; // one for both sessions
  const fromBytes = async (bytes: Uint8Array, threads?: number): Promise<Extract> => {
    const ort = await import('onnxruntime-node');
    tokenizer ??= AutoTokenizer.from_pretrained(options.model);
    const tokenize = await tokenizer;
    const session = await ort.InferenceSession.create(bytes, threads ? { intraOpNumThreads: threads, interOpNumThreads: 1 } : {});
    return async (texts) => {
      const encoded = tokenize(texts, { padding: true, truncation: true }) as Record<string, InstanceType<typeof Tensor>>;
      const ids = encoded.input_ids!;
      const feeds: Record<string, InstanceType<typeof ort.Tensor>> = {};
      for (const name of session.inputNames) {
        const input = encoded[name] ?? (name === 'token_type_ids' ? { data: new BigInt64Array(ids.data.length), dims: ids.dims } : undefined);
        if (!input) throw new Error(`the model needs an input "${name}" the tokenizer does not give`);
        feeds[name] = new ort.Tensor('int64', input.data as BigInt64Array, input.dims);
      }
      const outputs = await session.run(feeds);
      const hidden = outputs.last_hidden_state ?? outputs[session.outputNames[0]!]!;
      const dims = hidden.dims as number[];
      const mean = meanPool(hidden.data as Float32Array, dims, encoded.attention_mask!.data as BigInt64Array);
      const pooled = new Tensor('float32', mean, [dims[0]!, dims[2]!]).normalize(2, -1);
      return { data: Float32Array.from(pooled.data as Float32Array), dimensions: pooled.dims.at(-1) ?? 0 };
    };
  };
  const load = (threads?: number) => (derived ? fromBytes(derived, threads) : fromPipeline(threads));

  // Two sessions of the model in this one thread (onnxruntime-node cannot run in two): a
  // search's query on one intra-op thread, leaving the other core to the search's SQL that
  // runs meanwhile (measured: 4.9 instead of 6.5 ms of CPU a query, 4.5 instead of 3.1 ms
  // alone), and batches of chunks on onnxruntime's default threads, one per core.
  const extractors = { query: await load(1), bulk: await load() };
  derived = undefined; // the sessions hold their own copies of the weights
  const probe = await extractors.bulk(['probe']);
  port.on('message', async ({ id, texts, kind }: Request) => {
    try {
      const { data } = await extractors[kind](texts);
      send({ type: 'done', id, data }, [data.buffer]);
    } catch (error) {
      send({ type: 'error', id, message: error instanceof Error ? error.message : String(error) });
    }
  });
  send({ type: 'ready', dimensions: probe.dimensions });
} catch (error) {
  send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
}
