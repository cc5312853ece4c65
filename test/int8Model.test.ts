import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { AutoTokenizer, env, mean_pooling, Tensor } from '@huggingface/transformers';
import * as ort from 'onnxruntime-node';
import { int8FromQ4, requantize } from '../src/providers/embeddings/int8Model.js';
import { bundledModelPath } from '../src/providers/embeddings/local.js';
import { meanPool } from '../src/providers/embeddings/pooling.js';

const MODEL = 'onnx-community/all-MiniLM-L6-v2-ONNX';
const Q4 = path.join(bundledModelPath(), MODEL, 'onnx', 'model_q4.onnx');

/** 4-bit values (0–15) packed two a byte, low nibble first, as MatMulNBits stores them. */
function pack(values: number[]): Uint8Array {
  const bytes = new Uint8Array(values.length / 2);
  values.forEach((v, i) => (bytes[i >> 1]! |= i % 2 === 0 ? v : v << 4));
  return bytes;
}

test('requantize: each column of 4-bit blocks becomes int8 [K][N] with one scale a column, within half a step', () => {
  // N = 2 columns, K = 6 (blocks of 4: the second block half used, as when K is not a multiple).
  const K = 6;
  const N = 2;
  const blockSize = 4;
  const q = [
    [0, 15, 8, 3, 12, 7, 8, 8], // column 0: blocks [0,15,8,3] and [12,7,(pad)]
    [8, 9, 10, 11, 1, 2, 8, 8],
  ];
  const scales = new Float32Array([0.5, 0.25, 1, 0.1]); // [column][block]
  const dequantised = (n: number, k: number, zero = 8) => (q[n]![k]! - zero) * scales[n * 2 + Math.floor(k / blockSize)]!;
  const { weights, scales: columnScales } = requantize(pack(q.flat()), scales, undefined, { K, N, blockSize });
  assert.equal(weights.length, K * N);
  for (let n = 0; n < N; n++) {
    const max = Math.max(...Array.from({ length: K }, (_, k) => Math.abs(dequantised(n, k))));
    assert.ok(Math.abs(columnScales[n]! - max / 127) < 1e-7);
    for (let k = 0; k < K; k++) {
      const w = weights[k * N + n]! * columnScales[n]!;
      assert.ok(Math.abs(w - dequantised(n, k)) <= columnScales[n]! / 2 + 1e-7, `column ${n} row ${k}: ${w} vs ${dequantised(n, k)}`);
    }
  }
  // Zero points (packed 4-bit, one a block) replace the default 8.
  const zeros = new Uint8Array([3 | (5 << 4), 8 | (8 << 4)]);
  const withZeros = requantize(pack(q.flat()), scales, zeros, { K, N, blockSize });
  assert.ok(Math.abs(withZeros.weights[0 * N + 0]! * withZeros.scales[0]! - dequantised(0, 0, 3)) <= withZeros.scales[0]! / 2 + 1e-7);
  assert.ok(Math.abs(withZeros.weights[4 * N + 0]! * withZeros.scales[0]! - dequantised(0, 4, 5)) <= withZeros.scales[0]! / 2 + 1e-7);
  assert.throws(() => requantize(pack(q.flat()).subarray(1), scales, undefined, { K, N, blockSize }), /unexpected size/);
});

test('the bundled model made int8 runs in onnxruntime, without 4-bit kernels, and embeds as the 4-bit model does', async () => {
  const bytes = int8FromQ4(Q4);
  const int8 = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1 });
  const q4 = await ort.InferenceSession.create(Q4, { intraOpNumThreads: 1 });
  assert.deepEqual(int8.inputNames, q4.inputNames);
  assert.deepEqual(int8.outputNames, q4.outputNames);
  assert.ok(!Buffer.from(bytes).includes('MatMulNBits'), 'no MatMulNBits node is left');

  env.allowRemoteModels = false;
  env.localModelPath = bundledModelPath();
  const tokenizer = await AutoTokenizer.from_pretrained(MODEL);
  const embed = async (session: ort.InferenceSession, text: string) => {
    const encoded = tokenizer(text) as Record<string, { data: BigInt64Array; dims: number[] }>;
    const feeds = Object.fromEntries(session.inputNames.map((name) => [name, new ort.Tensor('int64', encoded[name]!.data, encoded[name]!.dims)]));
    const hidden = (await session.run(feeds)).last_hidden_state!;
    const [, tokens, dims] = hidden.dims as number[];
    const v = new Float64Array(dims!);
    for (let t = 0; t < tokens!; t++) for (let d = 0; d < dims!; d++) v[d]! += (hidden.data as Float32Array)[t * dims! + d]!;
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  };
  const cosine = (a: Float64Array, b: Float64Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
  const texts = [
    'How do I rotate an API key without downtime?',
    'Vitamin D deficiency is associated with multiple sclerosis.',
    'Les clés de recherche ne peuvent pas écrire.',
  ];
  const pairs = await Promise.all(texts.map(async (t) => [await embed(int8, t), await embed(q4, t)] as const));
  for (const [a, b] of pairs) assert.ok(cosine(a, b) > 0.98, `int8 and q4 agree: ${cosine(a, b)}`);
  // And it still tells texts apart: each is nearest its own q4 embedding.
  for (let i = 0; i < texts.length; i++) {
    const own = cosine(pairs[i]![0], pairs[i]![1]);
    for (let j = 0; j < texts.length; j++) if (j !== i) assert.ok(cosine(pairs[i]![0], pairs[j]![1]) < own);
  }
});

test('a model with no 4-bit multiplications is refused, not passed off as int8', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'lore-int8-'));
  try {
    const file = path.join(folder, 'model.onnx');
    writeFileSync(file, new Uint8Array([0x08, 0x07])); // a ModelProto holding only ir_version 7
    assert.throws(() => int8FromQ4(file), /no 4-bit MatMulNBits/);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test('mean pooling gives what transformers.js’s mean_pooling gives, bit for bit, padding and all', () => {
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
  for (const [batch, seq, dim] of [[1, 9, 384], [3, 17, 384], [4, 5, 8]] as const) {
    const hidden = Float32Array.from({ length: batch * seq * dim }, random);
    // Each text of the batch padded after a different length (at least one token kept).
    const mask = BigInt64Array.from({ length: batch * seq }, (_, i) => (i % seq < seq - ((Math.floor(i / seq) * 3) % seq) || i % seq === 0 ? 1n : 0n));
    const expected = mean_pooling(new Tensor('float32', hidden, [batch, seq, dim]), new Tensor('int64', mask, [batch, seq])).data as Float32Array;
    assert.deepEqual(meanPool(hidden, [batch, seq, dim], mask), expected);
  }
  assert.throws(() => meanPool(new Float32Array(10), [1, 3, 4], new BigInt64Array(3)), /shapes/);
});
