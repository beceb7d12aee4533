// step-name.js - one decoder step in words, as the step view names it, for
// the cards that write sentences about a step (pin, comparison, local
// window). The numbers come from lib/steps.js stepName; the words from the
// UI language's `stepName.*` strings.

import { t, num } from '../i18n/index.js';

/**
 * A stepName (lib/steps.js) in words: “chat”; at word level, a word of
 * several pieces with the piece this decoder step writes (a sub-step):
 * “Européenne” (piece 2 of 4: “uro”); at piece level, the piece with its
 * word: “uro” (piece 2 of 4 of “Européenne”).
 */
export function sayStep(name) {
  if (!(name.n > 1)) return t('stepName.whole', { word: name.text });
  return t(name.level === 'pieces' ? 'stepName.piece' : 'stepName.subStep', { word: name.word, piece: name.piece, i: num(name.i), n: num(name.n) });
}
