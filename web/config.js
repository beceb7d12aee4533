// config.js - every visual and timing constant of the page, in one place.

export const CONFIG = Object.freeze({
  // Input
  typingPauseMs: 220,          // translate after this long without a keystroke
  maxSentenceChars: 2000,      // URL and textarea cap
  defaultSentence: 'Show the new window',
  topK: 5,
  maxSourceTokens: 100,        // shown before a model says its own limit (models refuse more)

  // √d slider: divisor = trainedDivisor × 2^k, k in [minLog2, maxLog2]
  scaleMinLog2: -4,            // 1/16 × trained divisor: saturated, near one-hot
  scaleMaxLog2: 6,             // 64 × trained divisor: nearly uniform
  scaleStepLog2: 0.05,

  // Heatmap (CSS pixels)
  cellMin: 16,                 // below this the map scrolls instead of shrinking
  cellMax: 52,
  cellValueMin: 34,            // print α inside cells when at least this big
  labelFont: '13px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  valueFont: '11px ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace',
  labelAngleDeg: 55,           // source words are written at this slant
  labelMaxChars: 18,           // longer words are shortened with … in labels
  entropyColumn: 54,           // width of the per-row entropy column

  // Step-through
  playIntervalMs: 1100,
  playIntervalReducedMs: 1600,

  // Engine / worker
  engineStartTimeoutMs: 30_000, // a worker that says nothing for this long has failed
  requestTimeoutMs: 30_000,
  downloadStallMs: 20_000,      // a download with no new byte for this long is aborted
  catalogTimeoutMs: 20_000,     // models/index.json must arrive within this
  maxModelFileBytes: 256e6,     // a model file from disk larger than this is not read (ours: 6-25 MB)
});

/** URL/attribute state keys and their meaning (documented in the README, "Embedding"). */
export const VIEWS = Object.freeze(['full', 'heatmap', 'steps']);
