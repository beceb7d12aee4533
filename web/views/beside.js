// beside.js - two translations of one sentence side by side, each with its
// heatmap on one absolute colour scale, the words that differ between them
// marked (lib/pin.js diffWords over translationWords): the model's own
// decode and another one of the same text. The pin card (its pinned
// attention) and the step-through's local window (cards/local.js) show
// theirs with it. The columns exist only while shown (show() builds them,
// hide() drops them), so a page without such a result has no extra
// canvases nor their Tab stops. Class names carry the card's prefix
// (as-pin-col, as-local-col …; alignscope.css styles both alike).

import { CONFIG } from '../config.js';
import { h, replaceChildren } from '../lib/dom.js';
import { diffWords, translationSegments, translationWords } from '../lib/pin.js';
import * as heatmapView from './heatmap.js';

// The two heatmaps: one absolute colour scale (they are compared), cells as the comparison's.
const COLUMN_OPTIONS = { colour: 'absolute', zoom: 1, labelPx: CONFIG.labelPx, cellMax: CONFIG.compareCellMax, reserve: CONFIG.heatBoxReservePx };

/**
 * opts: { prefix ('pin', 'local'), kinds: [original, other] (each column's data-<prefix> value),
 *         heads: [text, text], frame (the widget's render scheduler), onPick(which 0|1, row) }
 * -> { element (the grid), columns() → [a, b] | null (each { el, head, translation, line, box, heat }),
 *      show(a, b, targetLanguage) → the words' diff (a, b: traces; their matrices go to update()),
 *      hide(), redraw(), destroy() }
 */
export function createBeside({ prefix, kinds, heads, frame = null, onPick }) {
  const grid = h('div', { class: `as-${prefix}-grid` });
  let cols = null;
  const column = (which) => {
    const head = h('h3', { class: `as-${prefix}-col-title` }, heads[which]);
    const translation = h('p', { class: `as-${prefix}-translation` });
    const line = h('p', { class: 'as-small as-muted' });
    const box = h('div', { class: 'as-heat-box' });
    const el = h('article', { class: `as-${prefix}-col`, dataset: { [prefix]: kinds[which] } }, head, translation, line, box);
    const heat = heatmapView.render(box, { frame, onPick: (row) => onPick?.(which, row) });
    heat.setOptions(COLUMN_OPTIONS);
    return { el, head, translation, line, box, heat };
  };
  const hide = () => {
    if (!cols) return;
    for (const c of cols) c.heat.destroy();
    grid.replaceChildren();
    cols = null;
  };
  const mark = (el, trace, changed) => replaceChildren(el, translationSegments(trace).map((s) => (s.word != null && changed[s.word]
    ? h('mark', { class: `as-${prefix}-changed` }, s.text)
    : s.text)));
  return {
    element: grid,
    columns: () => cols,
    show(a, b, targetLanguage) {
      if (!cols) {
        cols = [column(0), column(1)];
        grid.replaceChildren(cols[0].el, cols[1].el);
      }
      const d = diffWords(translationWords(a), translationWords(b));
      mark(cols[0].translation, a, d.changedA);
      mark(cols[1].translation, b, d.changedB);
      for (const c of cols) if (targetLanguage) c.translation.lang = targetLanguage;
      return d;
    },
    hide,
    redraw() { for (const c of cols ?? []) c.heat.redraw(); },
    destroy: hide,
  };
}
