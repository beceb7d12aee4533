// config.js - every visual and timing constant of the page, in one place.

export const CONFIG = Object.freeze({
  // Input
  typingPauseMs: 220,          // translate after this long without a keystroke
  maxSentenceChars: 2000,      // URL and textarea cap
  defaultSentence: 'Show the new window',
  topK: 5,
  localWindowMax: 5,           // the step-through's local window: half widths D = 0 … this (cards/local.js, the link's win=)
  maxSourceTokens: 100,        // shown before a model says its own limit (models refuse more)

  // √d slider: divisor = trainedDivisor × 2^k, k in [minLog2, maxLog2]
  scaleMinLog2: -4,            // 1/16 × trained divisor: saturated, near one-hot
  scaleMaxLog2: 6,             // 64 × trained divisor: nearly uniform
  scaleStepLog2: 0.05,

  // Heatmap (CSS pixels)
  cellMin: 20,                 // below this the map scrolls instead of shrinking (a word label's height, a fingertip's third)
  cellMinPhone: 10,            // on a phone (≤ phoneMaxPx wide) the map shrinks this far to fit the width
  phoneMaxPx: 480,
  cellMax: 64,                 // the most a cell grows to fill its box (legible, not a poster)
  cellMaxPresenter: 120,       // presenter mode: read from the back of a classroom
  cellMinPresenter: 12,        // presenter mode shrinks the map this far to keep it whole on one screen
  compareCellMin: 14,          // …and may shrink further, so a phone's column (≈ 320 px) holds a ten-piece sentence with its entropy column
  compareCellMax: 40,          // the comparison's columns: smaller cells, so two or three fit side by side
  filmCellMax: 48,             // the training film's heatmap (cards/training.js): beside its scrubber, a little smaller than the main map
  cellValueMin: 34,            // print α inside cells when at least this big
  heatBoxMinPx: 240,           // the scroll box is never shorter than this…
  heatBoxReservePx: 150,       // …and otherwise as tall as the window minus this
  heatBoxReservePresenterPx: 110,
  firstScreenShrinkMin: 0.6,   // the main map shrinks to end above the fold on opening, to no less than this × its cells…
  firstScreenShrinkLast: 0.5,  // …or, where that cannot end above the fold, this × (a 12-word sentence at 1366 × 900)…
  firstScreenCellMin: 20,      // …and never below this (views/heatmap-layout.js firstScreenFloor)…
  firstScreenCellMinPhone: 11, // …on a phone this (its cells print no values anyway: a tap reads one large, zooming in prints them;
                               // 11 px rows still hold 13 px labels: an 8-word example's 14 rows end above a 360 × 640 fold)…
  firstScreenMarginPx: 8,      // …leaving this much under it
  presenterMarginPx: 64,       // presenter mode: room under the whole map for its readout line
  embedHeatBoxPx: 380,         // embed.html: the box's fixed height (the iframe sizes itself to its content)
  tapBubbleHalfPx: 48,         // a tapped cell's value bubble stays this far inside the map's box (half its width)
  zoomMin: 0.5,                // the heatmap's zoom buttons and pinch, × the fitted cell
  zoomMax: 4,
  zoomStep: 1.25,
  labelPx: 13,                 // word labels at zoom 1 outside presenter mode
  labelPxPresenter: 24,
  labelFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  valueFamily: 'monospace',    // one generic family: canvas resolves a font list on every ctx.font set, ~3 ms each
  labelAngleDeg: 55,           // source words are written at this slant
  labelMaxChars: 18,           // longer words are shortened with … in labels
  entropyColumn: 54,           // width of the per-row entropy column

  // Long input: how many sentences the picker offers (a pasted paragraph)
  maxSentenceChoices: 40,
  tokenCountDelayMs: 40,       // the live token count follows typing this closely

  // Step-through
  playIntervalMs: 1100,
  playIntervalReducedMs: 1600,

  // Quiz (cards/quiz.js): how many next-word choices a step offers (the word it wrote and the runners-up)
  quizWordChoices: 5,

  // Math check (cards/mathcheck.js, lib/mathcheck.js): queries and keys drawn from N(0, 1)
  mathDMax: 1024,              // the key dimension d: the powers of two 1 … mathDMax (the slider's values)
  mathKeysMin: 2,              // n keys …
  mathKeysMax: 50,
  mathDefaultD: 64,
  mathDefaultKeys: 10,
  mathDefaultSeed: 1,          // a link without seed= draws with this one
  mathSeedMax: 0xffffffff,     // seeds are 32-bit (mulberry32's state)
  mathDraws: 200,              // each curve is the mean over this many draws…
  mathBand: [0.1, 0.9],        // …with a band from this quantile to that one (the middle 80 %)

  // The alignment worksheet (cards/worksheet.js, lib/worksheet.js): the notes' exercise "plot the alignments"
  worksheetMax: 5,             // sentences on one sheet (a link with more keeps the first this many, said)
  worksheetSentenceMaxChars: 200, // a sheet's sentence is cut here (a small map; the model reads ~100 words anyway)
  worksheetNoteMaxChars: 140,  // one line of notes per sentence (longer ones from a link are cut, said)
  worksheetDiffuseBits: 1.5,   // a map is "diffuse" when its rows' mean entropy is above this (bits; the legend says it)

  // Engine / worker
  engineStartTimeoutMs: 30_000, // a worker that says nothing for this long has failed
  requestTimeoutMs: 30_000,
  downloadStallMs: 20_000,      // a download with no new byte for this long is aborted
  catalogTimeoutMs: 20_000,     // models/index.json must arrive within this
  maxModelFileBytes: 256e6,     // a model file from disk larger than this is not read (ours: 6-25 MB)
});

/** A model id, in a link, an attribute or the catalogue (no URL, no path). */
export const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** URL/attribute state keys and their meaning (documented in the README, "Embedding"). */
export const VIEWS = Object.freeze(['full', 'heatmap', 'steps']);
/** How the heatmap colours α: 'absolute' (0…1) or 'row' (each row ÷ its own maximum). */
export const COLOUR_MODES = Object.freeze(['absolute', 'row']);
