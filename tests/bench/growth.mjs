// growth.mjs - how the cost of a translation grows with the source length,
// in Chromium, on the page's path: the build the page picks (engine.js
// bestVariant()), the page's default model (web/models/, the catalogue's
// default), the page's options (CONFIG.topK candidates per step, scoreScale 1).
//
//   node tests/bench/growth.mjs [--quick] [--json FILE] [--markdown]
//   (prints the JSON result, or with --markdown the lines for results.md;
//   --quick: S = 1, 8, 32 and few samples, to check that it works)
//
// For sources of 1, 2, 4, ... 100 source tokens (prefixes of committed English
// text, cut at the word boundary whose token count is nearest the target):
// ms per whole translation (new source: encoder + greedy decode + reading the
// trace into JS), per decode with the encoder reused (the √d slider's path:
// the same source again) and per decoder step (decode / T).
// Beside it, in the same page, the attention core alone (additive scores +
// softmax + context, build/bench/kernels_bench.wasm kb_attention, SIMD128
// twin) at the same S with the model's A and D, and the output layer's
// product (V x output dim; kb_matvec_i8 for an int8 model, kb_matvec p24
// otherwise), so that the attention's O(S) per step can be set against the
// O(V) output projection. share = T x core(S) / decode.
//
// Served with COOP/COEP headers so that the page is cross-origin isolated:
// Chromium's performance.now() then has 5 µs resolution instead of 100 µs,
// which a one-token source's translation (well under a millisecond) needs.
// Timings are reported, never asserted: run it on an idle machine.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ISOLATION_HEADERS } from './rounds.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');

export const GROWTH_LENGTHS = [1, 2, 4, 8, 16, 32, 64, 100];
export const GROWTH_LENGTHS_QUICK = [1, 8, 32];
// The attention core alone on a wider grid than the model accepts: where its
// O(S) reaches the O(V) output projection may lie past the model's limit.
const CORE_GRID = [1, 2, 4, 8, 16, 32, 64, 100, 128, 192, 256, 384, 512, 768, 1024];
const CORE_GRID_QUICK = [1, 8, 32, 128, 512];
// Committed English text (not made up for the bench), joined in this order.
export const TEXT_FILES = ['models/train/everyday_sentences.en.txt', 'models/train/fixture_sentences.en.txt'];
const PAGE = '/__growth__.html';

/** The page's default model: the catalogue assemble.mjs wrote (web/models/index.json). */
function pageModel() {
  const index = join(ROOT, 'web', 'models', 'index.json');
  if (!existsSync(index)) throw new Error('web/models/index.json is missing: run node web/tools/assemble.mjs');
  const catalog = JSON.parse(readFileSync(index, 'utf8'));
  const def = catalog.models.find((m) => m.id === catalog.default) ?? catalog.models[0];
  if (!existsSync(join(ROOT, 'web', 'models', def.file))) throw new Error(`web/models/${def.file} is missing: run node web/tools/assemble.mjs`);
  return { id: def.id, file: `web/models/${def.file}`, url: `/web/models/${def.file}` };
}

/**
 * Runs in the page (page.evaluate): everything it needs comes in `a`
 * ({ modelUrl, kernelsUrl, lines, lengths, coreGrid, rounds, reps, gridRounds,
 * warmMs, minSampleMs }); it cannot see Node's scope. Returns { variant,
 * isa, options, model, rows, coreGrid, output, notes, ... } (growthBench).
 */
async function measureInPage(a) {
  const { bestVariant, createEngine, VARIANT_NAMES } = await import('/web/engine.js');
  const { CONFIG } = await import('/web/config.js');
  const now = () => performance.now();
  const med = (xs) => { const s = [...xs].sort((p, q) => p - q); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
  const summary = (xs) => ({ min: Math.min(...xs), median: med(xs), n: xs.length });

  // Timer resolution: the smallest step performance.now() takes.
  let resolutionMs = Infinity;
  for (let i = 0, last = now(); i < 200_000 && resolutionMs > 0.001; i++) {
    const t = now();
    if (t > last) { resolutionMs = Math.min(resolutionMs, t - last); last = t; }
  }

  const variant = bestVariant();
  const engine = await createEngine({ variant });
  const info = engine.load(new Uint8Array(await (await fetch(a.modelUrl)).arrayBuffer()));
  const options = { topK: CONFIG.topK, scoreScale: 1 };
  const A = info.attentionDim, D = info.contextDim, V = info.tgtVocabSize, O = info.outputDim;
  const maxS = info.maxSourceTokens;
  const eos = info.architecture?.sourceEos ? 1 : 0; // a model reading </s> has one more source position

  // ---- the sources: word prefixes whose S is nearest each target --------
  // A source is the text from the start of one of its lines, cut after k
  // words. Of all (line, k) the one whose S is nearest the target wins (the
  // earliest line, then the fewest words, on a tie): starting at any line,
  // not only the first, lets short targets be hit exactly.
  const lineWords = a.lines.map((l) => l.split(/\s+/).filter(Boolean));
  const fromLine = (line) => lineWords.slice(line).flat();
  const sCache = new Map(); // `${line}:${k}` -> S of that source
  const sOf = (line, k) => {
    const key = `${line}:${k}`;
    if (!sCache.has(key)) sCache.set(key, engine.tokenize(fromLine(line).slice(0, k).join(' ')).length + eos);
    return sCache.get(key);
  };
  const textS = engine.tokenize(fromLine(0).join(' ')).length + eos;
  const picks = [];
  const notes = [];
  for (const target of a.lengths) {
    const want = Math.min(target, maxS, textS);
    if (want < Math.min(target, maxS)) notes.push(`target ${target}: the text has only ${textS} source tokens`);
    else if (want < target) notes.push(`target ${target} is above the model's ${maxS} source tokens: ${want} used`);
    let best = null;
    for (let line = 0; line < lineWords.length && best?.S !== want; line++) {
      const n = fromLine(line).length;
      for (let k = 1; k <= n; k++) {
        const S = sOf(line, k);
        if (S > maxS) break; // longer prefixes only grow
        if (!best || Math.abs(S - want) < Math.abs(best.S - want)) best = { line, k, S };
        if (S >= want) break; // the nearest from this line is this one or the one before
      }
    }
    if (!best) throw new Error('no prefix of the text fits the model');
    const prev = picks.at(-1);
    if (prev && prev.S === best.S) { prev.targets.push(target); continue; } // two targets, one length
    picks.push({ ...best, targets: [target], text: fromLine(best.line).slice(0, best.k).join(' ') });
  }

  // ---- the kernel bench module, set up at the model's dimensions ---------
  const kb = (await WebAssembly.instantiate(await (await fetch(a.kernelsUrl)).arrayBuffer(),
    { env: { emscripten_notify_memory_growth() {} } })).instance.exports;
  kb._initialize?.();
  const coreMax = Math.max(...a.coreGrid, ...picks.map((p) => p.S));
  if (kb.kb_setup(coreMax, A, D, V, O) !== 0) throw new Error('kernels_bench: out of memory');
  const int8 = info.weightType === 'int8';
  // The output layer's product, as this model's weights are held in memory:
  // int8 stays int8 (q32 layout); f32 and f16 run the f32 p24 kernel.
  const outputCall = int8 ? (n) => kb.kb_matvec_i8(1, V, n) : (n) => kb.kb_matvec(1, 0, V, n);
  const coreCall = (s) => (n) => kb.kb_attention(1, s, n);
  let sink = 0; // the checksums, kept so that nothing is dropped
  // Iterations per sample so that one sample lasts at least minSampleMs
  // (the timer's resolution and the call's overhead kept out of it); the
  // faster of two tries at each count, so that one slow call (a first call,
  // a tier-up) does not stop the doubling early. Call after warming up.
  const calibrate = (fn) => {
    for (let n = 1; ; n *= 2) {
      let best = Infinity;
      for (let k = 0; k < 2; k++) { const t0 = now(); sink += fn(n); best = Math.min(best, now() - t0); }
      if (best >= a.minSampleMs || n >= 1 << 22) return n;
    }
  };
  const sampleUs = (fn, n) => { const t0 = now(); sink += fn(n); return ((now() - t0) / n) * 1e3; };

  // ---- warm-up: V8 starts wasm in Liftoff and swaps in TurboFan later ----
  const texts = picks.map((p) => p.text);
  const warmStart = now();
  for (let i = 0; i < 2 || now() - warmStart < a.warmMs; i++) for (const t of texts) engine.translate(t, options);
  // ... and the kernels, each called several times (tier-up is per call),
  // before their iteration counts are chosen.
  const lengthsTimed = [...new Set([...a.coreGrid, ...picks.map((p) => p.S)])];
  const kernelStart = now();
  for (let i = 0; i < 3 || now() - kernelStart < a.warmMs / 2; i++) {
    sink += outputCall(1);
    for (const s of lengthsTimed) sink += coreCall(s)(4);
  }
  const outputIters = calibrate(outputCall);
  const coreIters = new Map(lengthsTimed.map((s) => [s, calibrate(coreCall(s))]));

  // ---- rounds: every length in turn (the order rotates each round) -------
  const per = picks.map(() => ({ whole: [], decode: [], wasmDecode: [], core: [], T: new Set(), S: new Set(), eos: new Set() }));
  const output = [];
  for (let r = 0; r < a.rounds; r++) {
    for (let j = 0; j < picks.length; j++) {
      const i = (j + r) % picks.length;
      const p = picks[i], m = per[i];
      // The other source first, so that this one starts with a new encoder.
      const other = picks.length > 1 ? texts[(i + 1) % texts.length] : `${p.text} ${p.text}`;
      for (let k = 0; k < a.reps; k++) {
        engine.translate(other, options);
        const t0 = now();
        const cold = engine.translate(p.text, options);
        const t1 = now();
        if (cold.encoderReused) throw new Error(`S=${cold.S}: the encoder was reused for a new source`);
        m.whole.push(t1 - t0);
        m.T.add(cold.T); m.S.add(cold.S); m.eos.add(cold.stoppedAtEos);
      }
      for (let k = 0; k < a.reps; k++) {
        const t0 = now();
        const warm = engine.translate(p.text, options);
        const t1 = now();
        if (!warm.encoderReused) throw new Error(`S=${warm.S}: the encoder was not reused`);
        m.decode.push(t1 - t0);
        m.wasmDecode.push(warm.elapsedMs);
        m.T.add(warm.T);
      }
      const s = [...m.S][0];
      for (let k = 0; k < 3; k++) m.core.push(sampleUs(coreCall(s), coreIters.get(s)));
    }
    for (let k = 0; k < 3; k++) output.push(sampleUs(outputCall, outputIters));
  }
  // The core on the whole grid, the output layer's product between lengths.
  const grid = a.coreGrid.map((s) => ({ S: s, us: [] }));
  for (let r = 0; r < a.gridRounds; r++) {
    for (const g of grid) g.us.push(sampleUs(coreCall(g.S), coreIters.get(g.S)));
    output.push(sampleUs(outputCall, outputIters));
  }
  const out = summary(output);

  const rows = picks.map((p, i) => {
    const m = per[i];
    if (m.T.size !== 1 || m.S.size !== 1) throw new Error(`S=${[...m.S]}: T or S changed between runs (${[...m.T]})`);
    const S = [...m.S][0], T = [...m.T][0];
    const whole = summary(m.whole), decode = summary(m.decode), wasmDecode = summary(m.wasmDecode), core = summary(m.core);
    return {
      targets: p.targets, line: p.line, words: p.k, chars: p.text.length, S, tokenizedS: p.S, T, stoppedAtEos: [...m.eos][0],
      wholeMs: whole, decodeMs: decode, wasmDecodeMs: wasmDecode,
      stepMs: { min: decode.min / T, median: decode.median / T },
      coreUs: core,
      // the attention core's part of the decode: T steps of it
      share: (T * core.median) / 1e3 / decode.median,
      shareMin: (T * core.min) / 1e3 / decode.min, // the same from the minima (less hurt by a busy machine)
      // kernel against kernel: the minima (each kernel's capability, as kernels_bench.mjs)
      coreVsOutput: core.min / out.min,
    };
  });
  const coreGrid = grid.map((g) => { const s = summary(g.us); return { S: g.S, minUs: s.min, medianUs: s.median, vsOutput: s.min / out.min }; });
  engine.dispose();
  return {
    variant, variantName: VARIANT_NAMES[variant], isa: engine.isa, crossOriginIsolated: globalThis.crossOriginIsolated === true, timerResolutionMs: resolutionMs,
    options, model: { attention: info.attention, weightType: info.weightType, A, D, V, outputDim: O, maxSourceTokens: maxS, sourceEos: eos === 1, parameterCount: info.parameterCount },
    textTokens: textS, textLines: a.lines.length, notes, rows, coreGrid,
    output: { kernel: int8 ? 'kb_matvec_i8 (int8, q32 layout, SIMD128 twin)' : 'kb_matvec (f32, p24 layout, SIMD128 twin)', rows: V, cols: O, iters: outputIters, minUs: out.min, medianUs: out.median, n: out.n },
    checksum: Number.isFinite(sink) ? 0 : 1,
  };
}

/** S at which the core's time (min) first reaches `fraction` of the output
 * layer's (linear between the grid's points); null if not within the grid. */
export function crossing(coreGrid, fraction) {
  for (let i = 0; i < coreGrid.length; i++) {
    const g = coreGrid[i];
    if (g.vsOutput < fraction) continue;
    if (i === 0) return { S: g.S, atOrBelow: true };
    const p = coreGrid[i - 1];
    return { S: p.S + ((fraction - p.vsOutput) / (g.vsOutput - p.vsOutput)) * (g.S - p.S), atOrBelow: false };
  }
  return null;
}

/**
 * Measures the growth in Chromium. browser: a launched playwright-core
 * Chromium (bench.mjs browserBench's flags). Returns a JSON-able result:
 * { chromium, model, variant, rows: [{ S, T, wholeMs, decodeMs, stepMs, coreUs, share, ... }],
 *   coreGrid: [{ S, medianUs, vsOutput }], output: { medianUs, ... }, crossings, ... }.
 */
export async function growthBench(browser, { quick = false } = {}) {
  const { startServer } = await import('../../web/tools/serve.mjs');
  const model = pageModel();
  const kernels = join(ROOT, 'build', 'bench', 'kernels_bench.wasm');
  if (!existsSync(kernels)) throw new Error('build/bench/kernels_bench.wasm is missing: run ./build.sh bench --build-only');
  const lines = TEXT_FILES.flatMap((f) => readFileSync(join(ROOT, f), 'utf8').split('\n').map((l) => l.trim()).filter(Boolean));
  const html = '<!doctype html><meta charset="utf-8"><title>growth</title>\n';
  const server = await startServer({
    root: ROOT, port: 0, headers: () => ISOLATION_HEADERS,
    intercept: (req, res, rel) => {
      if (rel !== PAGE) return false;
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', ...ISOLATION_HEADERS }).end(html);
      return true;
    },
  });
  let context = null;
  try {
    context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url.replace(/\/$/, '')}${PAGE}`);
    const t0 = performance.now();
    const r = await page.evaluate(measureInPage, {
      modelUrl: model.url, kernelsUrl: '/build/bench/kernels_bench.wasm', lines,
      lengths: quick ? GROWTH_LENGTHS_QUICK : GROWTH_LENGTHS, coreGrid: quick ? CORE_GRID_QUICK : CORE_GRID,
      rounds: quick ? 2 : 10, reps: quick ? 1 : 3, gridRounds: quick ? 2 : 15,
      warmMs: quick ? 150 : 2000, minSampleMs: quick ? 0.5 : 2,
    });
    if (r.checksum !== 0) throw new Error('kernels_bench returned a non-finite checksum');
    delete r.checksum;
    return {
      quick, chromium: browser.version(), modelFile: model.file, modelId: model.id, text: TEXT_FILES, wallMs: performance.now() - t0, ...r,
      crossings: { p10: crossing(r.coreGrid, 0.1), p50: crossing(r.coreGrid, 0.5) },
    };
  } finally {
    await context?.close();
    await server.close();
  }
}

// ---- Markdown ----------------------------------------------------------------

const fx = (x, d = 2) => (x == null || !Number.isFinite(x) ? '–' : x.toFixed(d));
const pct = (x, d = 0) => (x == null || !Number.isFinite(x) ? '–' : `${(100 * x).toFixed(d)} %`);

/** Markdown lines for a growthBench() result. */
export function growthLines(r) {
  const m = r.model;
  const lines = [`### How cost grows with source length (Chromium ${r.chromium})`, ''];
  lines.push(`The page's path: web/engine.js with the build the page picks (bestVariant(): ${r.variant}, ${r.variantName}; kernels ${r.isa}), ` +
    `the page's default model ${r.modelFile} (${m.weightType} weights, ${m.attention} attention, A = ${m.A}, D = ${m.D}, V = ${m.V}, output dim ${m.outputDim}), ` +
    `${r.options.topK} candidates per step (CONFIG.topK), scoreScale ${r.options.scoreScale}, on the page's main thread` +
    `${r.crossOriginIsolated ? `, cross-origin isolated (timer step ${fx(r.timerResolutionMs * 1e3, 0)} µs)` : ` (timer step ${fx(r.timerResolutionMs * 1e3, 0)} µs)`}. ` +
    `Sources: the lines of ${r.text.join(' + ')} in turn, each source running from the start of one line to the word boundary whose token count is nearest its target (the earliest such line). ` +
    `whole = a new source (encoder + greedy decode + reading the trace into JS); decode = the same source again, encoder reused (the √d slider's path); ` +
    `ms/step = decode / T; median (min) over ${r.rows[0]?.decodeMs.n ?? 0} samples each. ` +
    `Attention core = build/bench/kernels_bench.wasm kb_attention (additive scores + softmax + context, SIMD128 twin) at the same S, A and D, timed in the same page between the translations; ` +
    `share = T × core / decode, from the medians (from the minima); core / output layer and the grid below compare the two kernels' minima.`, '');
  lines.push('| S (target) | T | whole ms | decode ms | ms/step | attention core µs/step | share % | core / output layer |', '|---|---|---|---|---|---|---|---|');
  for (const row of r.rows) {
    lines.push(`| ${row.S} (${row.targets.join(', ')}) | ${row.T}${row.stoppedAtEos ? '' : ' (cap)'} | ${fx(row.wholeMs.median)} (${fx(row.wholeMs.min)}) | ${fx(row.decodeMs.median)} (${fx(row.decodeMs.min)}) | ` +
      `${fx(row.stepMs.median, 3)} (${fx(row.stepMs.min, 3)}) | ${fx(row.coreUs.median, 2)} (${fx(row.coreUs.min, 2)}) | ${pct(row.share, 1)} (${pct(row.shareMin, 1)}) | ${pct(row.coreVsOutput, 0)} |`);
  }
  lines.push('');
  const o = r.output;
  const at = (c) => (c == null ? `beyond S = ${r.coreGrid.at(-1)?.S}` : c.atOrBelow ? `S ≤ ${c.S}` : `S ≈ ${Math.round(c.S)}`);
  const beyond = (c) => (c && !c.atOrBelow && c.S > m.maxSourceTokens ? ` (past the model's ${m.maxSourceTokens} source tokens: the kernel alone)` : '');
  lines.push(`The output layer's product per step, for comparison: ${o.rows}×${o.cols} with ${o.kernel}: ${fx(o.minUs, 1)} µs min (${fx(o.medianUs, 1)} median). ` +
    `The attention core per step reaches 10 % of it at ${at(r.crossings.p10)}${beyond(r.crossings.p10)} and 50 % at ${at(r.crossings.p50)}${beyond(r.crossings.p50)} (linear between the grid's points below).`, '');
  lines.push(`| attention core alone | ${r.coreGrid.map((g) => `S=${g.S}`).join(' | ')} |`, `|---|${r.coreGrid.map(() => '---').join('|')}|`);
  lines.push(`| µs (min) | ${r.coreGrid.map((g) => fx(g.minUs, 2)).join(' | ')} |`);
  lines.push(`| % of the output layer | ${r.coreGrid.map((g) => pct(g.vsOutput, 0)).join(' | ')} |`, '');
  // The sentences, from the numbers: the row nearest S = 16 and the longest.
  const rows = r.rows;
  if (rows.length >= 2) {
    const mid = rows.slice(0, -1).reduce((b, x) => (Math.abs(x.S - 16) < Math.abs(b.S - 16) ? x : b));
    const first = rows[0], last = rows.at(-1);
    lines.push(`The attention core is ${pct(mid.share, 1)} of the decode at S = ${mid.S} and ${pct(last.share, 1)} at S = ${last.S} ` +
      `(from the minima ${pct(mid.shareMin, 1)} and ${pct(last.shareMin, 1)}); ` +
      `a decoder step takes ${fx(first.stepMs.median, 3)} ms at S = ${first.S} and ${fx(last.stepMs.median, 3)} ms at S = ${last.S} (${fx(last.stepMs.median / first.stepMs.median)}×), ` +
      `a whole translation ${fx(first.wholeMs.median)} ms and ${fx(last.wholeMs.median)} ms (T = ${first.T} and ${last.T}). ` +
      `From the minima a step grows by ${fx((last.stepMs.min - first.stepMs.min) * 1e3, 0)} µs between S = ${first.S} and S = ${last.S}, ` +
      `the attention core alone by ${fx(last.coreUs.min - first.coreUs.min, 0)} µs.`, '');
  }
  const notes = [...r.notes];
  if (m.attention !== 'additive') notes.push(`the core timed is the additive kernel, not this model's ${m.attention} attention`);
  if (r.variant === 'relaxed') {
    notes.push(m.weightType === 'int8'
      ? 'the kernel bench has no relaxed-SIMD twin: the core and the output product above are its SIMD128 twins, which are what the relaxed build runs for attention and for int8 products (src/kernels.h)'
      : 'the kernel bench has no relaxed-SIMD twin: the core and the output product above are its SIMD128 twins; the relaxed build runs the same attention kernels but its own f32 (relaxed madd) products, so the output layer\'s time here is what the SIMD128 build pays');
  } else if (r.variant === 'scalar') {
    notes.push('the page runs the scalar build here, but the core and the output product above are the SIMD128 twins');
  }
  if (m.maxSourceTokens < 100) notes.push(`the model accepts at most ${m.maxSourceTokens} source tokens, so S = 100 does not fit`);
  if (r.rows.some((x) => !x.stoppedAtEos)) notes.push('"(cap)": decoding stopped at the step cap, not at </s>');
  if (notes.length) lines.push(`Notes: ${notes.join('; ')}.`, '');
  return lines;
}

/** Target rows: context only (no goal): the core's share at the longest source. */
export function growthTargets(r) {
  const last = r?.rows?.at(-1);
  if (!last) return [];
  return [{ name: `attention core, share of the decode at S = ${last.S} (Chromium, the page's build and model)`, value: last.share, range: null, goal: null, met: null, unit: '' }];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const { launchChromium } = await import('../support/chromium.mjs');
  const browser = await launchChromium();
  let r;
  try {
    r = await growthBench(browser, { quick });
  } finally {
    await browser.close();
  }
  if (args.includes('--json')) {
    const file = args[args.indexOf('--json') + 1];
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(r, null, 1)}\n`);
  }
  console.log(args.includes('--markdown') ? growthLines(r).join('\n') : JSON.stringify(r, null, 1));
}
