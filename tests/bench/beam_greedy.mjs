// beam_greedy.mjs - what beam search by default costs: the shipped default
// model (models/index.json's `default`), the SIMD build in Node, the page's
// options (5 candidates per step), every bench sentence translated greedily
// and with a beam of DEFAULT_BEAM_WIDTH (the page's, the CLI's), side by
// side in one run. Each repetition runs the whole set greedily and then the
// whole set with the beam (the order alternating between repetitions), so
// that every translation has a new source (no encoder reused) and both
// decoders see the same machine state. Per sentence: the median of each and
// their ratio; overall the geometric mean of the ratios. The beam's live
// hypotheses decode as one batched step (src/engine.c), so the weights of a
// step stream once for all of them: on this memory-bound decoder the ratio
// should stay well under 2.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { createEngine, DEFAULT_BEAM_WIDTH, DEFAULT_LENGTH_PENALTY } from '../../web/engine.js';
import { median } from './stats.mjs';

/** -> { model, variant, width, lengthPenalty, reps, sentences: [{ i, greedyMs, beamMs, ratio, greedySteps, beamSteps, sameText }],
 *       ratioGeomean, greedyTotalMs, beamTotalMs } (ms: medians over reps). */
export async function beamVsGreedy({ root, sentences, reps, variant = 'simd', topK = 5 }) {
  const catalogue = JSON.parse(readFileSync(join(root, 'models', 'index.json'), 'utf8'));
  const entry = catalogue.models.find((m) => m.id === catalogue.default);
  if (!entry) throw new Error(`models/index.json: the default model ${catalogue.default} is not listed`);
  const engine = await createEngine({ variant });
  try {
    engine.load(new Uint8Array(readFileSync(join(root, 'models', entry.file))));
    const opts = { topK };
    const beamOpts = { topK, beamWidth: DEFAULT_BEAM_WIDTH, lengthPenalty: DEFAULT_LENGTH_PENALTY };
    const greedy = sentences.map(() => []), beam = sentences.map(() => []);
    const last = { greedy: [], beam: [] };
    const runGreedy = () => sentences.forEach((s, i) => {
      const t0 = performance.now();
      last.greedy[i] = engine.translate(s, opts);
      greedy[i].push(performance.now() - t0);
    });
    const runBeam = () => sentences.forEach((s, i) => {
      const t0 = performance.now();
      last.beam[i] = engine.beam(s, beamOpts).hypotheses[0];
      beam[i].push(performance.now() - t0);
    });
    runGreedy(); runBeam(); // warm-up, untimed
    greedy.forEach((a) => a.splice(0)); beam.forEach((a) => a.splice(0));
    for (let r = 0; r < reps; r++) {
      if (r % 2) { runBeam(); runGreedy(); } else { runGreedy(); runBeam(); }
    }
    const rows = sentences.map((_, i) => {
      const g = median(greedy[i]), b = median(beam[i]);
      return { i, greedyMs: g, beamMs: b, ratio: b / g, greedySteps: last.greedy[i].T, beamSteps: last.beam[i].T,
        sameText: last.greedy[i].translation === last.beam[i].translation };
    });
    const ratioGeomean = Math.exp(rows.reduce((a, r) => a + Math.log(r.ratio), 0) / rows.length);
    return {
      model: entry.id, variant: `${variant} (isa ${engine.isa})`, width: DEFAULT_BEAM_WIDTH, lengthPenalty: DEFAULT_LENGTH_PENALTY, reps,
      sentences: rows, ratioGeomean,
      greedyTotalMs: rows.reduce((a, r) => a + r.greedyMs, 0), beamTotalMs: rows.reduce((a, r) => a + r.beamMs, 0),
    };
  } finally {
    engine.dispose();
  }
}

/** Markdown lines for results.md. */
export function beamVsGreedyLines(b, f) {
  const lines = [`### Beam (width ${b.width}) vs greedy, ${b.model} (the shipped default), ${b.variant}, 5 candidates per step`, ''];
  lines.push('| sentence | greedy ms | beam ms | beam ÷ greedy | steps (greedy / beam) | same text |', '|---|---|---|---|---|---|');
  for (const r of b.sentences) lines.push(`| #${r.i + 1} | ${f(r.greedyMs)} | ${f(r.beamMs)} | ${f(r.ratio)}× | ${r.greedySteps} / ${r.beamSteps} | ${r.sameText ? 'yes' : 'no'} |`);
  lines.push('', `Median of ${b.reps} repetitions per sentence, each translation with a new source; beam ÷ greedy over the set: ${f(b.ratioGeomean)}× (geometric mean), ` +
    `${f(b.beamTotalMs)} ms against ${f(b.greedyTotalMs)} ms in all.`, '');
  return lines;
}
