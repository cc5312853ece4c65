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
export type Request = { id: number; texts: string[] };
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
  const extractor = await pipeline('feature-extraction', options.model, { dtype: options.dtype as 'q4' });
  const probe = await extractor('probe', { pooling: 'mean', normalize: true });
  port.on('message', async ({ id, texts }: Request) => {
    try {
      const output = await extractor(texts, { pooling: 'mean', normalize: true });
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
