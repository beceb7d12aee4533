// stats.mjs - the bench's statistics (tests/bench/bench.mjs), kept apart so
// that tests/bench/stats.test.mjs can check them on made-up samples.
//
// A sample is one timed translation: { round, i (sentence), whole_ms,
// decode_ms, steps }. "whole" = encoder + greedy decode with a new source;
// "decode" = the decode alone (encoder reused); a step = decode / steps.

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length ? (s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2) : NaN;
};

/** Linear-interpolated quantile q (0..1) of xs. */
export function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const at = (s.length - 1) * q, lo = Math.floor(at);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (at - lo);
}

const spread = (xs) => ({ median: quantile(xs, 0.5), q1: quantile(xs, 0.25), q3: quantile(xs, 0.75), rounds: xs.length });
const geomean = (xs) => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);

/** Per-sentence and per-step times of one backend over all its samples
 * (min and median); `sentences` are the source texts. */
export function summarise(samples, sentences) {
  const per = sentences.map((text, i) => {
    const mine = samples.filter((s) => s.i === i);
    const step = mine.map((s) => s.decode_ms / s.steps);
    return {
      i, words: text.split(/\s+/).length, steps: mine[0]?.steps, samples: mine.length,
      wholeMinMs: Math.min(...mine.map((s) => s.whole_ms)), wholeMedianMs: median(mine.map((s) => s.whole_ms)),
      decodeMedianMs: median(mine.map((s) => s.decode_ms)),
      stepMinMs: Math.min(...step), stepMedianMs: median(step),
    };
  });
  // One number per backend for a decoder step: the pooled per-step samples,
  // each sentence weighted by its number of steps (as in a long translation).
  const pooled = samples.map((s) => s.decode_ms / s.steps);
  return {
    sentences: per,
    stepMinMs: Math.min(...pooled), stepMedianMs: median(pooled),
    setWholeMedianMs: per.reduce((a, p) => a + p.wholeMedianMs, 0), // the set: sum of per-sentence medians
  };
}

/**
 * How many times faster `mine` is than `ref` (ref time / mine time), paired
 * by round: in each round both backends ran within seconds of each other,
 * under the same state of this host (whose memory bandwidth drifts by 2x
 * within minutes). A disturbance during one backend's turn moves that
 * round's ratio only; the median over rounds sets it aside and the middle
 * half of the rounds [q1, q3] shows how stable the ratio was. Returns,
 * over the rounds both have:
 *   step             { median, q1, q3, rounds } of the per-round step ratios
 *   perSentenceWhole  the same, per sentence, for whole translations
 *   wholeMinSpread    the sentence with the lowest median ratio (wholeMin,
 *                     wholeMinSentence: its value and index)
 *   wholeGeomean     geometric mean of the per-sentence medians
 */
export function pairedRatios(mine, ref, sentenceCount) {
  const rounds = [...new Set(mine.map((s) => s.round))].filter((r) => ref.some((s) => s.round === r)).sort((a, b) => a - b);
  const stepOf = (xs) => median(xs.map((s) => s.decode_ms / s.steps));
  const wholeOf = (xs, i) => median(xs.filter((s) => s.i === i).map((s) => s.whole_ms));
  const step = [];
  const whole = Array.from({ length: sentenceCount }, () => []);
  for (const r of rounds) {
    const a = mine.filter((s) => s.round === r), b = ref.filter((s) => s.round === r);
    step.push(stepOf(b) / stepOf(a));
    for (let i = 0; i < sentenceCount; i++) whole[i].push(wholeOf(b, i) / wholeOf(a, i));
  }
  const perSentenceWhole = whole.map(spread);
  const worst = perSentenceWhole.reduce((w, p, i) => (p.median < perSentenceWhole[w].median ? i : w), 0);
  return {
    step: spread(step),
    perSentenceWhole,
    wholeMin: perSentenceWhole[worst]?.median, wholeMinSentence: worst, wholeMinSpread: perSentenceWhole[worst],
    wholeGeomean: geomean(perSentenceWhole.map((p) => p.median)),
  };
}

/**
 * Multiply-adds of the weight products in one decoder step of the engine
 * (src/engine.c), from its model info (engine.load's answer): what every
 * step must stream and compute whatever the source length. Additive
 * attention's query (A x Hd); the GRU's embedding (3Hd x E) and recurrent
 * (3Hd x Hd) products; the deep output's state and embedding columns
 * (O x (Hd + E)) unless the model projects the state directly; the
 * vocabulary projection (V x O, or V x Hd). The context columns are
 * multiplied once per source position by the encoder (encoderWeights); a
 * step combines those S products, like the attention, in S-long sums.
 */
export function decoderStepMacs(info) {
  const { decoderHidden: hd, embedDim: e, attentionDim: a, outputDim: o, tgtVocabSize: v } = info;
  const direct = info.architecture?.directOutput;
  return (info.attention === 'additive' ? a * hd : 0) + 3 * hd * e + 3 * hd * hd +
    (direct ? v * hd : o * (hd + e) + v * o);
}

/**
 * Weights the encoder reads once per new source, in elements. encoder: each
 * direction's input (3He x E) and recurrent (3He x He) GRU products, the
 * initial decoder state (Hd x He) unless the model copies it, the attention
 * keys (A x C) for additive and general attention: what any implementation
 * reads. contextColumns: the decoder's context columns (3Hd x C, and O x C
 * with the deep output), which our engine multiplies here too (once per
 * position) rather than at every step. Reading them is the fixed cost of a
 * translation of a short source.
 */
export function encoderWeights(info) {
  const { encoderHidden: he, decoderHidden: hd, embedDim: e, contextDim: c, keyDim: k, outputDim: o } = info;
  const arch = info.architecture ?? {};
  return {
    encoder: (arch.unidirectional ? 1 : 2) * 3 * he * (e + he) + (arch.initFromEncoder ? 0 : hd * he) +
      (info.attention === 'additive' || info.attention === 'general' ? k * c : 0),
    contextColumns: (3 * hd + (arch.directOutput ? 0 : o)) * c,
  };
}
