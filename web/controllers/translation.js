// translation.js - the one place translation is asked for. It follows the
// store: a new sentence, scale, chosen part of a long text, or model (or the
// engine becoming ready again) → the model's tokens of the sentence (the
// live count, through the worker) → what to translate (the whole text, or
// one sentence of it when it is longer than the model reads) → a request
// to the worker. Results and errors go back into the store.
// It decodes as the state says: a beam of st.beam (the link's `beam`, the
// greedy control beside the translation, the beam card's width; default
// DEFAULT_BEAM_WIDTH) ranked with st.beamLp; width 1 is greedy. The √d
// slider re-decodes the same way.

import { CONFIG } from '../config.js';
import { scaleFor } from '../state.js';
import { planInput } from '../lib/sentences.js';
import { statusIs } from '../client.js';
import { t } from '../i18n/index.js';
import { pageTime } from '../lib/startup.js';
import { DEFAULT_BEAM_WIDTH, DEFAULT_LENGTH_PENALTY } from '../lib/beam.js';

/** How the state asks for the translation to be decoded: { beamWidth, lengthPenalty }. */
export function decodingOf(st) {
  return { beamWidth: st.beam ?? DEFAULT_BEAM_WIDTH, lengthPenalty: st.beamLp ?? DEFAULT_LENGTH_PENALTY };
}

const BUSY = new Set(['starting', 'loading', 'checking', 'failed']);

/** startup: the lib/startup.js recorder (each translation done before the first heatmap is marked).
 *  @returns { destroy() } */
export function createTranslation(store, { client, startup = null }) {
  let tokenCache = { key: null, tokens: null };
  let tokenSeq = 0;
  let countTimer = null;
  // Results drawn since the widget began (the timing line's data-count, which
  // tests wait on). Kept here, not in `timing`: emptying the box clears the
  // timing line, and a count that started again from 0 would repeat a value
  // a waiter had already seen.
  let results = 0;

  const keyOf = (st, text) => `${st.local ? `file:${st.local.name}` : st.model}\u0000${text}`;

  /** The model's tokens of `text` (cached for the last text asked about). */
  async function tokensOf(st, text) {
    const key = keyOf(st, text);
    if (tokenCache.key === key) return tokenCache.tokens;
    const tokens = await client.tokenize(text);
    tokenCache = { key, tokens };
    return tokens;
  }

  function friendlyError(err, st) {
    if (statusIs(err, 'AS_ERR_INPUT_TOO_LONG')) return t('translate.tooLong', { n: st.info?.maxSourceTokens ?? CONFIG.maxSourceTokens, why: err.message });
    if (statusIs(err, 'AS_ERR_EMPTY_INPUT') || /no tokens/i.test(err.message)) {
      return st.sentence.trim()
        ? t('translate.noWords')
        : t('translate.type');
    }
    return t('translate.failed', { why: err.message });
  }

  // Step 1: the sentence's tokens and what to translate of it.
  async function plan() {
    const st = store.get();
    if (!st.info || BUSY.has(st.status)) return;
    const text = st.sentence;
    if (!text.trim()) {
      store.set({ trace: null, plan: null, error: { stage: 'translate', message: t('translate.type') }, timing: null });
      return;
    }
    const seq = ++tokenSeq;
    let p;
    try {
      p = planInput(text, await tokensOf(st, text), st.info.maxSourceTokens);
    } catch {
      // Superseded by a model load, or the engine is gone: translate the
      // whole text and let the engine's own answer speak.
      p = { count: null, max: st.info.maxSourceTokens, over: false, parts: [{ start: 0, end: text.length }] };
    }
    if (seq !== tokenSeq || store.get().sentence !== text) return;
    const part = p.over ? Math.min(store.get().part ?? 0, p.parts.length - 1) : 0;
    // A new plan (always a new object) is what makes the request below.
    store.set({ plan: { ...p, for: text }, part, tokenCount: p.count == null ? null : { text, count: p.count, max: p.max } });
  }

  // Step 2: ask the worker (it coalesces: the latest request wins).
  function translate() {
    const st = store.get();
    if (!st.info || BUSY.has(st.status) || !st.sentence.trim()) return;
    const p = st.plan;
    if (p?.for !== st.sentence) return; // the new sentence's plan is on its way, and asks when it comes
    const part = p?.over ? p.parts[st.part] : null;
    // A sentence over the limit goes whole, and the engine reads its first max tokens (lib/sentences.js).
    const text = part ? st.sentence.slice(part.start, part.sendEnd ?? part.end) : st.sentence;
    client.translate({ text, scoreScale: scaleFor(st.info, st.scale).scoreScale, topK: CONFIG.topK, ...decodingOf(st), cutSource: !!part?.cut, sentence: st.sentence, part: part ? st.part : null });
  }

  client.onResult = (trace, params, roundTripMs, workerMs, doneAt) => {
    if (doneAt != null) startup?.mark('translation', { at: pageTime(doneAt), detail: { workerMs, roundTripMs, tokens: trace.S, steps: trace.T } });
    store.set({
      trace, error: null,
      translated: { sentence: params.sentence, part: params.part },
      timing: { roundTripMs, workerMs, elapsedMs: trace.elapsedMs ?? workerMs, encoderReused: !!trace.encoderReused, count: ++results },
    });
  };
  client.onError = (err, stage) => {
    const st = store.get();
    if (stage === 'translate') store.set({ trace: null, error: { stage, message: friendlyError(err, st) }, timing: st.timing ? { ...st.timing, failed: true } : null });
    else store.set({ error: { stage, message: err.message }, status: 'failed' });
  };

  // The live token count of what is being typed (before the typing pause).
  async function countDraft() {
    const st = store.get();
    if (!st.info || BUSY.has(st.status) || st.draft == null) return;
    const text = st.draft;
    try {
      const tokens = await tokensOf(st, text);
      if (store.get().draft === text) store.set({ tokenCount: { text, count: tokens.length, max: st.info.maxSourceTokens } });
    } catch { /* a model load overtook it; the next keystroke counts again */ }
  }

  const unsubscribe = store.subscribe((st, changed) => {
    const becameReady = changed.has('status') && st.status === 'ready';
    if (changed.has('sentence') || changed.has('info') || becameReady) { queueMicrotask(plan); return; }
    if (['plan', 'scale', 'part', 'beam', 'beamLp'].some((k) => changed.has(k))) queueMicrotask(translate);
    if (changed.has('draft')) { clearTimeout(countTimer); countTimer = setTimeout(countDraft, CONFIG.tokenCountDelayMs); }
  });

  return {
    destroy() { unsubscribe(); clearTimeout(countTimer); client.stop(); },
  };
}
