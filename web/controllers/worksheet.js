// worksheet.js - the alignment worksheet's translations (cards/worksheet.js
// draws them). It follows the store: the sheet's sentences (`sheet`, URL
// ws/wx/wn), the model (`info`), the score scale (`scale`) and the decoding
// (`beam`, `beamLp`): each sentence is translated as the page translates
// its own sentence (controllers/translation.js: the same multiplier, beam
// width and length penalty), through the worker's own request channel
// (client.decode), so the page's translation is neither replaced nor
// delayed. One request at a time; a sentence being typed waits for the
// typing pause. Only while the card is on screen (or the store is quiet):
// off screen the sheet waits.
//
// What happens goes into the store:
//   sheetResults  { [sheetKey]: { trace } | { error, code } } for the sentences on the sheet
//   sheetBusy     the key being decoded now, else null
// A sentence that came from a link (entry.linked) and that the model cannot
// read (no words it knows how to cut, or more than it reads) is left out of
// the sheet, with a notice that names it; one the student typed stays, and
// its map says why there is none.

import { CONFIG } from '../config.js';
import { scaleFor, linkNoticeAdd } from '../state.js';
import { statusIs } from '../client.js';
import { decodingOf } from './translation.js';
import { LOCAL } from './models.js';
import { t } from '../i18n/index.js';

/** The request for one sheet sentence under the page's model and decoding: a string key (the store's sheetResults). */
export function sheetKey(st, text) {
  if (!st.info) return null;
  const model = st.local ? `${LOCAL}${st.local.name}` : st.model;
  const { beamWidth, lengthPenalty } = decodingOf(st);
  return [model, scaleFor(st.info, st.scale).scoreScale, beamWidth, lengthPenalty, text].join('\u0000');
}

/** Why the engine refused the text itself ('empty': no words it can read; 'long': more than it reads), else null. */
const unreadable = (err) => (statusIs(err, 'AS_ERR_EMPTY_INPUT') ? 'empty' : statusIs(err, 'AS_ERR_INPUT_TOO_LONG') ? 'long' : null);

/** Why a sheet sentence has no translation, in the UI language. */
export function unreadText(result, info) {
  if (result.unreadable === 'empty') return t('worksheet.unreadEmpty');
  if (result.unreadable === 'long') return t('worksheet.unreadLong', { n: info?.maxSourceTokens ?? CONFIG.maxSourceTokens });
  return t('worksheet.failed', { why: result.error });
}

/**
 * @param opts { client (the widget's EngineClient), seen: { active(), onWake(fn) } for the card's area }
 * @returns { destroy() }
 */
export function createWorksheet(store, { client, seen = null }) {
  let running = false;
  let stopped = false;
  let timer = 0;

  /** The first sentence of the sheet without a result for the page's state now: { entry, key } or null. */
  function nextWanted(st) {
    for (const entry of st.sheet ?? []) {
      const key = sheetKey(st, entry.text);
      if (key && !st.sheetResults?.[key]) return { entry, key };
    }
    return null;
  }

  /** Results of sentences no longer on the sheet (or of another model, scale, decoding) are let go. */
  function prune(st) {
    const keep = new Set((st.sheet ?? []).map((e) => sheetKey(st, e.text)));
    const results = st.sheetResults ?? {};
    if (Object.keys(results).every((k) => keep.has(k))) return;
    store.set({ sheetResults: Object.fromEntries(Object.entries(results).filter(([k]) => keep.has(k))) });
  }

  async function run() {
    if (stopped || running) return;
    const st = store.get();
    if (!st.info || st.status !== 'ready' || (seen && !seen.active())) return;
    prune(st);
    const want = nextWanted(store.get());
    if (!want) return;
    running = true;
    const { entry, key } = want;
    const { beamWidth, lengthPenalty } = decodingOf(st);
    store.set({ sheetBusy: key });
    let result = null;
    try {
      const { trace } = await client.decode({ text: entry.text, scoreScale: scaleFor(st.info, st.scale).scoreScale, topK: CONFIG.topK, beamWidth, lengthPenalty });
      result = { trace };
    } catch (err) {
      // A model load overtook it: asked again under the new model.
      if (!err.superseded) result = { error: err.message, code: err.code ?? null, unreadable: unreadable(err) };
    } finally {
      running = false;
    }
    if (stopped) return;
    const now = store.get();
    const patch = { sheetBusy: null };
    if (result && sheetKey(now, entry.text) === key) {
      const onSheet = (now.sheet ?? []).find((e) => e.text === entry.text);
      if (result.unreadable && onSheet?.linked) {
        // From a link: left out, and said (the link then no longer carries it).
        Object.assign(patch, { sheet: now.sheet.filter((e) => e !== onSheet) },
          linkNoticeAdd(now, { key: 'ws', reason: 'sheetUnread', text: entry.text, why: unreadText(result, now.info) }));
      } else {
        patch.sheetResults = { ...now.sheetResults, [key]: result };
      }
    }
    store.set(patch);
    queueMicrotask(run);
  }

  // Typing in a sentence: decoded after the typing pause, not at every key.
  const soon = () => { clearTimeout(timer); timer = setTimeout(run, CONFIG.typingPauseMs); };
  const unsubscribe = store.subscribe((st, changed) => {
    if (changed.has('sheet')) soon();
    else if (['info', 'scale', 'beam', 'beamLp', 'status', 'local', 'model'].some((k) => changed.has(k))) queueMicrotask(run);
  });
  const unwake = seen?.onWake(run);
  queueMicrotask(run);

  return {
    destroy() { stopped = true; clearTimeout(timer); unsubscribe(); unwake?.(); },
  };
}
