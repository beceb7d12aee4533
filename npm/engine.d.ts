// Types of alignscope/engine (web/engine.js): the WebAssembly translator for Node 20, browsers and workers.

export declare const STATUS_CODES: readonly string[];
export declare const ATTENTION_KINDS: readonly ['none', 'additive', 'dot', 'general', 'scaled_dot'];
export type AttentionKind = (typeof ATTENTION_KINDS)[number];
export declare const DEFINITIONS: Readonly<Record<string, unknown>>;

/** An error from the C engine: `code` is the as_status name (e.g. 'AS_ERR_CHECKSUM'), `status` its number. */
export declare class AlignscopeError extends Error {
  constructor(status: number, message: string);
  readonly status: number;
  readonly code: string;
}

/** Whether this JavaScript engine validates WebAssembly SIMD128. */
export declare function simdSupported(): boolean;
/** Why this runtime cannot run the relaxed-SIMD build (no relaxed SIMD, or a wrong 8-bit dot product), or null when it can. */
export declare function relaxedSimdProblem(): string | null;
/** relaxedSimdProblem() === null. */
export declare function relaxedSimdSupported(): boolean;
/** The builds, fastest first: web/gen/alignscope-VARIANT.wasm. */
export declare const VARIANTS: readonly ['relaxed', 'simd', 'scalar'];
export type Variant = (typeof VARIANTS)[number];
/** What each build is, in words. */
export declare const VARIANT_NAMES: Readonly<Record<Variant, string>>;
/** The fastest build this runtime can run: relaxed SIMD, then SIMD128, then scalar. */
export declare function bestVariant(): Variant;
/** Beam widths 1 … BEAM_MAX_WIDTH (src/alignscope.h AS_BEAM_MAX_WIDTH). */
export declare const BEAM_MAX_WIDTH: number;
/** Length penalties 0 … MAX_LENGTH_PENALTY. */
export declare const MAX_LENGTH_PENALTY: number;
/** The length penalty when none is given (1: mean log-probability per token). */
export declare const DEFAULT_LENGTH_PENALTY: number;
/** The beam width the CLI, the page and the element decode with unless told otherwise (src/alignscope.h AS_DEFAULT_BEAM_WIDTH; 1 is greedy). */
export declare const DEFAULT_BEAM_WIDTH: number;

export interface CreateEngineOptions {
  /** 'simd' (default), 'relaxed', 'scalar', or 'auto' (bestVariant()). */
  variant?: Variant | 'auto';
  /** The .wasm module's bytes (instead of fetching or reading it). */
  wasmBytes?: Uint8Array;
  /** Where the .wasm module is, relative to engine.js. */
  wasmUrl?: string | URL;
}
export declare function createEngine(options?: CreateEngineOptions): Promise<Engine>;

export interface ModelInfo {
  attention: AttentionKind;
  sourceLanguage: string;
  targetLanguage: string;
  srcVocabSize: number; tgtVocabSize: number;
  embedDim: number; encoderHidden: number; decoderHidden: number;
  attentionDim: number; keyDim: number; outputDim: number;
  maxSourceTokens: number; maxTargetTokens: number;
  /** The score multiplier the model was trained with (1 / the softmax divisor). */
  trainedScoreScale: number;
  parameterCount: number;
  weightType: 'f32' | 'f16' | 'int8';
  formatVersion: number;
  archFlags: number;
  architecture: { unidirectional: boolean; initFromEncoder: boolean; attentionBias: boolean; directOutput: boolean; sourceEos: boolean; tutorialTokenizer: boolean; subwords: boolean; layerNorm: boolean };
  tokenizer: 'alignscope' | 'tutorial' | 'subwords';
  contextDim: number;
}

export interface Token {
  token: string; id: number; unknown: boolean;
  /** UTF-16 offsets into the text (string input) or byte offsets (bytes input). */
  start: number; end: number; byteStart: number; byteEnd: number;
  /** The word this token belongs to (subword models: several tokens per word). */
  word: number;
}

export interface SourceToken { text: string; token: string; id: number; start: number; end: number; isEnd?: boolean; [key: string]: unknown }
export interface TargetToken { text: string; token: string; id: number; [key: string]: unknown }

export interface TranslateOptions {
  /** Multiplier of the attention scores before the softmax; 0 = the model's trained scale. */
  scoreScale?: number;
  /** Candidates per decoder step (default 5). */
  topK?: number;
  /** Stop after this many target tokens (0 = the engine's limit). */
  maxTargetTokens?: number;
  /** Pin the finger: at decoder step `step`, α is replaced by `weights` (S numbers, finite, ≥ 0, not all zero; renormalised). */
  overrides?: { step: number; weights: ArrayLike<number> }[];
  /** Read only the first maxSourceTokens tokens of a longer text instead of refusing it (the result says cut: true). */
  cutSource?: boolean;
  /** Local attention (Luong's local-m): half width D ≥ 0 of a window centred on p_t = round(t (S − 1) / (T − 1)), T = windowSteps; null = global. Not with overrides. */
  window?: number | null;
  /** The reference length T of the window's centre (the global translation's T; steps from T − 1 on stay at the last source position). */
  windowSteps?: number;
}

export interface BeamOptions extends TranslateOptions {
  /** 1 … BEAM_MAX_WIDTH (default 4). */
  beamWidth?: number;
  /** Hypotheses ranked by logProb / T^lengthPenalty (0 … MAX_LENGTH_PENALTY, default 1). */
  lengthPenalty?: number;
}

export interface Hypothesis extends Translation {
  /** Natural log of p(y | x). */
  logProb: number;
  score: number;
  stepLogProbs: Float32Array;
}

export interface BeamResult {
  hypotheses: Hypothesis[];
  beamWidth: number;
  lengthPenalty: number;
  elapsedMs: number;
}

export interface Translation {
  text: string;
  translation: string;
  scoreScale: number;
  encoderReused: boolean;
  elapsedMs: number;
  /** S source tokens (the last is '</s>' when the model reads one) and T target tokens. */
  source: SourceToken[]; target: TargetToken[]; S: number; T: number;
  sourceWords: unknown[]; targetWords: unknown[];
  /** T × S attention weights, row t = step t over the S source tokens (null without attention). */
  alpha: Float32Array | null;
  scores: Float32Array;
  context: Float32Array; contextDim: number;
  state: Float32Array; stateDim: number;
  topK: number; topIds: Int32Array; topProbs: Float32Array; topTokens: string[];
  stoppedAtEos: boolean;
  /** Tokens in the whole text (more than were read when cutSource cut it), and whether it did. */
  sourceCount: number; cut: boolean;
}

export interface ForceScoreOptions {
  /** Attention mask, T × S values (row t = target step t over the S source positions): 1/true keeps, 0/false drops. */
  keep?: ArrayLike<number | boolean> | null;
  /** Instead of keep: a window of this half width, windowMask(T, S, window). */
  window?: number | null;
  /** Multiplier of the attention scores before the softmax; 0 = the model's trained scale. */
  scoreScale?: number;
}

export interface ForceScoreResult {
  /** Source positions (the tokens, + 1 when the model reads </s>) and target tokens. */
  S: number; T: number;
  sourceIds: Int32Array; targetIds: Int32Array;
  /** log p(y_t | y_<t, x), natural log, each step fed the given previous token. */
  logProbs: Float32Array;
  /** The sum of logProbs. */
  logProb: number;
  /** T × S attention weights (dropped positions exactly 0); null without attention. */
  alpha: Float32Array | null;
  /** The mask used (0/1), or null. */
  keep: Uint8Array | null;
  scoreScale: number;
  elapsedMs: number;
}

/** An AlignscopeError from forceScore: the source or target position, or the mask row, at fault (-1: none). */
export interface ForceScoreError extends AlignscopeError {
  readonly position: number;
}

export declare class Engine {
  readonly variant: Variant;
  readonly isa: string;
  /** Whether the module was compiled while it downloaded (WebAssembly.instantiateStreaming: fetched over http(s) as application/wasm). */
  readonly streamed: boolean;
  /** Checks the file (magic, version, sizes, CRC-32) and loads it; throws AlignscopeError if refused. */
  load(modelBytes: Uint8Array): ModelInfo;
  readonly info: ModelInfo | null;
  /** A target-vocabulary token by id. */
  targetToken(id: number): string;
  /** A source-vocabulary token by id. */
  sourceToken(id: number): string;
  translate(text: string, options?: TranslateOptions): Translation;
  /** Beam search: every final hypothesis, best first; beamWidth 1 is translate()'s result bit for bit. */
  beam(text: string, options?: BeamOptions): BeamResult;
  /**
   * Forced decoding (teacher forcing) with an optional attention mask: the log-probability of each given target
   * token. source: text (tokenised as translate() does) or source token ids; target: target token ids (end with 3,
   * </s>, to score the end). Throws a ForceScoreError (AS_ERR_BAD_SOURCE_TOKEN, AS_ERR_BAD_TARGET,
   * AS_ERR_BAD_ATTENTION_MASK, …) naming the position.
   */
  forceScore(source: string | ArrayLike<number>, target: ArrayLike<number>, options?: ForceScoreOptions): ForceScoreResult;
  /** The local window mask (as_window_mask): T × S values of 0/1, step t keeping |j − round(t (S − 1) / (T − 1))| ≤ halfWidth. */
  windowMask(T: number, S: number, halfWidth: number): Uint8Array;
  tokenize(input: string | Uint8Array): Token[];
  /**
   * e_j = q · k_j by the engine's own dot-product kernel (the one dot and scaled-dot attention use), no model needed:
   * `count` keys (default keys.length / q.length), key j at keys[j * stride …] (default stride q.length; only its first q.length numbers are read).
   */
  dotScores(q: Float32Array, keys: Float32Array, count?: number, stride?: number): Float32Array;
  memoryBytes(): number;
  heapBytes(): number;
  dispose(): void;
}
