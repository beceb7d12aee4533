// engine.js - the alignscope inference engine for JavaScript: one ES module,
// no dependencies, the same code in Node 20, browsers and Web Workers.
//
// It instantiates a STANDALONE wasm module built by `./build.sh wasm`
// (web/gen/alignscope-{relaxed,simd,scalar}.wasm; no Emscripten JS glue), calls the
// flat asw_* functions of src/wasm_api.c, and copies every result out of wasm
// memory, so what translate() returns stays valid after the next call and can
// be transferred from a worker.
//
//   const engine = await createEngine({ variant: 'simd' });
//   const info = engine.load(modelBytes);
//   const result = engine.translate('Open the file', { scoreScale: 1 });

export const STATUS_CODES = [
  'AS_OK', 'AS_ERR_NULL_ARGUMENT', 'AS_ERR_TOO_SHORT', 'AS_ERR_BAD_MAGIC', 'AS_ERR_VERSION_TOO_NEW',
  'AS_ERR_VERSION_UNSUPPORTED', 'AS_ERR_BAD_HEADER', 'AS_ERR_SIZE_MISMATCH', 'AS_ERR_CHECKSUM',
  'AS_ERR_BAD_VOCABULARY', 'AS_ERR_BAD_WEIGHTS', 'AS_ERR_OUT_OF_MEMORY', 'AS_ERR_EMPTY_INPUT',
  'AS_ERR_INPUT_TOO_LONG', 'AS_ERR_BAD_OPTION', 'AS_ERR_UNKNOWN_FEATURE', 'AS_ERR_BAD_SEGMENTATION',
  'AS_ERR_BAD_ATTENTION_OVERRIDE', 'AS_ERR_OVERRIDE_STEP', 'AS_ERR_BAD_BEAM_WIDTH', 'AS_ERR_BEAM_TOO_LARGE',
  'AS_ERR_BAD_SOURCE_TOKEN', 'AS_ERR_BAD_TARGET', 'AS_ERR_BAD_ATTENTION_MASK',
];
export const BEAM_MAX_WIDTH = 8; // AS_BEAM_MAX_WIDTH in src/alignscope.h
export const MAX_LENGTH_PENALTY = 4; // AS_MAX_LENGTH_PENALTY
// How the page and the element decode unless a link or the reader says
// otherwise: a beam of DEFAULT_BEAM_WIDTH ranked with DEFAULT_LENGTH_PENALTY
// (AS_DEFAULT_BEAM_WIDTH, AS_DEFAULT_LENGTH_PENALTY: chosen once, in C, for
// the CLI too). Width 1 is greedy.
export const DEFAULT_BEAM_WIDTH = 5; // AS_DEFAULT_BEAM_WIDTH
export const DEFAULT_LENGTH_PENALTY = 1; // AS_DEFAULT_LENGTH_PENALTY
export const ATTENTION_KINDS = ['none', 'additive', 'dot', 'general', 'scaled_dot'];
const WEIGHT_TYPES = ['f32', 'f16', 'int8'];
const TOKEN_TEXT_STRIDE = 256; // AS_TOKEN_TEXT_STRIDE in src/alignscope.h
const SPECIAL_TOKENS = { PAD: 0, UNK: 1, BOS: 2, EOS: 3 }; // as_special_token
const { UNK, EOS } = SPECIAL_TOKENS;
const INPUT_TOO_LONG = STATUS_CODES.indexOf('AS_ERR_INPUT_TOO_LONG');
const BAD_SOURCE_TOKEN = STATUS_CODES.indexOf('AS_ERR_BAD_SOURCE_TOKEN');
const BAD_TARGET = STATUS_CODES.indexOf('AS_ERR_BAD_TARGET');
const BAD_ATTENTION_MASK = STATUS_CODES.indexOf('AS_ERR_BAD_ATTENTION_MASK');
// The longest side as_window_mask takes (AS_WINDOW_MAX_LENGTH in src/alignscope.h).
const WINDOW_MAX_LENGTH = 4096;

// These tables copy definitions of the C library (status codes and
// as_attention_kind / as_weight_type / as_arch_flag in src/alignscope.h and
// src/alignscope_format.h, INFO_FIELDS and TRACE_FIELDS in src/wasm_api.c);
// tests/definitions.test.mjs checks every entry against the C source.
// Field numbers of asw_info() and asw_trace() (src/wasm_api.c).
const INFO = {
  formatVersion: 0, attention: 1, weightType: 2, srcVocabSize: 3, tgtVocabSize: 4, embedDim: 5,
  encoderHidden: 6, decoderHidden: 7, attentionDim: 8, outputDim: 9, maxSourceTokens: 10,
  maxTargetTokens: 11, trainedScoreScale: 12, keyDim: 13, parameterCount: 14, archFlags: 15, contextDim: 16,
};
// arch_flags bits (src/alignscope_format.h, models/FORMAT.md 1.1) -> info.architecture keys.
const ARCH_FLAGS = {
  unidirectional: 1, initFromEncoder: 2, attentionBias: 4, directOutput: 8, sourceEos: 16, tutorialTokenizer: 32,
  subwords: 64, layerNorm: 128,
};
const TRACE = {
  S: 0, sourceIds: 1, sourceSpans: 2, sourceTokens: 3, T: 4, targetIds: 5, copySource: 6, scores: 7,
  alpha: 8, context: 9, contextDim: 10, state: 11, stateDim: 12, topK: 13, topIds: 14, topProbs: 15,
  stoppedAtEos: 16, encoderReused: 17, translation: 18, translationSpans: 19, sourceEos: 20,
  sourceWords: 21, sourceWordCount: 22, targetWords: 23, targetWordCount: 24,
};
// Field numbers of asw_hypothesis() (HYPOTHESIS_FIELDS in src/wasm_api.c).
const HYPOTHESIS = { logProb: 0, score: 1, stepLogProbs: 2 };

/** The copies above, for tests/definitions.test.mjs (read-only). */
export const DEFINITIONS = Object.freeze({
  STATUS_CODES, ATTENTION_KINDS, WEIGHT_TYPES, TOKEN_TEXT_STRIDE, INFO, ARCH_FLAGS, TRACE, SPECIAL_TOKENS,
  HYPOTHESIS, BEAM_MAX_WIDTH, MAX_LENGTH_PENALTY, DEFAULT_BEAM_WIDTH, DEFAULT_LENGTH_PENALTY, WINDOW_MAX_LENGTH,
});

const utf8Decoder = new TextDecoder('utf-8');
const utf8Encoder = new TextEncoder();

/**
 * Tokens (each with .word, its word index, consecutive from 0) -> words:
 * [{...describe(firstToken, lastToken), first, count}], tokens first ...
 * first + count - 1 in each.
 */
function groupWords(tokens, describe) {
  const words = [];
  for (let i = 0; i < tokens.length;) {
    let j = i + 1;
    while (j < tokens.length && tokens[j].word === tokens[i].word) j++;
    words.push({ ...describe(tokens[i], tokens[j - 1]), first: i, count: j - i });
    i = j;
  }
  return words;
}

/** An error from the C engine: `code` is the as_status name, `status` its number. */
export class AlignscopeError extends Error {
  constructor(status, message) {
    super(message);
    this.name = 'AlignscopeError';
    this.status = status;
    this.code = STATUS_CODES[status] ?? `AS_STATUS_${status}`;
  }
}

// The smallest module that uses a SIMD128 instruction: (func (result v128) i32.const 0 i8x16.splat)
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 8, 1, 6, 0, 65, 0, 253, 15, 11,
]);

// The smallest module that uses a relaxed-SIMD instruction (standard
// encoding, 0xfd 0x105): (func (result v128) three i8x16.splat of 0, then
// f32x4.relaxed_madd). Validates in Chromium 114+, in Node 20 only with
// --experimental-wasm-relaxed-simd.
const RELAXED_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 19, 1, 17, 0,
  65, 0, 253, 15, 65, 0, 253, 15, 65, 0, 253, 15, 253, 133, 2, 11,
]);

function validates(probe) {
  try {
    return WebAssembly.validate(probe);
  } catch {
    return false;
  }
}

/** True when this runtime can run the SIMD build. */
export function simdSupported() {
  return validates(SIMD_PROBE);
}

// A module whose f() returns lane 0 of
// i32x4.relaxed_dot_i8x16_i7x16_add_s(splat(-3), splat(5), splat(7)):
// 4 * (-3 * 5) + 7 = -53 (b's bytes in [0, 127], so one answer everywhere).
// Node 20 (V8 11.3) with --experimental-wasm-relaxed-simd validates the
// instruction but returns -120 (twice the dot product, no accumulator), and
// would turn every int8 product of the relaxed build into noise.
const RELAXED_DOT_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 127, 3, 2, 1, 0, 7, 5, 1, 1, 102, 0, 0, 10, 22, 1, 20, 0,
  65, 125, 253, 15, 65, 5, 253, 15, 65, 7, 253, 17, 253, 147, 2, 253, 27, 0, 11,
]);

/**
 * Why this runtime cannot run the relaxed-SIMD build, or null when it can:
 * it must validate relaxed SIMD and compute the 8-bit dot product right.
 */
export function relaxedSimdProblem() {
  if (!simdSupported() || !validates(RELAXED_PROBE)) {
    return 'this runtime has no WebAssembly relaxed SIMD (Node 20 needs --experimental-wasm-relaxed-simd)';
  }
  try {
    const got = new WebAssembly.Instance(new WebAssembly.Module(RELAXED_DOT_PROBE)).exports.f();
    if (got !== -53) return `this runtime computes i32x4.relaxed_dot_i8x16_i7x16_add_s wrongly (${got} for -53)`;
  } catch (err) {
    return `this runtime cannot run a relaxed-SIMD module (${err.message})`;
  }
  return null;
}

/** True when this runtime can run the relaxed-SIMD build (relaxedSimdProblem() is null). */
export function relaxedSimdSupported() {
  return relaxedSimdProblem() === null;
}

/** The builds, fastest first: web/gen/alignscope-VARIANT.wasm. */
export const VARIANTS = Object.freeze(['relaxed', 'simd', 'scalar']);
/** What each build is, in words (the page and the bench say which one runs). */
export const VARIANT_NAMES = Object.freeze({
  relaxed: 'relaxed SIMD', simd: 'SIMD128', scalar: 'scalar (no SIMD)',
});

/** The fastest build this runtime can run: relaxed SIMD, then SIMD128, then scalar. */
export function bestVariant() {
  if (relaxedSimdSupported()) return 'relaxed';
  return simdSupported() ? 'simd' : 'scalar';
}

const isNode = typeof process !== 'undefined' && !!process.versions?.node;

async function fetchBytes(url) {
  if (isNode && url.protocol === 'file:') {
    const [{ readFile }, { fileURLToPath }] = await Promise.all([import('node:fs/promises'), import('node:url')]);
    return readFile(fileURLToPath(url));
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`alignscope: cannot fetch ${url} (HTTP ${response.status})`);
  return new Uint8Array(await response.arrayBuffer());
}

/**
 * Instantiates the engine. variant: 'relaxed', 'simd', 'scalar' or 'auto'
 * (bestVariant(): the fastest this runtime validates). wasmBytes / wasmUrl
 * override where the module comes from.
 */
export async function createEngine({ variant = 'simd', wasmBytes, wasmUrl } = {}) {
  if (variant === 'auto') variant = bestVariant();
  if (!VARIANTS.includes(variant)) throw new TypeError(`alignscope: unknown variant ${variant}`);
  if (variant === 'simd' && !wasmBytes && !simdSupported()) {
    throw new Error('alignscope: this runtime has no WebAssembly SIMD; use variant "scalar"');
  }
  if (variant === 'relaxed') {
    const problem = relaxedSimdProblem();
    if (problem) throw new Error(`alignscope: ${problem}; use variant "simd"`);
  }
  const imports = {
    // Standalone wasm reports memory growth; views are re-made after every call anyway.
    env: { emscripten_notify_memory_growth() {} },
  };
  let instance;
  let streamed = false;
  if (wasmBytes) {
    ({ instance } = await WebAssembly.instantiate(wasmBytes instanceof ArrayBuffer ? wasmBytes : toExactBuffer(wasmBytes), imports));
  } else {
    const url = wasmUrl ? new URL(wasmUrl, import.meta.url) : new URL(`./gen/alignscope-${variant}.wasm`, import.meta.url);
    ({ instance, streamed } = await instantiateFrom(url, imports));
  }
  instance.exports._initialize?.();
  return new Engine(instance, variant, { streamed });
}

/**
 * The module at `url`, instantiated: compiled while it downloads
 * (WebAssembly.instantiateStreaming) where the server calls it
 * application/wasm, which streaming compilation requires; from its bytes
 * otherwise (a file: URL in Node, a host with another MIME type). One fetch
 * either way. → { instance, streamed }
 */
async function instantiateFrom(url, imports) {
  if ((isNode && url.protocol === 'file:') || typeof WebAssembly.instantiateStreaming !== 'function') {
    const { instance } = await WebAssembly.instantiate(toExactBuffer(await fetchBytes(url)), imports);
    return { instance, streamed: false };
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`alignscope: cannot fetch ${url} (HTTP ${response.status})`);
  const type = (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/wasm') {
    const { instance } = await WebAssembly.instantiateStreaming(response, imports);
    return { instance, streamed: true };
  }
  const { instance } = await WebAssembly.instantiate(await response.arrayBuffer(), imports);
  return { instance, streamed: false };
}

function toExactBuffer(view) {
  if (view.byteOffset === 0 && view.byteLength === view.buffer.byteLength) return view;
  return view.slice();
}

class Engine {
  #x; // wasm exports
  #info = null;
  #tgtTokens = []; // decoded target vocabulary, filled lazily
  #disposed = false;

  constructor(instance, variant, { streamed = false } = {}) {
    this.#x = instance.exports;
    this.variant = variant;
    // Whether the module was compiled while it downloaded (WebAssembly.instantiateStreaming).
    this.streamed = streamed;
    this.isa = this.#string(this.#x.asw_kernel_isa());
  }

  // ---- memory helpers ----------------------------------------------------
  get #memory() { return this.#x.memory.buffer; }

  #string(ptr, length) {
    if (!ptr) return '';
    const heap = new Uint8Array(this.#memory);
    let end = ptr;
    if (length === undefined) while (heap[end] !== 0) end++;
    else end = ptr + length;
    return utf8Decoder.decode(heap.subarray(ptr, end));
  }

  #copyI32(ptr, n) { return ptr ? new Int32Array(this.#memory, ptr, n).slice() : new Int32Array(n); }
  #copyF32(ptr, n) { return ptr ? new Float32Array(this.#memory, ptr, n).slice() : new Float32Array(n); }

  #check(status) {
    if (status !== 0) throw new AlignscopeError(status, this.#string(this.#x.asw_status_message(status)));
  }

  #alive() {
    if (this.#disposed) throw new Error('alignscope: engine was disposed');
  }

  // Copies bytes into wasm memory, runs fn(ptr, length), frees them.
  #withBytes(bytes, fn) {
    const ptr = this.#x.asw_malloc(bytes.length);
    if (!ptr) throw new AlignscopeError(11, this.#string(this.#x.asw_status_message(11)));
    try {
      new Uint8Array(this.#memory, ptr, bytes.length).set(bytes);
      return fn(ptr, bytes.length);
    } finally {
      this.#x.asw_free(ptr);
    }
  }

  // ---- API ---------------------------------------------------------------
  /** Loads a model (.alsc bytes), replacing any loaded one. Returns its info. */
  load(modelBytes) {
    this.#alive();
    const bytes = modelBytes instanceof Uint8Array ? modelBytes
      : ArrayBuffer.isView(modelBytes) ? new Uint8Array(modelBytes.buffer, modelBytes.byteOffset, modelBytes.byteLength)
        : new Uint8Array(modelBytes);
    this.#check(this.#withBytes(bytes, (ptr, len) => this.#x.asw_load(ptr, len)));
    const f = (k) => this.#x.asw_info(INFO[k]);
    // A module built before format 3 answers -1 for fields it lacks.
    const archFlags = Math.max(0, f('archFlags'));
    const architecture = Object.fromEntries(Object.entries(ARCH_FLAGS).map(([k, bit]) => [k, (archFlags & bit) !== 0]));
    this.#info = {
      attention: ATTENTION_KINDS[f('attention')],
      sourceLanguage: this.#string(this.#x.asw_language(0)),
      targetLanguage: this.#string(this.#x.asw_language(1)),
      srcVocabSize: f('srcVocabSize'), tgtVocabSize: f('tgtVocabSize'),
      embedDim: f('embedDim'), encoderHidden: f('encoderHidden'), decoderHidden: f('decoderHidden'),
      attentionDim: f('attentionDim'), keyDim: f('keyDim'), outputDim: f('outputDim'),
      maxSourceTokens: f('maxSourceTokens'), maxTargetTokens: f('maxTargetTokens'),
      trainedScoreScale: f('trainedScoreScale'), parameterCount: f('parameterCount'),
      weightType: WEIGHT_TYPES[f('weightType')], formatVersion: f('formatVersion'),
      // format 3: archFlags (the raw bits) and the same as booleans; contextDim = C (2He, or He)
      archFlags, architecture,
      tokenizer: architecture.tutorialTokenizer ? 'tutorial' : architecture.subwords ? 'subwords' : 'alignscope',
      contextDim: f('contextDim') > 0 ? f('contextDim') : 2 * f('encoderHidden'),
      // which build multiplies: 'relaxed', 'simd' or 'scalar', and its kernels (asw_kernel_isa)
      build: this.variant, isa: this.isa,
    };
    this.#tgtTokens = new Array(this.#info.tgtVocabSize);
    return { ...this.#info };
  }

  /** Info of the loaded model, or null. */
  get info() { return this.#info ? { ...this.#info } : null; }

  /** A target-vocabulary token by id. */
  targetToken(id) {
    let s = this.#tgtTokens[id];
    if (s === undefined) s = this.#tgtTokens[id] = this.#string(this.#x.asw_token(1, id));
    return s;
  }

  /** A source-vocabulary token by id. */
  sourceToken(id) { return this.#string(this.#x.asw_token(0, id)); }

  /**
   * Translates `text` greedily. scoreScale: the multiplier before the
   * softmax (the page's sqrt(d) slider; omitted/<=0 = the trained value).
   * topK: candidates per step (0..16). maxTargetTokens: optional extra cap
   * on decoding steps. overrides: [{ step, weights }], alpha at decoder step
   * `step` forced to `weights` (S numbers, finite, >= 0, not all zero; the
   * engine divides them by their sum); later steps follow from it.
   * cutSource: a text of more than maxSourceTokens tokens is read up to its
   * first maxSourceTokens tokens instead of refused (the trace's
   * sourceCount then says how many the whole text has, cut: true).
   * window: null (global attention) or D ≥ 0, the local-m window of half
   * width D at every step, centred on p_t = round(t (S − 1) / (T − 1)) with
   * T = windowSteps, the reference length (the page passes the global
   * translation's T; steps from T − 1 on stay at the last source position:
   * src/alignscope.h as_options.window_half_width). Not with overrides.
   */
  translate(text, { scoreScale = 0, topK = 5, maxTargetTokens = 0, overrides = [], cutSource = false, window = null,
    windowSteps = 0 } = {}) {
    this.#alive();
    if (!this.#info) throw new AlignscopeError(1, 'alignscope: no model loaded (call load() first)');
    if (typeof text !== 'string') throw new TypeError('alignscope: text must be a string');
    const bytes = utf8Encoder.encode(text);
    const t0 = (globalThis.performance ?? Date).now();
    const status = this.#withOverrides(overrides, (meta, weights, count) => this.#withBytes(bytes, (ptr, len) =>
      this.#x.asw_translate(ptr, len, scoreScale == null ? 0 : Number(scoreScale), topK | 0, maxTargetTokens | 0,
        meta, weights, count, cutSource ? 1 : 0, ...windowArgs(window, windowSteps))));
    const elapsedMs = (globalThis.performance ?? Date).now() - t0;
    if (status === INPUT_TOO_LONG) this.#tooLong();
    this.#check(status);
    return this.#readTrace(text, bytes, elapsedMs);
  }

  /**
   * Beam search with beamWidth hypotheses (1..8; src/alignscope.h
   * as_translate_beam). Options as translate(), plus lengthPenalty: the
   * hypotheses are ranked by logProb / T^lengthPenalty (0..4, default 1,
   * the mean log-probability per token; T counts </s>). Returns
   * { hypotheses, beamWidth, lengthPenalty, elapsedMs }: every final
   * hypothesis, best first, each a translate() result plus logProb (natural
   * log of p(y | x)), score and stepLogProbs (Float32Array(T)). beamWidth 1
   * gives translate()'s result.
   */
  beam(text, { scoreScale = 0, topK = 5, maxTargetTokens = 0, overrides = [], beamWidth = 4,
    lengthPenalty = DEFAULT_LENGTH_PENALTY, cutSource = false, window = null, windowSteps = 0 } = {}) {
    this.#alive();
    if (!this.#info) throw new AlignscopeError(1, 'alignscope: no model loaded (call load() first)');
    if (typeof text !== 'string') throw new TypeError('alignscope: text must be a string');
    const bytes = utf8Encoder.encode(text);
    // A width that is no whole number reaches C as 0: its own message.
    const width = Number.isInteger(beamWidth) && beamWidth >= 0 && beamWidth <= 0x7fffffff ? beamWidth : 0;
    const penalty = typeof lengthPenalty === 'number' ? lengthPenalty : NaN;
    const t0 = (globalThis.performance ?? Date).now();
    const status = this.#withOverrides(overrides, (meta, weights, count) => this.#withBytes(bytes, (ptr, len) =>
      this.#x.asw_translate_beam(ptr, len, scoreScale == null ? 0 : Number(scoreScale), topK | 0,
        maxTargetTokens | 0, meta, weights, count, width, penalty, cutSource ? 1 : 0, ...windowArgs(window, windowSteps))));
    const elapsedMs = (globalThis.performance ?? Date).now() - t0;
    if (status === INPUT_TOO_LONG) this.#tooLong();
    this.#check(status);
    const hypotheses = [];
    for (let h = 0; h < this.#x.asw_hypothesis_count(); h++) {
      this.#x.asw_select_hypothesis(h);
      const trace = this.#readTrace(text, bytes, elapsedMs);
      const field = (k) => this.#x.asw_hypothesis(h, HYPOTHESIS[k]);
      hypotheses.push({
        ...trace, logProb: field('logProb'), score: field('score'),
        stepLogProbs: this.#copyF32(field('stepLogProbs') >>> 0, trace.T),
      });
    }
    return { hypotheses, beamWidth: width, lengthPenalty: penalty, elapsedMs };
  }

  /**
   * Forced decoding (teacher forcing; src/alignscope.h as_force_score): the
   * log-probability of each token of a given target, each step fed the given
   * previous token. source: a string (tokenised as translate() does) or
   * source token ids; target: target token ids (end with 3, </s>, to score
   * the end too). keep: an optional attention mask, T × S values (row t =
   * step t over the S source positions; 1/true keeps, 0/false drops; the
   * softmax runs over the kept ones), or window: D for windowMask(T, S, D);
   * not both. A model without attention ignores the mask. scoreScale as
   * translate(). Returns { S, T, sourceIds, targetIds, logProbs (Float32Array
   * T), logProb (their sum), alpha (Float32Array T × S, null without
   * attention), keep (the Uint8Array used, or null), scoreScale, elapsedMs }.
   * A refused call throws AlignscopeError; err.position names the source or
   * target position or the mask row at fault (-1: none), and the message says it.
   */
  forceScore(source, target, { keep = null, window = null, scoreScale = 0 } = {}) {
    this.#alive();
    if (!this.#info) throw new AlignscopeError(1, 'alignscope: no model loaded (call load() first)');
    const sourceIds = typeof source === 'string' ? Int32Array.from(this.tokenize(source), (t) => t.id) : idArray(source, 'source');
    const targetIds = idArray(target, 'target');
    const T = targetIds.length;
    const S = this.#x.asw_source_positions(sourceIds.length);
    if (keep != null && window != null) throw new TypeError('alignscope: give keep or window, not both');
    let mask = null;
    if (window != null) {
      // Too long a side for a window: the engine's own check says so below (as_force_score).
      mask = T >= 1 && S >= 1 && T <= this.#info.maxTargetTokens ? this.windowMask(T, S, window) : null;
    } else if (keep != null) {
      if (typeof keep.length !== 'number') throw new TypeError('alignscope: keep must be an array of T × S values (0/1 or booleans)');
      // (no source or no target: the engine's own refusal of those comes first)
      if (T >= 1 && S >= 1 && keep.length !== T * S) {
        const err = new AlignscopeError(BAD_ATTENTION_MASK, `${this.#statusMessage(BAD_ATTENTION_MASK)}: the mask has ` +
          `${keep.length} values, and T × S = ${T} × ${S} = ${T * S} are needed (one row per target token, one column per source position)`);
        err.position = -1;
        throw err;
      }
      // 0/1 and booleans as they are; anything else as 2, which C refuses, naming the row.
      mask = T >= 1 && S >= 1 ? Uint8Array.from(keep, (v) => (v === true || v === 1 ? 1 : v === false || v === 0 ? 0 : 2)) : null;
    }
    const scale = scoreScale == null ? 0 : Number(scoreScale);
    const attends = this.#info.attention !== 'none';
    const t0 = (globalThis.performance ?? Date).now();
    const out = this.#withBytes(new Uint8Array(sourceIds.buffer), (srcPtr) => this.#withBytes(new Uint8Array(targetIds.buffer), (tgtPtr) =>
      this.#withBytes(mask ?? new Uint8Array(0), (keepPtr) => this.#withBytes(new Uint8Array(4 * T), (lpPtr) =>
        this.#withBytes(new Uint8Array(attends ? 4 * T * S : 0), (alphaPtr) => {
          const status = this.#x.asw_force_score(srcPtr, sourceIds.length, tgtPtr, T, mask ? keepPtr : 0, scale, lpPtr,
            attends ? alphaPtr : 0);
          return status !== 0 ? { status } : {
            status, logProbs: this.#copyF32(lpPtr, T), alpha: attends ? this.#copyF32(alphaPtr, T * S) : null,
          };
        })))));
    const elapsedMs = (globalThis.performance ?? Date).now() - t0;
    if (out.status !== 0) this.#forceError(out.status, sourceIds, targetIds, S, mask);
    return {
      S, T, sourceIds, targetIds, logProbs: out.logProbs, logProb: out.logProbs.reduce((a, b) => a + b, 0),
      alpha: out.alpha, keep: mask, scoreScale: scale > 0 ? scale : this.#info.trainedScoreScale, elapsedMs,
    };
  }

  /**
   * The local window mask (src/alignscope.h as_window_mask, the engine's own
   * code): T × S values, step t keeping the source positions within
   * halfWidth of p_t = round(t (S - 1) / (T - 1)). Throws AlignscopeError
   * for T or S outside 1 … 4096 or halfWidth not a whole number ≥ 0.
   */
  windowMask(T, S, halfWidth) {
    this.#alive();
    const whole = (v) => (Number.isInteger(v) && v >= 0 && v <= 0x7fffffff ? v : -1);
    const t = whole(T), s = whole(S), d = whole(halfWidth);
    const n = t > 0 && s > 0 && t <= WINDOW_MAX_LENGTH && s <= WINDOW_MAX_LENGTH ? t * s : 0;
    return this.#withBytes(new Uint8Array(n), (ptr) => {
      this.#check(this.#x.asw_window_mask(t, s, d, ptr));
      return new Uint8Array(this.#memory, ptr, n).slice();
    });
  }

  #statusMessage(status) { return this.#string(this.#x.asw_status_message(status)); }

  // A refused forceScore: the engine's message, with the position it names.
  #forceError(status, sourceIds, targetIds, S, mask) {
    const at = this.#x.asw_force_error_position();
    let detail = '';
    if (status === BAD_SOURCE_TOKEN && at >= 0) {
      detail = `: source position ${at} has id ${sourceIds[at]}, and the source vocabulary has ids 0 to ${this.#info.srcVocabSize - 1}`;
    } else if (status === BAD_TARGET && at >= 0) {
      detail = `: target position ${at} has id ${targetIds[at]}, and the target vocabulary has ids 0 to ${this.#info.tgtVocabSize - 1}`;
    } else if (status === BAD_TARGET) {
      detail = `: the target has ${targetIds.length} tokens; this model scores 1 to ${this.#info.maxTargetTokens}`;
    } else if (status === BAD_ATTENTION_MASK && at >= 0) {
      const row = mask.subarray(at * S, (at + 1) * S);
      const odd = row.findIndex((v) => v > 1);
      detail = odd >= 0 ? `: row ${at} (target position ${at}) holds a value other than 0 and 1 (false/true) at source position ${odd}`
        : `: row ${at} (target position ${at}) keeps none of the ${S} source positions`;
    } else if (status === INPUT_TOO_LONG) {
      detail = `: the source has ${sourceIds.length} tokens; this model accepts at most ${this.#info.maxSourceTokens}`;
    }
    const err = new AlignscopeError(status, `${this.#statusMessage(status)}${detail}`);
    err.position = at;
    throw err;
  }

  // Packs overrides [{ step, weights }] into wasm memory as asw_translate
  // reads them (meta: (step, length) pairs; weights back to back), runs
  // fn(metaPtr, weightsPtr, count), frees them. What C must judge (length,
  // values) goes to C unchanged; a step that is no whole number becomes -1,
  // which C refuses with the same message.
  #withOverrides(overrides, fn) {
    if (overrides == null) overrides = [];
    if (!Array.isArray(overrides)) throw new TypeError('alignscope: overrides must be an array of { step, weights }');
    if (overrides.length === 0) return fn(0, 0, 0);
    const meta = new Int32Array(2 * overrides.length);
    const rows = overrides.map((o, i) => {
      if (!o || typeof o !== 'object' || o.weights == null || typeof o.weights.length !== 'number') {
        throw new TypeError(`alignscope: override ${i} needs { step, weights } with weights an array of numbers`);
      }
      meta[2 * i] = Number.isInteger(o.step) && o.step >= 0 && o.step <= 0x7fffffff ? o.step : -1;
      meta[2 * i + 1] = o.weights.length;
      return Float32Array.from(o.weights, Number);
    });
    const weights = new Float32Array(rows.reduce((n, r) => n + r.length, 0));
    let at = 0;
    for (const r of rows) { weights.set(r, at); at += r.length; }
    const metaBytes = new Uint8Array(meta.buffer);
    const weightBytes = new Uint8Array(weights.buffer);
    return this.#withBytes(metaBytes, (metaPtr) => this.#withBytes(weightBytes, (weightsPtr) =>
      fn(metaPtr, weightsPtr, overrides.length)));
  }

  /**
   * Tokenisation alone (models/FORMAT.md section 5). A string gives UTF-16
   * start/end; a Uint8Array (raw UTF-8, may be invalid) gives byte offsets.
   * Every token also has byteStart/byteEnd.
   */
  tokenize(input) {
    this.#alive();
    if (!this.#info) throw new AlignscopeError(1, 'alignscope: no model loaded (call load() first)');
    const isText = typeof input === 'string';
    const bytes = isText ? utf8Encoder.encode(input) : input;
    const n = this.#withBytes(bytes, (ptr, len) => this.#x.asw_tokenize(ptr, len));
    if (n < 0) this.#check(-n);
    const ids = this.#copyI32(this.#x.asw_tokens(0) >>> 0, n);
    const spans = this.#copyI32(this.#x.asw_tokens(1) >>> 0, 2 * n);
    const textPtr = this.#x.asw_tokens(2) >>> 0;
    const wordsPtr = this.#x.asw_tokens(3) >>> 0;
    const words = wordsPtr ? this.#copyI32(wordsPtr, n) : null;
    const map = isText ? utf8OffsetsToUtf16(input, bytes.length) : null;
    const tokens = [];
    for (let i = 0; i < n; i++) {
      const byteStart = spans[2 * i], byteEnd = spans[2 * i + 1];
      tokens.push({
        token: this.#string(textPtr + i * TOKEN_TEXT_STRIDE), id: ids[i], unknown: ids[i] === UNK,
        start: map ? map[byteStart] : byteStart, end: map ? map[byteEnd] : byteEnd, byteStart, byteEnd,
        word: words ? words[i] : i,
      });
    }
    return tokens;
  }

  // AS_ERR_INPUT_TOO_LONG with the numbers a user needs: how many tokens the
  // text has and how many the model accepts (err.tokenCount, err.maxSourceTokens).
  #tooLong() {
    const count = this.#x.asw_source_count?.() ?? 0;
    const max = this.#info.maxSourceTokens;
    const err = new AlignscopeError(INPUT_TOO_LONG,
      `${this.#string(this.#x.asw_status_message(INPUT_TOO_LONG))}: the text has ${count} tokens ` +
      `(words and punctuation marks); this model accepts at most ${max}`);
    err.tokenCount = count;
    err.maxSourceTokens = max;
    throw err;
  }

  #readTrace(text, bytes, elapsedMs) {
    const tr = (k) => this.#x.asw_trace(TRACE[k]) >>> 0;
    const S = tr('S'), T = tr('T'), K = tr('topK');
    const contextDim = tr('contextDim'), stateDim = tr('stateDim');
    const byteToUtf16 = utf8OffsetsToUtf16(text, bytes.length);

    const sourceIds = this.#copyI32(tr('sourceIds'), S);
    const spans = this.#copyI32(tr('sourceSpans'), 2 * S);
    const tokensPtr = tr('sourceTokens');
    // A model that reads </s> after the words (format 3, sourceEos) has one
    // more source position than the text has words: it has no text of its
    // own, so it is labelled '</s>' (isEnd), with the empty span at the end.
    const endPosition = tr('sourceEos') === 1 ? S - 1 : -1;
    // Word index of each token (a subword model's pieces share their word's);
    // a module built before words existed answers 0: every token a word.
    const sourceWordOf = tr('sourceWords') ? this.#copyI32(tr('sourceWords'), S) : Int32Array.from({ length: S }, (_, j) => j);
    const source = [];
    for (let j = 0; j < S; j++) {
      const start = byteToUtf16[spans[2 * j]], end = byteToUtf16[spans[2 * j + 1]];
      const id = sourceIds[j];
      source.push({
        text: j === endPosition ? '</s>' : text.slice(start, end),
        token: this.#string(tokensPtr + j * TOKEN_TEXT_STRIDE),
        id, unknown: id === UNK, isEnd: j === endPosition, start, end, word: sourceWordOf[j],
      });
    }
    const sourceWords = groupWords(source, (first, last) => (
      first.isEnd ? { text: '</s>', start: first.start, end: first.end, isEnd: true }
        : { text: text.slice(first.start, last.end), start: first.start, end: last.end, isEnd: false }));

    const targetIds = this.#copyI32(tr('targetIds'), T);
    const copy = this.#copyI32(tr('copySource'), T);
    const tspans = this.#copyI32(tr('translationSpans'), 2 * T);
    const translationPtr = tr('translation');
    const heap = new Uint8Array(this.#memory);
    let translationLength = 0;
    while (heap[translationPtr + translationLength] !== 0) translationLength++;
    const translationBytes = heap.slice(translationPtr, translationPtr + translationLength);
    const targetWordOf = tr('targetWords') ? this.#copyI32(tr('targetWords'), T) : Int32Array.from({ length: T }, (_, t) => t);
    const target = [];
    for (let t = 0; t < T; t++) {
      const id = targetIds[t];
      target.push({
        text: utf8Decoder.decode(translationBytes.subarray(tspans[2 * t], tspans[2 * t + 1])),
        token: this.targetToken(id), id, copiedFrom: copy[t], isEnd: id === EOS, word: targetWordOf[t],
        byteStart: tspans[2 * t], byteEnd: tspans[2 * t + 1],
      });
    }
    const targetWords = groupWords(target, (first, last) => ({
      text: first.isEnd ? '</s>' : utf8Decoder.decode(translationBytes.subarray(first.byteStart, last.byteEnd)),
      isEnd: first.isEnd,
    }));

    const topIds = this.#copyI32(tr('topIds'), T * K);
    const topProbs = this.#copyF32(tr('topProbs'), T * K);
    const topTokens = [];
    for (let t = 0; t < T; t++) {
      const row = [];
      for (let k = 0; k < K; k++) row.push(this.targetToken(topIds[t * K + k]));
      topTokens.push(row);
    }
    const alphaPtr = tr('alpha');
    // The text's own token count: more than the trace's words when cutSource cut it.
    const sourceCount = this.#x.asw_source_count?.() ?? S - (endPosition >= 0 ? 1 : 0);
    return {
      text,
      sourceCount, cut: sourceCount > S - (endPosition >= 0 ? 1 : 0),
      translation: utf8Decoder.decode(translationBytes),
      scoreScale: this.#x.asw_trace_score_scale(),
      encoderReused: tr('encoderReused') === 1,
      elapsedMs,
      source, target, S, T, sourceWords, targetWords,
      alpha: alphaPtr ? this.#copyF32(alphaPtr, T * S) : null,
      scores: this.#copyF32(tr('scores'), T * S),
      context: this.#copyF32(tr('context'), T * contextDim), contextDim,
      state: this.#copyF32(tr('state'), T * stateDim), stateDim,
      topK: K, topIds, topProbs, topTokens,
      stoppedAtEos: tr('stoppedAtEos') === 1,
    };
  }

  /**
   * Dot-product scores e_j = q · k_j by the engine's own kernel (the one dot
   * and scaled-dot attention use: asw_dot_scores, as_f32_dot_scores in
   * src/kernels.h), on any numbers; no model needed. q: Float32Array(d);
   * keys: `count` rows of at least d numbers, row j starting at j * stride
   * (only its first d are read: stride > d scores prefixes of longer rows).
   * Returns Float32Array(count).
   */
  dotScores(q, keys, count = keys.length / q.length, stride = q.length) {
    this.#alive();
    const d = q?.length ?? 0;
    if (!(q instanceof Float32Array) || !(keys instanceof Float32Array) || d < 1) {
      throw new TypeError('alignscope: dotScores(q, keys) takes two Float32Arrays, q not empty');
    }
    if (!Number.isInteger(count) || count < 1 || !Number.isInteger(stride) || stride < d || keys.length < (count - 1) * stride + d) {
      throw new TypeError(`alignscope: dotScores: ${count} keys of ${d} numbers ${stride} apart do not fit in ${keys.length}`);
    }
    // One block: the keys packed (count, d), then q, then the scores.
    const ptr = this.#x.asw_malloc(4 * (count * d + d + count));
    if (!ptr) throw new AlignscopeError(11, this.#string(this.#x.asw_status_message(11)));
    try {
      const heap = new Float32Array(this.#memory, ptr, count * d + d + count);
      if (stride === d) heap.set(keys.subarray(0, count * d));
      else for (let j = 0; j < count; j++) heap.set(keys.subarray(j * stride, j * stride + d), j * d);
      heap.set(q, count * d);
      const at = ptr + 4 * (count * d + d);
      this.#check(this.#x.asw_dot_scores(count, d, ptr, ptr + 4 * count * d, at));
      return this.#copyF32(at, count);
    } finally {
      this.#x.asw_free(ptr);
    }
  }

  /** Bytes of wasm linear memory in use by this engine (it only grows). */
  memoryBytes() { return this.#x.memory.buffer.byteLength; }

  /** Bytes allocated on the engine's heap right now (-1 if the build cannot say): leak tests. */
  heapBytes() { return this.#x.asw_heap_bytes?.() ?? -1; }

  /** Frees the model; the engine cannot be used afterwards. */
  dispose() {
    if (this.#disposed) return;
    this.#x.asw_unload();
    this.#info = null;
    this.#tgtTokens = [];
    this.#disposed = true;
  }
}

// translate()'s window options -> (half width, steps) as asw_translate
// takes them: null = -1 (global attention); a half width or a length that is
// no whole number in range reaches C as -2 or -1, which it refuses (bad option).
function windowArgs(window, windowSteps) {
  if (window == null) return [-1, 0];
  const d = Number.isInteger(window) && window >= 0 && window <= 0x7fffffff ? window : -2;
  const t = Number.isInteger(windowSteps) && windowSteps >= 0 && windowSteps <= 0x7fffffff ? windowSteps : -1;
  return [d, t];
}

// Token ids -> Int32Array, for forceScore. An id that is no whole number in
// int32 range becomes -1, which the engine refuses, naming its position.
function idArray(ids, what) {
  if (ids == null || typeof ids === 'string' || typeof ids.length !== 'number') {
    throw new TypeError(`alignscope: ${what} must be an array of token ids`);
  }
  return Int32Array.from(ids, (v) => (Number.isInteger(v) && v >= -0x80000000 && v <= 0x7fffffff ? v : -1));
}

// byte offset in the UTF-8 form of `text` -> UTF-16 index, for 0..byteLength.
// Lone surrogates were encoded as U+FFFD (3 bytes) by TextEncoder; a split
// inside a character (never produced by the tokeniser) maps to its start.
function utf8OffsetsToUtf16(text, byteLength) {
  const map = new Int32Array(byteLength + 1);
  let b = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let n, units = 1;
    if (c < 0x80) n = 1;
    else if (c < 0x800) n = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length &&
             text.charCodeAt(i + 1) >= 0xdc00 && text.charCodeAt(i + 1) <= 0xdfff) { n = 4; units = 2; }
    else n = 3;
    for (let k = 0; k < n; k++) map[b + k] = i;
    b += n;
    i += units - 1;
  }
  map[byteLength] = text.length;
  return map;
}
