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

export interface CreateEngineOptions {
  /** 'simd' (default), 'scalar', or 'auto' (SIMD where supported). */
  variant?: 'simd' | 'scalar' | 'auto';
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
  architecture: { unidirectional: boolean; initFromEncoder: boolean; attentionBias: boolean; directOutput: boolean; sourceEos: boolean; tutorialTokenizer: boolean; subwords: boolean };
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
}

export declare class Engine {
  readonly variant: 'simd' | 'scalar';
  readonly isa: string;
  /** Checks the file (magic, version, sizes, CRC-32) and loads it; throws AlignscopeError if refused. */
  load(modelBytes: Uint8Array): ModelInfo;
  readonly info: ModelInfo | null;
  targetToken(id: number): string;
  translate(text: string, options?: TranslateOptions): Translation;
  tokenize(input: string | Uint8Array): Token[];
  memoryBytes(): number;
  heapBytes(): number;
  dispose(): void;
}
