// erasure_bench.mjs - what the erasure card (web/cards/erasure.js) costs:
// the worker's map (lib/erasure.js erasureMap over engine.forceScore, as
// web/worker.js runs it: one unmasked score and one per source word, at word
// level) on the shipped default model and on the no-attention model (which
// re-encodes a shorter source per word instead of masking), SIMD build in
// Node, for a 10-word and a 30-word sentence (the render budget's, and its
// first clause); and the main thread's share, the card's figures from the
// answer (rows summed, ρ per row: erasureFigures). Each repetition computes
// afresh (the worker's cache is not in play). Reported: the median over reps.
// The map is computed in the worker, off the main thread: the render budget
// (render_budget.mjs, one frame) applies to the main thread's share only.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { createEngine, DEFAULT_BEAM_WIDTH, DEFAULT_LENGTH_PENALTY } from '../../web/engine.js';
import { erasureMap } from '../../web/lib/erasure.js';
import { figureMatrix } from '../../web/lib/figure.js';
import { erasureRequest } from '../../web/controllers/erasure.js';
import { erasureFigures } from '../../web/cards/erasure.js';
import { BUDGET_SENTENCE } from './render_budget.mjs';
import { median } from './stats.mjs';

// The render budget's 30-word sentence, and its first clause (10 words).
export const ERASURE_SENTENCES = Object.freeze([BUDGET_SENTENCE.split(',')[0], BUDGET_SENTENCE]);
// The frame the main thread's share must fit (render_budget.mjs TARGETS.sliderP90Desktop).
const FRAME_MS = 16;

/** -> { variant, reps, rows: [{ model, attention, words, columns, steps, workerMs, mainMs }] } */
export async function erasureBench({ root, reps, variant = 'simd' }) {
  const catalogue = JSON.parse(readFileSync(join(root, 'models', 'index.json'), 'utf8'));
  const none = catalogue.models.find((m) => m.attention === 'none');
  const models = [catalogue.models.find((m) => m.id === catalogue.default), none].filter(Boolean);
  const engine = await createEngine({ variant });
  const rows = [];
  try {
    for (const entry of models) {
      const info = engine.load(new Uint8Array(readFileSync(join(root, 'models', entry.file))));
      for (const text of ERASURE_SENTENCES) {
        // The page's translation (a beam of the default width), then the card's request for it, as the worker gets it.
        const trace = engine.beam(text, { beamWidth: DEFAULT_BEAM_WIDTH, lengthPenalty: DEFAULT_LENGTH_PENALTY }).hypotheses[0];
        const matrix = figureMatrix(trace, info, false);
        const st = { trace, info, matrix, pieces: false };
        const req = erasureRequest(st);
        const sourceIds = Int32Array.from(trace.source.filter((p) => !p.isEnd), (p) => p.id);
        const targetIds = Int32Array.from(trace.target, (p) => p.id);
        const method = info.attention === 'none' ? 'delete' : 'mask';
        const groups = matrix.colGroups;
        const score = (src, keep) => engine.forceScore(src, targetIds, { keep, scoreScale: trace.scoreScale }).logProbs;
        const run = () => erasureMap({ sourceIds, targetIds, S: trace.S, groups, method }, score);
        let map = run(); // warm-up, untimed
        const worker = [], main = [];
        for (let r = 0; r < reps; r++) {
          const t0 = performance.now();
          map = run();
          worker.push(performance.now() - t0);
          const result = { method, base: map.base, drop: map.drop, erasable: map.erasable, T: map.T, G: map.G };
          const t1 = performance.now();
          erasureFigures({ ...st, erasure: { for: trace, columns: req.columns, result } });
          main.push(performance.now() - t1);
        }
        rows.push({ model: entry.id, attention: info.attention, words: text.split(/\s+/).length, columns: groups.length, steps: trace.T,
          workerMs: median(worker), mainMs: median(main) });
      }
    }
  } finally {
    engine.dispose();
  }
  return { variant: `${variant} (isa ${engine.isa})`, reps, rows };
}

/** Markdown lines for results.md. */
export function erasureLines(b, f) {
  const lines = [`### Erasure map (the "Where it looked vs what it needed" card), ${b.variant}`, ''];
  lines.push('| model | words | columns | steps | worker ms (map) | main thread ms (figures) |', '|---|---|---|---|---|---|');
  for (const r of b.rows) lines.push(`| ${r.model} (${r.attention}) | ${r.words} | ${r.columns} | ${r.steps} | ${f(r.workerMs)} | ${f(r.mainMs)} |`);
  lines.push('', `Median of ${b.reps} repetitions, each computed afresh (the worker keeps its answers per sentence, so a sentence seen before costs a message). ` +
    'The map is the worker\'s work, off the main thread; the main thread sums its rows and ranks them.', '');
  return lines;
}

/** Target rows: the main thread's share against one frame; the worker's time as context (no goal). */
export function erasureTargets(b) {
  const t = [];
  for (const r of b.rows) {
    t.push({ name: `erasure map in the worker, ${r.words} words, ${r.model} (median)`, value: r.workerMs, range: null, goal: null, met: null, unit: 'ms' });
    t.push({ name: `erasure card's figures on the main thread, ${r.words} words, ${r.model} (median)`, value: r.mainMs, range: null, goal: FRAME_MS, met: r.mainMs < FRAME_MS, unit: 'ms', lowerIsBetter: true });
  }
  return t;
}
