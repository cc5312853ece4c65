import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OverloadedError } from '../errors.js';
import { createIngestion, draftChunks } from './pipeline.js';
import type { EntryFields } from '../model.js';
import type { Embedder, EntryRepository } from './port.js';

describe('ingestion queue', () => {
  it('refuses a batch that would overflow the queue before reading it, and takes it once the queue drains', async () => {
    // The first batch's 20 texts wait for the model; the queue holds 25.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const embedder: Embedder = {
      model: 'test',
      dimensions: 2,
      async embed(texts) {
        embedding++;
        await released;
        return texts.map(() => new Float32Array([1, 0]));
      },
    };
    let lookups = 0;
    let embedding = 0;
    const entries = {
      async reusableEmbeddings() {
        lookups++;
        return new Map<string, Float32Array>();
      },
    } as unknown as EntryRepository;
    const ingestion = createIngestion({ embedder, entries, queueLimit: 25 });
    const scope = { organisationId: 1 };
    const batch = (n: number, name: string): EntryFields[] =>
      Array.from({ length: n }, (_, i) => ({
        title: null,
        raw_text: `Entry ${i} of ${name}: refunds and invoices.`,
        meta: {},
        searchable_meta: {},
        source_url: null,
        source_type: null,
        source_id: null,
      }));

    const first = ingestion.prepare(scope, 'c', batch(20, 'first'));
    for (let i = 0; i < 100 && embedding < 1; i++) await new Promise((resolve) => setImmediate(resolve));
    await assert.rejects(ingestion.prepare(scope, 'c', batch(10, 'second')), (error) => error instanceof OverloadedError && error.retryAfterSeconds >= 1);
    assert.equal(lookups, 1, 'the refused batch was not chunked nor looked up');
    release();
    assert.equal((await first).length, 20);
    assert.equal((await ingestion.prepare(scope, 'c', batch(10, 'third'))).length, 10, 'taken once the queue drained');
  });
});

describe('draftChunks', () => {
  it("analyses a chunk too short or code-like to tell in its entry's language (no stop words in its terms)", () => {
    // A long JSON block is cut into chunks of its own; its last holds brackets only.
    const settings = Array.from({ length: 60 }, (_, i) => `    "setting${i}": ${i},`).join('\n');
    const fields: EntryFields = {
      title: 'Debugging the Config File in VS Code',
      raw_text: `## Debugging the Config File in VS Code\n\nAdd the temporary directory to the launch configuration:\n\n\`\`\`json\n{\n  "configurations": [\n${settings}\n    }\n  ]\n}\n\`\`\``,
      meta: {},
      searchable_meta: {},
      source_url: null,
      source_type: null,
      source_id: null,
    };
    const chunks = draftChunks(fields, 'test');
    assert.ok(chunks.length >= 2, String(chunks.length));
    for (const chunk of chunks) {
      assert.equal(chunk.language, 'en', chunk.text);
      assert.equal(chunk.terms.has('the'), false, chunk.text);
    }
  });
});
