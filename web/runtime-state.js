// runtime-state.js - the part of the widget's store that is never written
// to a link (state.js has the shareable part and the store itself): what
// the engine, the models, the translation, the cards and the controllers
// keep there, with their starting values, and the values derived from
// others inside store.set() (so every subscriber sees them consistent).

import { figureMatrix } from './lib/figure.js';
import { FILM_CLOSED } from './controllers/training.js';

/**
 * The runtime keys with their starting values. A model value that is not an
 * id (a URL, a path, a file from someone's disk: state.js parseShareString's
 * rejectedModel, fileModel) never reaches `model`: it waits in modelRequest
 * until the catalogue can say what is shown instead (controllers/models.js).
 */
export function runtimeState({ rejectedModel = null, fileModel = null } = {}) {
  return {
    // the engine and models
    status: 'starting', error: null, progress: null, catalog: null, info: null, build: null,
    local: null, localFile: null, modelRequest: { rejected: rejectedModel ?? null, fileModel: fileModel ?? null }, pickerRev: 0,
    // the input and the translation
    draft: null, tokenCount: null, plan: null, part: 0, translated: null, trace: null, matrix: null, timing: null,
    // the page around them
    notices: {}, link: null, dragging: false, presenter: false, zoom: 1, firstHeatmap: false,
    // the comparison (cards/compare.js): each compared model's state and matrix
    compared: {}, compareMatrices: {},
    // the pinned attention (cards/pin.js, controllers/pin.js): the re-decode beside the main one
    pinned: null,
    // where it looked vs what it needed (controllers/erasure.js, cards/erasure.js): the erasure map of the translation
    erasure: null,
    // the step-through's local window (controllers/local.js, cards/local.js): the windowed re-decode
    windowed: null,
    // the training film (cards/training.js): closed until the reader opens it; the point on screen
    film: FILM_CLOSED, filmPoint: 0,
    // beam search (controllers/beam.js, cards/beam.js)
    beamResult: null, beamBusy: null, beamError: null,
    // the quiz (controllers/quiz.js): the game being played, while `quiz` names a mode
    quizPlay: null,
    // the math check (controllers/mathcheck.js, cards/mathcheck.js): the curves of the last draws, and the work on newer ones
    mathResult: null, mathBusy: false, mathError: null,
    // the alignment worksheet (controllers/worksheet.js, cards/worksheet.js): each sheet sentence's
    // translation by the page's model and decoding, by request key; the key being decoded now
    sheetResults: {}, sheetBusy: null,
    // the lesson path (controllers/lesson.js, cards/lesson.js): why a teacher's file was refused; the steps a teacher saved
    lessonFileError: null, lessonDraft: [],
  };
}

// trace → { info, pieces, matrix }: the last matrix made of each compared trace.
const matrices = new WeakMap();
function matrixOf(trace, info, pieces) {
  const hit = matrices.get(trace);
  if (hit && hit.info === info && hit.pieces === pieces) return hit.matrix;
  const matrix = figureMatrix(trace, info, pieces);
  matrices.set(trace, { info, pieces, matrix });
  return matrix;
}

/** Values that follow from others (createStore's derive): a patch for the keys `changed` touched. */
export function deriveState(st, changed) {
  const patch = {};
  if (changed.has('trace') || changed.has('pieces') || changed.has('info')) patch.matrix = st.trace && st.info ? figureMatrix(st.trace, st.info, st.pieces) : null;
  // The comparison's models: a matrix for each that has a translation.
  // (A compared model whose trace did not change keeps its matrix object:
  // its column sees no change and is not redrawn.)
  if (changed.has('compared') || changed.has('pieces')) {
    patch.compareMatrices = Object.fromEntries(Object.entries(st.compared ?? {})
      .filter(([, c]) => c.trace && c.info).map(([id, c]) => [id, matrixOf(c.trace, c.info, st.pieces)]));
  }
  // A shorter translation: the step is clamped to it.
  if (changed.has('trace') && st.trace && st.step > st.trace.T - 1) patch.step = st.trace.T - 1;
  return patch;
}
