/**
 * The worker thread of the local embedder (local.ts): loads the model once, then embeds each
 * batch it is sent. onnxruntime-node runs a model synchronously on the calling thread, so
 * here it blocks this thread, not the server's event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';

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

const port = parentPort!;
const options = workerData as WorkerOptions;
const send = (reply: Reply, transfer: ArrayBuffer[] = []) => port.postMessage(reply, transfer);

try {
  const { pipeline, env } = await import('@huggingface/transformers');
  env.allowRemoteModels = false;
  env.localModelPath = options.modelPath;
  // Two sessions of the model in this one thread (onnxruntime-node cannot run in two): a
  // search's query on one intra-op thread, leaving the other core to the search's SQL that
  // runs meanwhile (measured: 4.9 instead of 6.5 ms of CPU a query, 4.5 instead of 3.1 ms
  // alone), and batches of chunks on onnxruntime's default threads, one per core.
  const load = (threads?: number) =>
    pipeline('feature-extraction', options.model, {
      dtype: options.dtype as 'q4',
      ...(threads ? { session_options: { intraOpNumThreads: threads, interOpNumThreads: 1 } } : {}),
    });
  const extractors = { query: await load(1), bulk: await load() };
  const probe = await extractors.bulk('probe', { pooling: 'mean', normalize: true });
  port.on('message', async ({ id, texts, kind }: Request) => {
    try {
      const output = await extractors[kind](texts, { pooling: 'mean', normalize: true });
      const data = Float32Array.from(output.data as Float32Array);
      send({ type: 'done', id, data }, [data.buffer]);
    } catch (error) {
      send({ type: 'error', id, message: error instanceof Error ? error.message : String(error) });
    }
  });
  send({ type: 'ready', dimensions: probe.dims.at(-1) ?? 0 });
} catch (error) {
  send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
}
