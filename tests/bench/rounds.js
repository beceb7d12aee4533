// rounds.js - what the bench's rounds do, the same in Node
// (tests/bench/bench.mjs) and in Chromium (tests/bench/browser_rounds.js):
// one timed repetition of the sentence set for our engine and for
// onnxruntime-web, whose greedy loop is here too (encoder.onnx once,
// decoder_step.onnx per step, tests/bench/make_models.py exports both; the
// argmax in JS, at most min(2 S + 10, 210) steps as the engine). A sample is
// { i, whole_ms, decode_ms, steps } (tests/bench/stats.mjs). No imports: the
// callers pass the engine and their `ort` module.
export const BOS = 2, EOS = 3;

/** Response headers that make a page cross-origin isolated: performance.now()
 * then ticks in 5 µs, not the 100 µs an ordinary page gets (a short sentence
 * takes about 1 ms). */
export const ISOLATION_HEADERS = Object.freeze({ 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' });

/** Every sentence's greedy target ids from our engine. */
export const engineTokens = (engine, sentences, options) => sentences.map((s) => Array.from(engine.translate(s, options).target, (t) => t.id));

/** `reps` repetitions of the set: each sentence once with a new source
 * ("whole": encoder + decode), then again with the encoder reused ("decode"). */
export function engineRound(engine, sentences, options, reps) {
  const out = [];
  for (let r = 0; r < reps; r++) {
    sentences.forEach((s, i) => {
      const t0 = performance.now();
      const cold = engine.translate(s, options);
      const t1 = performance.now();
      const warm = engine.translate(s, options);
      const t2 = performance.now();
      if (cold.encoderReused || !warm.encoderReused) throw new Error('encoder cache did not behave');
      out.push({ i, whole_ms: t1 - t0, decode_ms: t2 - t1, steps: warm.T });
    });
  }
  return out;
}

/** The same for onnxruntime-web (greedy: ids -> ortGreedy's answer); its "decode" is its greedy loop. */
export async function ortRound(greedy, sourceIds, reps) {
  const out = [];
  for (let r = 0; r < reps; r++) {
    for (let i = 0; i < sourceIds.length; i++) {
      const g = await greedy(sourceIds[i]);
      out.push({ i, whole_ms: g.enc + g.dec, decode_ms: g.dec, steps: g.tokens.length });
    }
  }
  return out;
}

/** onnxruntime-web's greedy target ids for every source. */
export async function ortTokens(greedy, sourceIds) {
  const out = [];
  for (const ids of sourceIds) out.push((await greedy(ids)).tokens);
  return out;
}

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
