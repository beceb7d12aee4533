// links.js - a link's values, checked before they reach the store: the
// first state's refused values (state.js parseShareString: rejectedModel,
// fileModel, pinError, rejectedBeam, rejectedLp, rejectedQuiz) said as
// notices in the UI language, and a pasted link or an embedder's attributes
// (apply(patch), the widget's setState) merged key by key: a pin checked
// against the translation shown, a beam width or length penalty out of
// range said and the card's own kept, a model that is not in the list
// resolved by controllers/models.js.

import { noticePatch, beamNotices, linkNoticesPatch } from '../state.js';
import { checkPin, pinProblemText, pinToString, samePin } from '../lib/pin.js';
import { DEFAULT_BEAM_WIDTH, DEFAULT_LENGTH_PENALTY } from '../lib/beam.js';
import { t } from '../i18n/index.js';

// The shareable keys a link may set, beside compare and pin (checked apart).
const PLAIN = ['sentence', 'model', 'scale', 'step', 'pieces', 'colour', 'uiLang', 'beam', 'beamLp', 'winD'];
// …and those of the cards only the full view has (the quiz, the math check, the worksheet, the lesson path).
const FULL_ONLY = ['quiz', 'mathD', 'mathKeys', 'mathSeed', 'sheet', 'lesson', 'lessonStep'];

/**
 * @param store
 * @param opts { models (controllers/models.js), full: the full view (the only one with the pin, beam and quiz cards) }
 * @returns { start({ pinError, rejectedBeam, rejectedLp, rejectedQuiz }), apply(patch) }
 */
export function createLinks(store, { models, full }) {
  const quizNotice = (value) => store.set(noticePatch(store.get(), 'quizLink', t('quiz.badLink', { value })));
  // A link's beam width or length penalty out of range: say so, keep the page's own. In
  // every layout: they decide how the translation itself is decoded (controllers/translation.js).
  const beamNotice = (asked) => {
    const st = store.get();
    const n = beamNotices(asked, { width: st.beam ?? DEFAULT_BEAM_WIDTH, lengthPenalty: st.beamLp ?? DEFAULT_LENGTH_PENALTY });
    store.set(noticePatch({ ...st, ...noticePatch(st, 'beam', n.beam) }, 'beamLp', n.beamLp));
  };
  return {
    /** The first state's refusals (once the UI language is set). */
    start({ pinError = null, rejectedBeam = null, rejectedLp = null, rejectedQuiz = null, problems = null } = {}) {
      if (rejectedBeam != null || rejectedLp != null) beamNotice({ rejectedBeam, rejectedLp });
      if (full && rejectedQuiz != null) quizNotice(rejectedQuiz);
      if (full && pinError) store.set(noticePatch(store.get(), 'pin', pinProblemText(pinError)));
      // What the link or the attributes gave that was left out or cut (state.js parseShareParams).
      if (problems) store.set(linkNoticesPatch(store.get(), problems));
    },
    /** Apply a partial share state (attributes, a pasted link). */
    apply(patch) {
      const before = store.get();
      if (patch.rejectedModel != null) models.check(before.model, patch.rejectedModel);
      // A link made with a file from a disk: say why this shows another model
      // (unless the reader has a file of their own open right now).
      if (patch.fileModel != null && !before.local) models.check(before.model, null, patch.fileModel);
      if (full && patch.rejectedQuiz != null) quizNotice(patch.rejectedQuiz);
      // A whole new link (or set of attributes): what it left out replaces what the last one did.
      store.set(linkNoticesPatch(store.get(), patch.problems ?? []));
      const next = {};
      for (const k of [...PLAIN, ...(full ? FULL_ONLY : [])]) if (patch[k] !== undefined && patch[k] !== before[k]) next[k] = patch[k];
      if (['rejectedBeam', 'rejectedLp', 'beam', 'beamLp'].some((k) => patch[k] != null)) beamNotice(patch);
      if (patch.compare !== undefined && patch.compare.join(',') !== (before.compare ?? []).join(',')) next.compare = patch.compare;
      // A pasted pin link: a malformed pin is said and the pin shown stays; a good one replaces it.
      if (full && patch.pinError) store.set(noticePatch(store.get(), 'pin', pinProblemText(patch.pinError)));
      if (full && patch.pin !== undefined && !samePin(patch.pin, before.pin)) {
        // About the sentence shown now: checked at once, so a pin that does not fit leaves the current one in place.
        const problem = next.sentence === undefined && next.model === undefined && before.trace ? checkPin(patch.pin, before.trace) : null;
        if (problem) store.set(noticePatch(store.get(), 'pin', pinProblemText(problem, pinToString(patch.pin))));
        else Object.assign(next, { pin: patch.pin }, noticePatch(store.get(), 'pin', null));
      }
      if (!Object.keys(next).length) return;
      if (next.sentence !== undefined) Object.assign(next, { draft: null, part: 0 });
      store.set(next);
      if (next.model && before.catalog && models.check(next.model) !== before.model) models.load();
    },
  };
}
