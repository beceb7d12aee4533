// Shared helpers for the engine tests: paths, engines, model-file surgery.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const TEST_MODELS = join(ROOT, 'build', 'test-models');
export const NATIVE_CLI = join(ROOT, 'build', 'native', 'alignscope');
export const KINDS = ['additive', 'dot', 'general', 'scaled_dot', 'none'];
// Test models also exported with int8 weights (models/train/smoke.py INT8_KINDS): `${kind}-int8`.
export const INT8_KINDS = ['additive'];
export const VARIANTS = ['simd', 'scalar'];
export const PYTHON = '/usr/bin/python3';

// Engine vs PyTorch (tests/parity.test.mjs, tests/twins.test.mjs): alpha
// within 1e-4, raw scores within 1e-3 (relative to max(1,|x|)), context
// within 1e-4 (same), candidate probabilities within 1e-4. int8 files: the
// engine also quantises each product's input to int16 (src/kernels.h),
// PyTorch computes with f32 inputs; 16-bit inputs move the real model's
// probabilities by up to ~3e-4 (alpha ~2e-5 to 2e-4), so int8 files get
// probabilities within 1e-3, alpha within 5e-4 or as far as the row's score
// differences explain (alphaRowTolerance: en-fr-general's 6,000-update
// scores reach ±400, and its α differs by up to 7e-4), context within 5e-4, raw scores within 5e-3 (a dot score
// sums 512 such products) (the greedy tokens and the top-5 ids must still
// match exactly).
export const TOLERANCES = {
  default: { alpha: 1e-4, scores: 1e-3, context: 1e-4, probs: 1e-4 },
  int8: { alpha: 5e-4, scores: 5e-3, context: 5e-4, probs: 1e-3 },
};

/**
 * How far one row of the engine's α may be from PyTorch's: α = softmax(scale · s),
 * so scores that differ by at most δ after the scale move each α_j by at most
 * α_j (e^{2δ} − 1). A model whose raw scores run to the hundreds (Luong general's
 * sᵀWh in en-fr-general: ±400) turns the int8 build's small relative score error
 * (checked on its own) into an α difference above the fixed tolerance; this
 * bound follows from the score differences measured in the same row, so an α
 * that strays further than its scores explain still fails.
 * @param {number} tolAlpha  the fixed tolerance (TOLERANCES.*.alpha)
 * @param {number[]} wantAlpha, wantScores, gotScores  one row each (S numbers)
 * @param {number} scale  the score scale the row was decoded with
 * @returns {number[]} S bounds
 */
export function alphaRowTolerance(tolAlpha, wantAlpha, wantScores, gotScores, scale) {
  const delta = Math.max(0, ...wantScores.map((x, j) => Math.abs(gotScores[j] - x) * Math.abs(scale)));
  return wantAlpha.map((a) => tolAlpha + a * Math.expm1(2 * delta));
}

/**
 * How far one step's context vector may be from PyTorch's: c = Σ_j α_j h_j, and
 * every annotation component is a GRU state, |h_j,i| < 1, so the α difference
 * measured in that row (already held to alphaRowTolerance) moves each component
 * by at most Σ_j |Δα_j|; tolContext covers the annotations' own error. A dot
 * model whose rows are sharp (en-fr-dot) turns a 3e-4 α difference into a
 * 5e-4 context difference, over the fixed tolerance alone.
 * @returns {number} the bound for every component of that step's context
 */
export function contextTolerance(tolContext, wantAlpha, gotAlpha) {
  return tolContext + wantAlpha.reduce((sum, a, j) => sum + Math.abs(gotAlpha[j] - a), 0);
}

/** softmax(scale · row), for checking an engine's α against its own scores. */
export function softmaxRow(row, scale) {
  const m = Math.max(...row.map((x) => x * scale));
  const e = row.map((x) => Math.exp(x * scale - m));
  const z = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / z);
}

const { createEngine, AlignscopeError, simdSupported } = await import(join(ROOT, 'web', 'engine.js'));
export { createEngine, AlignscopeError, simdSupported };

export function requireBuilt() {
  for (const f of ['web/gen/alignscope-simd.wasm', 'web/gen/alignscope-scalar.wasm', 'build/native/alignscope']) {
    if (!existsSync(join(ROOT, f))) throw new Error(`${f} is missing: run ./build.sh native && ./build.sh wasm`);
  }
  if (!existsSync(join(TEST_MODELS, 'additive.alsc'))) {
    throw new Error('build/test-models is missing: run ./build.sh models (or ./build.sh test)');
  }
}

export function modelBytes(kind) {
  return new Uint8Array(readFileSync(join(TEST_MODELS, `${kind}.alsc`)));
}

export async function engineWith(variant, kind) {
  const engine = await createEngine({ variant });
  if (kind) engine.load(modelBytes(kind));
  return engine;
}

/** Every parity fixture: the test models', and models/fixtures/*.parity.json when present. */
export function fixtureFiles() {
  const out = [];
  for (const kind of [...KINDS, ...INT8_KINDS.map((k) => `${k}-int8`)]) {
    const file = join(TEST_MODELS, `${kind}.parity.json`);
    out.push({ name: `test-models/${kind}`, fixture: file, model: join(TEST_MODELS, `${kind}.alsc`) });
  }
  // The PyTorch tutorial's architecture, converted (tests/support/tutorial_model.py),
  // the additive kind on cased subword pieces and the same with layer-normalised
  // GRUs (arch_flags layer_norm) (models/train/smoke.py).
  for (const name of ['tutorial', 'tutorial-int8', 'subwords', 'subwords-int8', 'layer-norm', 'layer-norm-int8']) {
    out.push({ name: `test-models/${name}`, fixture: join(TEST_MODELS, `${name}.parity.json`), model: join(TEST_MODELS, `${name}.alsc`) });
  }
  const dir = join(ROOT, 'models', 'fixtures');
  if (existsSync(dir)) {
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.parity.json')).sort()) {
      const fx = JSON.parse(readFileSync(join(dir, f), 'utf8'));
      out.push({ name: `models/${fx.model}`, fixture: join(dir, f), model: join(ROOT, 'models', fx.model ?? f.replace('.parity.json', '.alsc')) });
    }
  }
  return out;
}

export function runNative(args, input) {
  const r = spawnSync(NATIVE_CLI, args, { input, maxBuffer: 256 << 20 });
  return { status: r.status, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
}

// ---- model-file surgery ------------------------------------------------------

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[i] = c >>> 0;
  }
  return t;
})();

export function crc32(bytes, start = 0xffffffff) {
  let c = start;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export const OFF = {
  magic: 0, version: 8, headerSize: 12, kind: 16, weightType: 20, srcVocab: 24, tgtVocab: 28, embed: 32,
  encHidden: 36, decHidden: 40, attnDim: 44, outDim: 48, maxSrc: 52, maxTgt: 56, scale: 60,
  vocabBytes: 64, tensorBytes: 68, crc: 72, srcLang: 76, tgtLang: 84, archFlags: 92,
};
export const HEADER_SIZE = 96;

// The format version the engine reads, from its one definition (src/alignscope_format.h).
export const FORMAT_VERSION = Number(readFileSync(join(ROOT, 'src', 'alignscope_format.h'), 'utf8')
  .match(/#define AS_FORMAT_VERSION (\d+)u/)[1]);

/**
 * The CRC-32 a file's header must hold (models/FORMAT.md section 1): every
 * byte, the header included, with the 4 bytes of the crc32 field read as 0.
 * Written here from the rule, apart from src/model.c and export.py.
 */
export function fileCrc(bytes) {
  const zeroed = bytes.slice();
  zeroed.fill(0, OFF.crc, OFF.crc + 4);
  return crc32(zeroed);
}

export function readU32(bytes, off) { return new DataView(bytes.buffer, bytes.byteOffset).getUint32(off, true); }
/** A copy with the CRC rewritten, so that only the intended damage is seen. */
export function fixCrc(bytes) {
  const out = bytes.slice();
  if (out.length >= HEADER_SIZE) new DataView(out.buffer).setUint32(OFF.crc, fileCrc(out), true);
  return out;
}
/** A copy with one header (or body) u32 changed, raw: the CRC no longer matches. */
export function rawU32(bytes, off, value) {
  const out = bytes.slice();
  new DataView(out.buffer).setUint32(off, value >>> 0, true);
  return out;
}
/** A copy with one u32 changed and the CRC rewritten (the file's CRC covers
 * the header, so without it every edit would read as damage). */
export function withU32(bytes, off, value) { return fixCrc(rawU32(bytes, off, value)); }
export function withF32(bytes, off, value) {
  const out = bytes.slice();
  new DataView(out.buffer).setFloat32(off, value, true);
  return fixCrc(out);
}
