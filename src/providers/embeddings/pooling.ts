/**
 * Mean pooling of a model's last hidden state over the tokens its attention mask keeps: the
 * same arithmetic, in the same order, as transformers.js's `mean_pooling` (so the same
 * vectors, bit for bit), with the int64 mask read into numbers once instead of once per
 * dimension of every token. transformers.js converts a BigInt for each of the seq × 384
 * products: measured 131 → 21 µs for a query of 24 tokens, 20.8 → 3.4 ms for a batch of
 * 32 chunks of 128 tokens (a CPU profile under search load had it at 0.2 ms a query).
 */
export function meanPool(hidden: Float32Array, dims: readonly number[], attentionMask: BigInt64Array): Float32Array {
  const [batch, seq, dim] = dims as [number, number, number];
  if (hidden.length !== batch * seq * dim || attentionMask.length !== batch * seq) throw new Error('mean pooling: shapes do not match');
  const mask = Array.from(attentionMask, Number);
  const out = new Float32Array(batch * dim);
  let o = 0;
  for (let i = 0; i < batch; ++i) {
    const offset = i * dim * seq;
    for (let k = 0; k < dim; ++k) {
      let sum = 0;
      let count = 0;
      for (let j = 0; j < seq; ++j) {
        const keep = mask[i * seq + j]!;
        count += keep;
        sum += hidden[offset + k + j * dim]! * keep;
      }
      out[o++] = sum / count;
    }
  }
  return out;
}
