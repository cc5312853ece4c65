/**
 * Vectors that cost nothing: an OpenAI-compatible embeddings server in the bench's process that
 * hashes each text's words into 384 signed dimensions (~0.1 ms a text), so a bench measures
 * Lore's own path and the embedding server's round trip, not a model. Lore (in the bench's
 * process, or `lore serve` started by it) is pointed at it through the environment.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';

/** A bag of words as a vector: each lowercased word adds ±1 to a dimension chosen by its hash. */
export function hashVector(text: string): number[] {
  const v = new Array<number>(384).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const h = createHash('md5').update(word).digest();
    v[h.readUInt16LE(0) % 384]! += h[2]! & 1 ? 1 : -1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

/** Starts the server and points LORE_EMBEDDINGS (this process's environment, which children inherit) at it. */
export async function serveHashEmbeddings(): Promise<void> {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (part: Buffer) => (body += part));
    request.on('end', () => {
      const { input } = JSON.parse(body) as { input: string[] };
      const data = input.map((text, index) => ({ object: 'embedding', index, embedding: hashVector(text) }));
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ object: 'list', data, model: 'hash-384', usage: { prompt_tokens: 0, total_tokens: 0 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  Object.assign(process.env, {
    LORE_EMBEDDINGS: 'openai',
    OPENAI_BASE_URL: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`,
    OPENAI_API_KEY: 'bench',
    LORE_EMBEDDINGS_MODEL: 'hash-384',
    LORE_EMBEDDINGS_DIMENSIONS: '384',
  });
}
