import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { EmbedderError } from '../../domain/ingestion/port.js';
import { createOpenAIEmbedder } from './openai.js';

interface Seen {
  authorization: string | undefined;
  body: { model: string; input: string[] };
}

/** An OpenAI-compatible `/v1/embeddings` whose answer `reply` decides from the request. */
function embeddingsServer(reply: (seen: Seen, res: ServerResponse) => void) {
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const request = { authorization: req.headers.authorization, body: JSON.parse(Buffer.concat(parts).toString()) };
      seen.push(request);
      if (req.url !== '/v1/embeddings' || req.method !== 'POST') {
        res.writeHead(404).end();
        return;
      }
      reply(request, res);
    });
  });
  return {
    seen,
    async start() {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** A vector per input, [length, 0, 0] unnormalised, listed in reverse order (servers need not keep it). */
const byLength = ({ body }: Seen, res: ServerResponse) =>
  json(res, 200, { data: body.input.map((text, index) => ({ index, embedding: [text.length, 0, 0] })).reverse() });

describe('OpenAI-compatible embedder', () => {
  const server = embeddingsServer((seen, res) => {
    const first = seen.body.input[0] ?? '';
    if (first === 'busy') return json(res, 429, { error: { message: 'Rate limit reached' } });
    if (first === 'short') return json(res, 200, { data: [] });
    if (first === 'wide') return json(res, 200, { data: [{ index: 0, embedding: [1, 2, 3, 4] }] });
    if (first === 'garbled') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"data": [');
    if (first === 'slow') return setTimeout(() => byLength(seen, res), 2_000);
    byLength(seen, res);
  });
  let url: string;
  before(async () => (url = await server.start()));
  after(() => server.stop());

  it('sends the model and texts with the key, and gives normalised vectors in input order, batch by batch', async () => {
    const embedder = createOpenAIEmbedder({ baseUrl: url, apiKey: 'sk-test', model: 'text-embedding-3-small', dimensions: 3, batchSize: 2 });
    const from = server.seen.length;
    const vectors = await embedder.embed(['a', 'bb', 'ccc']);
    assert.deepEqual(vectors.map((v) => Array.from(v)), [[1, 0, 0], [1, 0, 0], [1, 0, 0]]);
    const requests = server.seen.slice(from);
    assert.deepEqual(requests.map((r) => r.body.input), [['a', 'bb'], ['ccc']]);
    assert.ok(requests.every((r) => r.authorization === 'Bearer sk-test' && r.body.model === 'text-embedding-3-small'));
    assert.equal(embedder.model, 'text-embedding-3-small');
    assert.equal(embedder.dimensions, 3);
  });

  it('sends no authorization without a key', async () => {
    const from = server.seen.length;
    await createOpenAIEmbedder({ baseUrl: url, apiKey: undefined, model: 'm', dimensions: 3 }).embed(['x']);
    assert.equal(server.seen[from]?.authorization, undefined);
  });

  it('fails with EmbedderError on an HTTP error, too few vectors, the wrong dimension or a body that is not JSON', async () => {
    const embedder = createOpenAIEmbedder({ baseUrl: url, apiKey: undefined, model: 'm', dimensions: 3 });
    for (const input of ['busy', 'short', 'wide', 'garbled']) {
      await assert.rejects(embedder.embed([input]), (error: unknown) => error instanceof EmbedderError, input);
    }
    // The connection is still good for the next request.
    assert.equal((await embedder.embed(['ok'])).length, 1);
  });

  it('gives up after its timeout, and when the caller aborts', async () => {
    const timed = createOpenAIEmbedder({ baseUrl: url, apiKey: undefined, model: 'm', dimensions: 3, timeoutMs: 100 });
    await assert.rejects(timed.embed(['slow']), EmbedderError);
    const embedder = createOpenAIEmbedder({ baseUrl: url, apiKey: undefined, model: 'm', dimensions: 3 });
    await assert.rejects(embedder.embed(['slow'], AbortSignal.timeout(100)), EmbedderError);
  });

  it('fails with EmbedderError when nothing listens', async () => {
    const embedder = createOpenAIEmbedder({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: undefined, model: 'm', dimensions: 3 });
    await assert.rejects(embedder.embed(['x']), EmbedderError);
  });
});
