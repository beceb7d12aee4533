// pin.js - "pin the finger": the main translation decoded again with the
// attention of one step replaced (cards/pin.js draws it). It follows the
// store: `pin` (shareable, URL `pin=`; lib/pin.js) and the main `trace`.
// Whenever both are there and the pin fits the trace (its step is one the
// translation reaches, one weight per source position), the same text is
// decoded at the same score scale with engine.translate's overrides, through
// the worker's own request channel (client.decode), so the main translation
// is neither replaced nor delayed. At most one such request is in flight;
// when it settles, the latest pin is asked for if it changed meanwhile.
//
// What happens goes into the store's `pinned`:
//   { for: the main trace it was decoded beside, result: the pinned trace | null,
//     resultPin: the pin `result` is for, error: text | null, errorPin, busy }
// An engine error keeps the previous result (and says what went wrong). A
// pin that does not fit the translation (a link's step past its end, a
// wrong number of weights, another model that reads the sentence as other
// pieces) is removed, with a notice that says why; so is a pin whose
// sentence was replaced by another one, quietly (it was about other words).

import { CONFIG } from '../config.js';
import { noticePatch } from '../state.js';
import { checkPin, pinProblemText, pinToString, pinWeights, samePin } from '../lib/pin.js';
import { t } from '../i18n/index.js';

/**
 * @param store   the widget's store
 * @param opts    { client: the main EngineClient (its decode() channel),
 *                  seen: { active(), onWake(fn) } — is the pin's card on screen (controllers/render.js);
 *                  off it, a new trace is not decoded again until it comes back or the store is quiet
 *                  (the pin is still checked against every translation) }
 * @returns { set(pin), clear(), destroy() }
 */
export function createPin(store, { client, seen = null }) {
  // The pin that was checked against a translation, and that translation's
  // text: a new pin from a link waits for its own sentence's translation;
  // a checked one is about that text only.
  let boundPin = null;
  let bound = null;
  let running = false; // a decode is in flight
  let overtaken = null; // the trace whose decode a model load overtook: its successor asks again

  function remove(patch = {}) {
    boundPin = null;
    bound = null;
    store.set({ pin: null, pinned: null, ...patch });
  }

  function sync() {
    const st = store.get();
    if (!st.pin) {
      boundPin = null;
      bound = null;
      if (st.pinned) store.set({ pinned: null });
      return;
    }
    if (!st.trace || !st.info) return; // the translation it applies to is on its way
    if (st.pin !== boundPin) {
      // From a link (or the page's first state): about the link's sentence,
      // so checked once that sentence has been translated.
      if (st.translated?.sentence !== st.sentence) return;
      boundPin = st.pin;
      bound = st.trace.text;
    } else if (st.trace.text !== bound) {
      remove(); // another sentence: the pin was about other words
      return;
    }
    const problem = checkPin(st.pin, st.trace);
    if (problem) {
      remove(noticePatch(st, 'pin', pinProblemText(problem, pinToString(st.pin))));
      return;
    }
    const p = st.pinned;
    const done = p && p.for === st.trace && (samePin(p.resultPin, st.pin) || samePin(p.errorPin, st.pin));
    if (done || running || st.trace === overtaken || (seen && !seen.active())) return;
    decode(st.trace, st.pin);
  }

  async function decode(trace, pin) {
    running = true;
    const prev = store.get().pinned;
    store.set({ pinned: { for: prev?.for ?? trace, result: prev?.result ?? null, resultPin: prev?.resultPin ?? null, error: null, errorPin: null, busy: true } });
    let next = null;
    try {
      // The main trace's own multiplier and decoding (beam width and length
      // penalty: what it was decoded with), so the two decodes agree on
      // every step before the pinned one.
      const { trace: result } = await client.decode({
        text: trace.text, scoreScale: trace.scoreScale, topK: CONFIG.topK, cutSource: !!trace.cut,
        beamWidth: trace.beamWidth ?? 1, lengthPenalty: trace.lengthPenalty ?? undefined,
        overrides: [{ step: pin.step, weights: pinWeights(pin, trace.S) }],
      });
      next = { for: trace, result, resultPin: pin, error: null, errorPin: null, busy: false };
    } catch (err) {
      // A model load overtook it: the new model's trace asks again.
      if (err.superseded) overtaken = trace;
      else {
        const cur = store.get().pinned;
        next = { for: trace, result: cur?.result ?? null, resultPin: cur?.resultPin ?? null, error: t('pin.engineError', { why: err.message }), errorPin: pin, busy: false };
      }
    } finally {
      running = false;
    }
    const st = store.get();
    // Still wanted (the pin and the trace it was for are those of the store): show it.
    if (next && st.pin && st.trace === trace && samePin(st.pin, pin)) store.set({ pinned: next });
    else if (st.pinned?.busy) store.set({ pinned: { ...st.pinned, busy: false } });
    sync();
  }

  const unsubscribe = store.subscribe((st, changed) => {
    if (changed.has('pin') || changed.has('trace') || changed.has('info')) queueMicrotask(sync);
  });
  queueMicrotask(sync);
  const unwake = seen?.onWake(sync);

  return {
    /** Pin (from the card, at st.step): about the translation shown now. */
    set(pin) {
      const st = store.get();
      boundPin = pin;
      bound = st.trace?.text ?? null;
      store.set({ pin, ...noticePatch(st, 'pin', null) });
    },
    clear() { store.set({ pin: null }); },
    destroy() { unsubscribe(); unwake?.(); },
  };
}
