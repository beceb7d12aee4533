// beam.js - the beam search behind cards/beam.js. It follows the main
// translation: whenever the main model has a new result (or the reader
// picks another width or length penalty, or another model is loaded), it
// asks the widget's engine worker (client.beam) to search the text that was
// translated, at the same √d scale. While the card is on screen, or once the
// store has been quiet (the render scheduler's `seen`, as the other cards
// that ask the engine): during a drag a search off screen would take the
// worker's time from the main figure, and after it the card is filled before
// the reader gets there. (It grows by about a thousand pixels with its first
// tree; filled only on arrival, it pushed the card below it off the screen
// under a reader who had just jumped there.)
// Requests are coalesced: one search at a time; while it runs, newer
// requests replace each other, and an answer that a newer request has
// overtaken is dropped (the latest request wins).
// What happens goes into the store:
//   beamBusy   { width, lengthPenalty } while a search runs, else null
//   beamResult { hypotheses (best first), beamWidth, lengthPenalty, text, scoreScale, key } of the last search that worked
//   beamError  why the last search failed (its result is kept), else null

import { CONFIG } from '../config.js';
import { scaleFor } from '../state.js';
import { statusIs } from '../client.js';
import { DEFAULT_BEAM_WIDTH, DEFAULT_LENGTH_PENALTY } from '../lib/beam.js';
import { t } from '../i18n/index.js';

/** What to search for the state, or null while there is nothing to search. */
export function beamRequest(st, loadId) {
  if (!st.info || !st.trace || st.status !== 'ready') return null;
  const beamWidth = st.beam ?? DEFAULT_BEAM_WIDTH;
  const lengthPenalty = st.beamLp ?? DEFAULT_LENGTH_PENALTY;
  const { scoreScale } = scaleFor(st.info, st.scale);
  const text = st.trace.text;
  // A sentence the main model read only the first tokens of (a cut part): the same tokens.
  const cutSource = !!st.trace.cut;
  return { text, scoreScale, topK: CONFIG.topK, beamWidth, lengthPenalty, cutSource, key: [loadId, text, scoreScale, beamWidth, lengthPenalty, cutSource].join('\u0000') };
}

/**
 * @param opts { client (the widget's EngineClient), seen: { active(), onWake(fn) } for the card's area (controllers/render.js) }
 * @returns { destroy() }
 */
export function createBeam(store, { client, seen = null }) {
  let inFlight = null; // the request the worker is searching
  let pending = null;  // the latest request asked for meanwhile
  let doneKey = null;  // the request whose answer (result or error) the store holds
  let stopped = false;

  const friendly = (err) => {
    const why = err.message;
    const text = statusIs(err, 'AS_ERR_BAD_BEAM_WIDTH') ? t('beam.badWidth', { why })
      : statusIs(err, 'AS_ERR_INPUT_TOO_LONG') ? t('beam.tooLong', { why })
        : t('beam.failed', { why });
    return store.get().beamResult ? `${text} ${t('beam.kept')}` : text;
  };

  function send(req) {
    inFlight = req;
    pending = null;
    store.set({ beamBusy: { width: req.beamWidth, lengthPenalty: req.lengthPenalty } });
    const loadId = client.loadId;
    client.beam(req).then((res) => settle(req, loadId, res, null), (err) => settle(req, loadId, null, err));
  }

  function settle(req, loadId, res, err) {
    if (stopped) return;
    inFlight = null;
    const next = pending;
    pending = null;
    if (next && next.key !== req.key) { send(next); return; }
    // A model load overtook the search: its answer is about the old model; ask again.
    if (err && client.loadId !== loadId) { store.set({ beamBusy: null }); queueMicrotask(run); return; }
    doneKey = req.key;
    if (err) store.set({ beamBusy: null, beamError: friendly(err) });
    else store.set({ beamBusy: null, beamError: null, beamResult: { ...res, text: req.text, scoreScale: req.scoreScale, key: req.key } });
  }

  function run() {
    if (stopped) return;
    const req = beamRequest(store.get(), client.loadId);
    if (!req || (seen && !seen.active())) return;
    if (inFlight) { pending = req.key === inFlight.key ? null : req; return; }
    if (req.key === doneKey) return;
    send(req);
  }

  const unsubscribe = store.subscribe((st, changed) => {
    if (['trace', 'info', 'beam', 'beamLp', 'status'].some((k) => changed.has(k))) queueMicrotask(run);
  });
  queueMicrotask(run);
  const unwake = seen?.onWake(run);

  return {
    destroy() { stopped = true; unsubscribe(); unwake?.(); },
  };
}
