// full.js - the controllers only the full view has: one per card that asks
// the engine for more or holds a card's game or path (compare, pin, erasure,
// training, beam, quiz, math check, worksheet, offline, lesson). ui.js wires
// their cards; the other views build none of them.

import { createCompare } from './compare.js';
import { createPin } from './pin.js';
import { createErasure } from './erasure.js';
import { createTraining } from './training.js';
import { createBeam } from './beam.js';
import { createQuiz } from './quiz.js';
import { createMathCheck } from './mathcheck.js';
import { createWorksheet } from './worksheet.js';
import { createOffline } from './offline.js';
import { createLesson } from './lesson.js';

/**
 * @param store
 * @param opts { client, workerUrl, workerType, inline, base, seen(area) → { active, onWake } (ui.js),
 *               grid (the cards' grid), keyTarget (where page keys are heard), share (controllers/share.js) }
 * @returns { compare, pin, erasure, training, beam, quiz, mathcheck, worksheet, offline (null in the single-file build), lesson }
 */
export function createFullControllers(store, { client, workerUrl, workerType, inline, base, seen, grid, keyTarget, share }) {
  return {
    compare: createCompare(store, { workerUrl, workerType, inline, base, seen: seen('compare') }),
    pin: createPin(store, { client, seen: seen('pin') }),
    erasure: createErasure(store, { client, seen: seen('erasure') }),
    training: createTraining(store, { workerUrl, workerType, inline, base, seen: seen('training') }),
    beam: createBeam(store, { client, seen: seen('beam') }),
    quiz: createQuiz(store),
    mathcheck: createMathCheck(store, { client, seen: seen('mathcheck') }),
    worksheet: createWorksheet(store, { client, seen: seen('worksheet') }),
    // Offline: a served copy ("Make all models available offline").
    offline: inline ? null : createOffline(store, { base }),
    lesson: createLesson(store, { grid, keyTarget, linkOf: (hash) => share.linkTo(hash) }),
  };
}
