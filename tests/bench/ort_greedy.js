// ort_greedy.js - onnxruntime-web's greedy translation, the same in Node
// (tests/bench/bench.mjs) and in Chromium (tests/bench/browser_rounds.js):
// encoder.onnx once, decoder_step.onnx per step (tests/bench/make_models.py
// exports both), the argmax in JS, at most min(2 S + 10, 210) steps as the
// engine. No imports: the caller passes its `ort` module.
export const BOS = 2, EOS = 3;

/** Greedy tokens of source ids `ids` and the encoder's and the loop's ms. */
export async function ortGreedy(ort, enc, dec, ids) {
  const t0 = performance.now();
  const S = ids.length;
  const src = new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, S]);
  const { annotations, keys, s0 } = await enc.run({ src });
  const mask = new ort.Tensor('bool', new Uint8Array(S).fill(1), [1, S]);
  const t1 = performance.now();
  let state = s0, prev = BOS;
  const out = [];
  for (let t = 0; t < Math.min(2 * S + 10, 210); t++) {
    const r = await dec.run({ prev: new ort.Tensor('int64', BigInt64Array.of(BigInt(prev)), [1]), state, annotations, keys, mask });
    const logits = r.logits.data;
    let best = 0;
    for (let v = 1; v < logits.length; v++) if (logits[v] > logits[best]) best = v;
    state = r.new_state;
    prev = best;
    out.push(best);
    if (best === EOS) break;
  }
  return { tokens: out, enc: t1 - t0, dec: performance.now() - t1 };
}
