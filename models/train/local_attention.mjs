// local_attention.mjs - the engine's half of REPORT.md's "Where attention
// looked, what the words needed, and local windows" section (report.py
// --local-only runs it, once per model file, and does the statistics).
//
//   node models/train/local_attention.mjs MODEL.alsc [--windows 1,2,4] < sentences.txt > lines.jsonl
//
// For each sentence (one per line), with the wasm engine the page runs
// (web/engine.js, SIMD build), greedy decoding as the report's other sections:
//   - erasure at every decoder step: the global translation scored again,
//     teacher-forced, with each source WORD masked out (its pieces together;
//     lib/erasure.js erasureMap, the worker's computation for the page's
//     erasure card), the drop in log p(y_t) per word; and attention's weight
//     on each word at that step (α summed over its pieces). Per step: the most
//     attended word, the most needed word, and whether they are the same
//     (lib/erasure.js compareRows, its rule included: a step whose largest
//     drop is under MIN_NEEDED_NATS needed no word and is not compared);
//   - the translation with the local-m window of each half width D, its centre
//     scaled with the global translation's length T (engine.translate
//     { window: D, windowSteps: T }; src/alignscope.h as_options).
// Writes one JSON line per sentence: { translation, windows: { D: text },
// steps, attended: [...], needed: [...], agree: [true|false|null, ...] }, or
// { refused: message } for a sentence the model does not take.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

import { createEngine } from '../../web/engine.js';
import { compareRows, erasureMap, MIN_NEEDED_NATS } from '../../web/lib/erasure.js';
import { pieceToWord, sourceWords } from '../../web/lib/words.js';

const args = process.argv.slice(2);
const model = args.find((a) => !a.startsWith('--') && args[args.indexOf(a) - 1] !== '--windows');
const at = args.indexOf('--windows');
const windows = (at >= 0 ? args[at + 1] : '1,2,4').split(',').map(Number);
if (!model || !windows.every((d) => Number.isInteger(d) && d >= 0)) {
  console.error('usage: node models/train/local_attention.mjs MODEL.alsc [--windows 1,2,4] < sentences.txt');
  process.exit(2);
}

const engine = await createEngine({ variant: 'simd' });
const info = engine.load(new Uint8Array(readFileSync(model)));
const attends = info.attention !== 'none';

/** One sentence's line (see the header). */
function measure(text) {
  const trace = engine.translate(text, { topK: 0 });
  const out = { translation: trace.translation, windows: {}, steps: trace.T, minNeeded: MIN_NEEDED_NATS };
  for (const d of windows) out.windows[d] = engine.translate(text, { topK: 0, window: d, windowSteps: trace.T }).translation;
  if (!attends) return out;
  // Columns: the source's words (the </s> a model reads is a word of its own); rows: every decoder step.
  const groups = sourceWords(trace);
  const G = groups.length;
  const sourceIds = Int32Array.from(trace.source.filter((p) => !p.isEnd), (p) => p.id);
  const targetIds = Int32Array.from(trace.target, (p) => p.id);
  const score = (src, keep) => engine.forceScore(src, targetIds, { keep, scoreScale: trace.scoreScale }).logProbs;
  const map = erasureMap({ sourceIds, targetIds, S: trace.S, groups, method: 'mask' }, score);
  const colOf = pieceToWord(groups, trace.S);
  const alpha = new Float32Array(trace.T * G);
  for (let t = 0; t < trace.T; t++) for (let j = 0; j < trace.S; j++) alpha[t * G + colOf[j]] += trace.alpha[t * trace.S + j];
  const cmp = compareRows(alpha, map.drop, trace.T, G);
  out.words = G;
  out.attended = cmp.rows.map((r) => r.attended);
  out.needed = cmp.rows.map((r) => r.needed);
  out.agree = cmp.rows.map((r) => r.agree);
  return out;
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const text of lines) {
  if (!text.trim()) continue;
  let line;
  try {
    line = measure(text);
  } catch (err) {
    if (!err.code) throw err;
    line = { refused: err.message };
  }
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
engine.dispose();
