import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ProviderError, type AnswerChunk, type AnswerMessage, type AnswerRequest } from '../../domain/answers/port.js';
import { collect, deltas, within } from './fixtures/replay.js';
import { tinyLlamaGguf } from './fixtures/tinyGguf.js';
import { createLlamaProvider, type LlamaProvider, type LlamaProviderOptions } from './llama.js';

// A real model run through node-llama-cpp's prebuilt binary: a tiny GGUF built here (no
// model can be downloaded), which writes plain characters until maxTokens stops it.

const unavailable = await binaryUnavailable();

/** Why node-llama-cpp's prebuilt binary cannot run on this machine, or false when it can. */
async function binaryUnavailable(): Promise<string | false> {
  // A variable specifier, as in llama.ts: the optional package need not be installed to type-check.
  const specifier = 'node-llama-cpp';
  try {
    const { getLlama } = (await import(specifier)) as { getLlama(options: object): Promise<{ dispose(): Promise<void> }> };
    const llama = await getLlama({ gpu: false, build: 'never', skipDownload: true, progressLogs: false });
    await llama.dispose();
    return false;
  } catch (error) {
    return `node-llama-cpp with its prebuilt binary cannot run on this machine: ${String(error)}`;
  }
}

const system: AnswerMessage = { role: 'system', content: 'Answer from the numbered passages.\n[1] Lore is a knowledge search service.' };
const question: AnswerMessage = { role: 'user', content: 'What is Lore?' };

function request(options: Partial<AnswerRequest> = {}): AnswerRequest {
  return { messages: [system, question], question: question.content, passages: [], temperature: 0, ...options };
}

function open(): AbortSignal {
  return new AbortController().signal;
}

function end(chunks: AnswerChunk[]): Extract<AnswerChunk, { type: 'end' }> {
  const last = chunks.at(-1);
  assert.equal(last?.type, 'end');
  assert.equal(chunks.filter((chunk) => chunk.type === 'end').length, 1);
  return last;
}

describe('llama.cpp answer provider', { skip: unavailable }, () => {
  let dir: string;
  let modelPath: string;
  let provider: LlamaProvider;
  const providers: LlamaProvider[] = [];
  // One thread: the tiny model gains nothing from more, and on a busy machine llama.cpp's
  // spinning threads wait for each other.
  const create = (options: Partial<LlamaProviderOptions> = {}) => {
    const created = createLlamaProvider({ modelPath, threads: 1, ...options });
    providers.push(created);
    return created;
  };

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'lore-llama-'));
    modelPath = path.join(dir, 'tiny-llama.gguf');
    writeFileSync(modelPath, tinyLlamaGguf());
    provider = create();
    await provider.ready();
  });

  after(async () => {
    await Promise.all(providers.map((created) => created.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('streams several text deltas, then one end with integer usage', async () => {
    assert.equal(provider.provider, 'llama.cpp');
    assert.equal(provider.model, 'tiny-llama.gguf');
    const { chunks, error } = await collect(provider.stream(request({ maxTokens: 12 }), open()));
    assert.equal(error, undefined);
    const text = deltas(chunks);
    assert.ok(text.length >= 3, `${text.length} deltas`);
    assert.ok(text.every((delta) => typeof delta === 'string' && delta !== ''));
    const { reason, usage } = end(chunks);
    assert.equal(reason, 'length');
    assert.equal(usage.completionTokens, 12);
    assert.ok(Number.isInteger(usage.promptTokens) && usage.promptTokens > question.content.length, `${usage.promptTokens} prompt tokens`);
  });

  it('lays the conversation into the prompt and counts all of it, reused prefix included', async () => {
    const plain = end((await collect(provider.stream(request({ maxTokens: 2 }), open()))).chunks).usage;
    // The same prompt again reuses the sequence's evaluated tokens but is just as long.
    const again = end((await collect(provider.stream(request({ maxTokens: 2 }), open()))).chunks).usage;
    assert.equal(again.promptTokens, plain.promptTokens);
    const turns: AnswerMessage[] = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello there' },
    ];
    const longer = end((await collect(provider.stream(request({ messages: [system, ...turns, question], maxTokens: 2 }), open()))).chunks).usage;
    assert.ok(longer.promptTokens >= plain.promptTokens + 'Hi'.length + 'Hello there'.length, `${longer.promptTokens} vs ${plain.promptTokens}`);
  });

  it('caps the answer at maxTokens, and repeats it exactly at temperature 0', async () => {
    for (const maxTokens of [1, 5]) {
      const { chunks, error } = await collect(provider.stream(request({ maxTokens }), open()));
      assert.equal(error, undefined);
      assert.ok(deltas(chunks).length <= maxTokens);
      const { reason, usage } = end(chunks);
      assert.equal(reason, 'length');
      assert.equal(usage.completionTokens, maxTokens);
    }
    const first = deltas((await collect(provider.stream(request({ maxTokens: 8 }), open()))).chunks).join('');
    const second = deltas((await collect(provider.stream(request({ maxTokens: 8 }), open()))).chunks).join('');
    assert.equal(second, first);
  });

  it('stops at once when aborted mid-answer, rejecting with the reason, and frees the sequence', async () => {
    const controller = new AbortController();
    const reason = new Error('The visitor left.');
    const received: string[] = [];
    // Far more tokens than the test would wait for: only the abort can end this answer.
    const reading = (async () => {
      for await (const chunk of provider.stream(request({ maxTokens: 100_000 }), controller.signal)) {
        if (chunk.type !== 'text') continue;
        received.push(chunk.delta);
        if (received.length === 3) controller.abort(reason);
      }
    })();
    await assert.rejects(within(reading, 2_000, 'the aborted answer'), (error) => error === reason);
    assert.equal(received.length, 3);
    // The provider has one sequence: the next answer gets it only once llama.cpp stopped.
    const next = await within(collect(provider.stream(request({ maxTokens: 3 }), open())), 5_000, 'the next answer');
    assert.equal(next.error, undefined);
    assert.equal(end(next.chunks).usage.completionTokens, 3);

    const gone = new Error('Gone before the start.');
    const early = await collect(provider.stream(request(), AbortSignal.abort(gone)));
    assert.deepEqual(early, { chunks: [], error: gone });
  });

  it('stops and frees the sequence when the reader stops early', async () => {
    for await (const chunk of provider.stream(request({ maxTokens: 100_000 }), open())) {
      if (chunk.type === 'text') break;
    }
    const next = await within(collect(provider.stream(request({ maxTokens: 3 }), open())), 5_000, 'the next answer');
    assert.equal(next.error, undefined);
    assert.equal(end(next.chunks).usage.completionTokens, 3);
  });

  it('completes concurrent answers, queued on one sequence or side by side on two', async () => {
    const other = request({ messages: [{ role: 'user', content: 'How do widgets work?' }], maxTokens: 10 });
    const one = request({ maxTokens: 10 });
    const alone = [end((await collect(provider.stream(one, open()))).chunks), end((await collect(provider.stream(other, open()))).chunks)];
    for (const subject of [provider, create({ parallel: 2 })]) {
      const both = await within(Promise.all([collect(subject.stream(one, open())), collect(subject.stream(other, open()))]), 5_000, 'both answers');
      for (const [index, { chunks, error }] of both.entries()) {
        assert.equal(error, undefined);
        assert.deepEqual(end(chunks), alone[index]);
      }
    }
  });

  it('falls back to a generic chat wrapper when the model has no chat template', async () => {
    const plainPath = path.join(dir, 'no-template.gguf');
    writeFileSync(plainPath, tinyLlamaGguf({ chatTemplate: false }));
    const { chunks, error } = await collect(create({ modelPath: plainPath }).stream(request({ maxTokens: 4 }), open()));
    assert.equal(error, undefined);
    assert.ok(deltas(chunks).length > 0);
    assert.equal(end(chunks).usage.completionTokens, 4);
  });

  it('fails with ProviderError 503 before any text when the model file is missing or broken', async () => {
    const garbage = path.join(dir, 'garbage.gguf');
    writeFileSync(garbage, 'This is not a model.');
    const truncated = path.join(dir, 'truncated.gguf');
    const model = tinyLlamaGguf();
    writeFileSync(truncated, model.subarray(0, model.length - 1_000));
    for (const file of [path.join(dir, 'missing.gguf'), garbage, truncated]) {
      const broken = create({ modelPath: file });
      const { chunks, error } = await collect(broken.stream(request(), open()));
      assert.deepEqual(chunks, [], file);
      assert.ok(error instanceof ProviderError, file);
      assert.equal(error.status, 503);
      assert.equal(error.message, 'The local language model could not be loaded.');
      // The operator's view names the file and the reason.
      await assert.rejects(broken.ready(), (reason: unknown) => reason instanceof Error && reason.message.startsWith(`Could not load the GGUF model ${file}: `));
    }
  });
});
