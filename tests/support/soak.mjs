// soak.mjs - many translations in one WebAssembly instance; its memory must
// not grow after the first few. tests/soak.test.mjs runs it briefly,
// `./build.sh soak` (SOAK_N, default 100000) for long:
//
//   node tests/support/soak.mjs [N]
//
// Each call changes something: the sentence (ordinary, unknown words, a long
// one, a number that makes new text), the score scale (every third call),
// topK; every few calls also a tokenisation, and a refused input (empty, too
// long), so the error paths are soaked too.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ROOT, TEST_MODELS, createEngine } from './alsc.mjs';

export const SOAK_TEXTS = [
  'Open the file', 'Show the new window', 'Print the Zorglub page', 'Delete the selected document!',
  'save   the LAST   menu', '« Ça » 😀 open\u00a0the FILE…', 'Close all windows and save the changes',
  'open '.repeat(60).trim(), 'x', 'Zorglub Xyzzy', '!!! ???',
];

/** Runs n translations after `warmup`; returns memory sizes and timing. */
export async function soak({ variant = 'simd', model, n, warmup = 100, texts = SOAK_TEXTS }) {
  const engine = await createEngine({ variant });
  const info = engine.load(model);
  const tooLong = 'open '.repeat(info.maxSourceTokens + 1);
  let failures = 0;
  const round = (i) => {
    const base = texts[i % texts.length];
    const text = i % 5 === 0 ? `${base} ${i}` : base;
    const scoreScale = 2 ** (((i / 3) | 0) % 9 - 4); // 1/16 .. 16, a new value every third call
    const r = engine.translate(text, { scoreScale, topK: i % 17 });
    if (!(r.T >= 1)) failures++;
    if (i % 10 === 0) engine.tokenize(text);
    if (i % 25 === 0) {
      try { engine.translate(i % 50 ? '' : tooLong); failures++; } catch { /* refused, as it must be */ }
    }
  };
  // Heap in use at a fixed point: after tokenising one word (the token
  // preview's buffers are sized by the last call).
  const heap = () => { engine.tokenize('x'); return engine.heapBytes(); };
  for (let i = 0; i < warmup; i++) round(i);
  const before = engine.memoryBytes();
  const heapBefore = heap();
  const t0 = performance.now();
  let peak = before;
  for (let i = 0; i < n; i++) {
    round(warmup + i);
    if ((i & 1023) === 0) peak = Math.max(peak, engine.memoryBytes());
  }
  const ms = performance.now() - t0;
  const after = engine.memoryBytes();
  const heapAfter = heap();
  engine.dispose();
  return { variant, n, before, after, peak: Math.max(peak, after), heapBefore, heapAfter, ms, failures };
}

export function describeSoak(label, r) {
  return `${label} (${r.variant}): ${r.n} translations in ${(r.ms / 1000).toFixed(1)} s ` +
    `(${(r.ms / r.n).toFixed(3)} ms each), wasm memory ${r.before} -> ${r.after} bytes ` +
    `(${r.after - r.before >= 0 ? '+' : ''}${r.after - r.before}), heap in use ${r.heapBefore} -> ${r.heapAfter} bytes ` +
    `(${r.heapAfter - r.heapBefore >= 0 ? '+' : ''}${r.heapAfter - r.heapBefore}), failures ${r.failures}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const n = Number(process.argv[2] ?? 100000);
  let grew = false;
  const runs = [['test model additive', join(TEST_MODELS, 'additive.alsc'), n]];
  const real = join(ROOT, 'models', 'en-fr.alsc');
  if (existsSync(real)) runs.push(['models/en-fr.alsc', real, Math.max(100, Math.round(n / 100))]);
  for (const [label, file, count] of runs) {
    for (const variant of ['simd', 'scalar']) {
      const r = await soak({ variant, model: new Uint8Array(readFileSync(file)), n: count });
      console.log(`soak: ${describeSoak(label, r)}`);
      grew ||= r.after !== r.before || r.heapAfter !== r.heapBefore || r.failures > 0;
    }
  }
  if (grew) {
    console.error('soak: memory grew (or a translation failed)');
    process.exit(1);
  }
}
