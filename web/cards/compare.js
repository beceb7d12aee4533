// compare.js - the comparison card: the main model and up to COMPARE_MAX
// others on the same sentence, side by side (stacked on a phone). Each
// column has its translation, its heatmap on the one colour scale every
// heatmap uses (α from 0 to 1, never per row, so columns compare), each
// row's entropy, how widely its scores spread before and after the slider's
// divisor (the number behind √d), and what it does at the current step; a
// model without attention says why it has no heatmap. Under the columns, a
// note computed from those numbers: whether the column whose scores reach the
// softmax most widely spread has the sharpest rows. Below them, the difference heatmap
// α_A − α_B of the main model and one other, where both read the same
// source words. The step (the step-through's) is marked in every column, so
// playing the step-through plays them all: the step view's row, at the
// heatmap's level (step i is row i of every column, as the difference
// heatmap pairs rows), numbered as the step view numbers it. The models come from
// controllers/compare.js through the store (`compare`, `compared`,
// `compareMatrices`); the checkboxes write `compare` (URL `vs=`).

import { CONFIG } from '../config.js';
import { rowOfStep } from '../lib/words.js';
import { stepOfRow } from '../lib/steps.js';
import { h, replaceChildren } from '../lib/dom.js';
import { attentionName, bleuWithBudget, fixedSummary, kindUnlessNamed, updatesCount, weightsName } from '../lib/catalog.js';
import { COMPARE_MAX, comparedIds, differenceMatrix, mean, scoreSpread, spreadVerdict } from '../lib/compare.js';
import { own } from '../lib/own.js';
import { fmt } from '../lib/math.js';
import { t, tParts, num } from '../i18n/index.js';
import { legendGradientCSS, divergingGradientCSS } from '../theme.js';
import * as heatmapView from '../views/heatmap.js';

// The comparison's heatmaps: one absolute colour scale, cells a little smaller than the main map's.
const COLUMN_OPTIONS = { colour: 'absolute', zoom: 1, labelPx: CONFIG.labelPx, cellMax: CONFIG.compareCellMax, cellMin: CONFIG.compareCellMin, reserve: CONFIG.heatBoxReservePx };


/** ctx: { headingId, frame (the widget's render scheduler), actions: { setStep(step) } } */
export function mount(store, { headingId, frame = null, actions }) {
  const picker = h('fieldset', { class: 'as-compare-pick' });
  const grid = h('div', { class: 'as-compare-grid' });
  // The columns' colour scale, shown once there are columns.
  const legendSlot = h('div', { class: 'as-compare-legend-slot' });
  const ensureLegend = () => {
    if (legendSlot.firstChild) return;
    legendSlot.append(h('div', { class: 'as-legend as-small' }, h('span', null, t('heat.legendLow')), h('span', { class: 'as-legend-bar', 'aria-hidden': 'true', style: { 'background-image': legendGradientCSS() } }), h('span', null, t('heat.legendHigh'))));
  };
  const status = h('p', { class: 'as-visually-hidden', 'aria-live': 'polite' });
  const spreadNote = h('p', { class: 'as-small as-compare-spread-note', hidden: true });
  // The difference heatmap is built the first time there is something to compare.
  const diffSlot = h('div', { class: 'as-compare-diff-slot' });
  let diff = null;
  let diffSelect = null;
  let diffNote = null;
  let diffHeat = null;
  function buildDifference() {
    diffSelect = h('select', { class: 'as-select as-compare-diff-with', 'aria-label': t('compare.diffWith') });
    diffNote = h('p', { class: 'as-small as-muted as-compare-diff-note' });
    const diffBox = h('div', { class: 'as-heat-box as-compare-diff-box' });
    const diffLegend = h('div', { class: 'as-legend as-small' },
      h('span', null, '−1'), h('span', { class: 'as-legend-bar', 'aria-hidden': 'true', style: { 'background-image': divergingGradientCSS() } }), h('span', null, '+1'),
      h('span', { class: 'as-muted as-legend-text' }, t('compare.diffLegend')));
    diff = h('div', { class: 'as-compare-diff', hidden: true },
      h('div', { class: 'as-card-head' }, h('h3', null, t('compare.diffHead')), diffLegend),
      h('p', { class: 'as-small' }, h('label', null, ...tParts('compare.diffPick', { select: diffSelect }))),
      diffBox, diffNote);
    diffSlot.append(diff);
    diffHeat = heatmapView.render(diffBox, { frame });
    diffHeat.setOptions(COLUMN_OPTIONS);
    diffSelect.addEventListener('change', () => renderDifference(store.get()));
  }
  const element = h('section', { class: 'as-card as-compare-card', 'aria-labelledby': headingId },
    h('div', { class: 'as-card-head' }, h('h2', { id: headingId }, t('compare.heading')), legendSlot),
    h('p', { class: 'as-small as-muted' }, t('compare.intro', { max: num(COMPARE_MAX) })),
    picker, status, grid, spreadNote, diffSlot);

  const columns = new Map(); // id -> { element, title, meta, translation, line, box, heat, heatShown }
  let pickerKey = '';

  function renderPicker(st) {
    const models = st.catalog?.models ?? [];
    const chosen = comparedIds(st.compare, st.model);
    const key = `${st.model}|${chosen.join(',')}|${models.map((m) => m.id).join(',')}`;
    if (key === pickerKey) return;
    pickerKey = key;
    const full = chosen.length >= COMPARE_MAX;
    const boxes = models.filter((m) => m.id !== st.model).map((m) => {
      const on = chosen.includes(m.id);
      const input = h('input', { type: 'checkbox', value: m.id, checked: on, disabled: !on && full });
      input.addEventListener('change', () => {
        const now = comparedIds(store.get().compare, store.get().model);
        store.set({ compare: input.checked ? [...now, m.id].slice(0, COMPARE_MAX) : now.filter((x) => x !== m.id) });
      });
      // One inline run of text, so a long name wraps under itself on a phone; the budget beside it, since
      // the columns compare fairly only between models trained for as many updates.
      const facts = [kindUnlessNamed(m), updatesCount(m)].filter(Boolean).join(' · ');
      return h('label', { class: 'as-compare-option' }, input, h('span', null, m.label || m.id, facts ? h('span', { class: 'as-muted' }, ` · ${facts}`) : null));
    });
    replaceChildren(picker, h('legend', { class: 'as-small' }, t(full ? 'compare.pickFull' : 'compare.pick', { max: num(COMPARE_MAX) })), boxes);
  }

  function column(id) {
    let c = columns.get(id);
    if (c) return c;
    const title = h('h3', { class: 'as-compare-title' });
    const meta = h('p', { class: 'as-small as-muted' });
    const translation = h('p', { class: 'as-compare-translation' });
    const line = h('p', { class: 'as-small as-compare-line' });
    const spread = h('p', { class: 'as-small as-muted as-compare-spread' });
    const progress = h('progress', { class: 'as-compare-progress', hidden: true });
    const message = h('p', { class: 'as-small as-compare-message', hidden: true });
    const box = h('div', { class: 'as-heat-box' });
    const main = id === null;
    const remove = main ? null : h('button', { type: 'button', class: 'as-btn as-btn-small', 'aria-label': t('compare.removeLabel', { id }) }, t('compare.remove'));
    remove?.addEventListener('click', () => store.set({ compare: comparedIds(store.get().compare, store.get().model).filter((x) => x !== id) }));
    const heat = heatmapView.render(box, {
      frame,
      // A row of this column: move the step-through to that row (the main model's decoder step that begins it).
      onPick: (t) => { const st = store.get(); actions.setStep(st.matrix ? stepOfRow(st.matrix, t) : t); },
    });
    heat.setOptions(COLUMN_OPTIONS);
    const el = h('article', { class: 'as-compare-col', dataset: { model: main ? 'main' : id } },
      h('div', { class: 'as-compare-col-head' }, title, remove), meta, translation, line, spread, progress, message, box);
    c = { element: el, title, meta, translation, line, spread, progress, message, box, heat, main };
    columns.set(id, c);
    return c;
  }

  /** The figure matrix of a column (null: the main model), or null while it has none for this sentence. */
  function matrixOf(st, id) {
    if (id === null) return st.matrix;
    const m = own(st.compareMatrices, id);
    return m && st.trace && m.trace.text === st.trace.text ? m : null;
  }

  /**
   * The row of matrix `m` (a column's) at the step-through's step: the step
   * view's row of the main heatmap (a word, or a piece), the same index in
   * every column, the last row of a shorter translation.
   */
  function rowNow(st, m) {
    const row = st.matrix ? rowOfStep(st.matrix, st.step ?? 0) : rowOfStep(m, st.step ?? 0);
    return Math.max(0, Math.min(m.T - 1, row));
  }

  /** -> { name, spread, entropy } for the spread note (spread null: nothing to measure). */
  function renderColumn(st, id) {
    const c = column(id);
    const entry = st.catalog?.models.find((m) => m.id === (id ?? st.model));
    const slot = id === null ? { status: st.status, info: st.info, error: st.error?.message, progress: st.progress } : own(st.compared, id) ?? { status: 'loading' };
    const info = slot.info;
    const name = entry?.label || id || st.local?.name || t('compare.modelFallback');
    c.title.textContent = id === null ? t('compare.main', { name }) : name;
    c.meta.textContent = [attentionName(info?.attention ?? entry?.attention), weightsName(entry?.weights ?? info?.weightType, { short: true }), bleuWithBudget(entry)].filter(Boolean).join(' · ');
    const m = matrixOf(st, id);
    const trace = m?.trace;
    c.translation.textContent = trace ? trace.translation : '';
    if (entry?.target) c.translation.lang = entry.target;
    const p = slot.progress;
    c.progress.hidden = !p;
    if (p?.max) { c.progress.max = p.max; c.progress.value = p.value ?? 0; } else c.progress.removeAttribute('value');
    let message = null;
    if (slot.status === 'failed') message = slot.error ?? t('compare.failed');
    else if (p) message = p.text;
    else if (slot.error && id !== null) message = slot.error;
    else if (!trace) message = t('compare.translating');
    else if (!m.alpha) {
      const fixed = fixedSummary(info);
      message = t('compare.none', { formula: fixed.formula, words: fixed.words });
    }
    c.message.hidden = !message;
    c.message.textContent = message ?? '';
    if (m?.alpha) {
      c.heat.update(m);
      const row = rowNow(st, m);
      c.heat.setMarkedRow(row);
      const alphaRow = Array.from(m.alpha.subarray(row * m.S, (row + 1) * m.S));
      const best = alphaRow.indexOf(Math.max(...alphaRow));
      c.line.textContent = t('compare.line', { h: fmt(mean(m.entropies), 2), step: num(row + 1), row: m.rowLabels[row], col: m.colLabels[best], a: fmt(alphaRow[best]) });
    } else {
      const row = trace ? rowNow(st, m) : 0;
      c.line.textContent = trace && !m.alpha ? t('compare.lineNone', { step: num(row + 1), word: m.rowLabels[row] ?? '' }) : '';
    }
    c.box.hidden = !m?.alpha;
    const spread = m?.alpha ? scoreSpread(m.trace) : null;
    c.spread.textContent = spread ? t('compare.spread', { raw: fmt(spread.raw, 2), div: fmt(spread.divisor, 2), seen: fmt(spread.seen, 2) }) : '';
    c.spread.hidden = !spread;
    return { name, spread, entropy: m?.alpha ? mean(m.entropies) : NaN };
  }

  function renderSpreadNote(measured) {
    const v = spreadVerdict(measured);
    spreadNote.hidden = !v;
    spreadNote.textContent = v ? t(v.agrees ? 'compare.spreadAgrees' : 'compare.spreadDisagrees', {
      wide: v.wide.name, sw: fmt(v.wide.spread.seen, 2), hw: fmt(v.wide.entropy, 2),
      narrow: v.narrow.name, sn: fmt(v.narrow.spread.seen, 2), hn: fmt(v.narrow.entropy, 2),
    }) : '';
  }

  function renderDifference(st) {
    const ids = comparedIds(st.compare, st.model);
    if (!diff) buildDifference();
    const withAttention = ids.filter((id) => own(st.compared, id)?.info?.attention !== 'none');
    const options = withAttention.map((id) => `${id}`);
    if (diffSelect.options.length !== options.length || options.some((id, i) => diffSelect.options[i].value !== id)) {
      const keep = diffSelect.value;
      replaceChildren(diffSelect, options.map((id) => h('option', { value: id }, st.catalog?.models.find((m) => m.id === id)?.label || id)));
      if (options.includes(keep)) diffSelect.value = keep;
    }
    diff.hidden = !ids.length || st.info?.attention === 'none';
    if (diff.hidden) return;
    const b = diffSelect.value || null;
    const A = st.matrix;
    const B = b ? matrixOf(st, b) : null;
    if (!b) {
      diffHeat.update({ message: t('compare.diffNeedsTwo') });
      diffNote.textContent = '';
      return;
    }
    if (!A?.alpha || !B) {
      diffHeat.update({ message: t('compare.diffWaiting') });
      diffNote.textContent = '';
      return;
    }
    const d = differenceMatrix(A, B, { labelA: t('compare.mainModel'), labelB: `“${b}”` });
    if (d.reason) {
      diffHeat.update({ message: d.reason });
      diffNote.textContent = '';
      return;
    }
    diffHeat.update(d);
    diffHeat.setMarkedRow(Math.min(rowOfStep(A, st.step), d.T - 1));
    diffNote.textContent = `${t(A.level === 'pieces' ? 'compare.diffNotePieces' : 'compare.diffNoteWords', { tv: fmt(mean(d.entropies), 2) })}${d.dropped ? t('compare.diffDropped', { n: d.dropped }) : ''}`;
  }

  function render(st) {
    renderPicker(st);
    const ids = [null, ...comparedIds(st.compare, st.model)];
    element.dataset.count = String(ids.length);
    for (const [id, c] of columns) {
      if (!ids.includes(id)) { c.heat.destroy(); c.element.remove(); columns.delete(id); }
    }
    if (ids.length === 1) {
      // Only the main model: nothing to compare yet, no second copy of its heatmap.
      for (const c of columns.values()) c.element.remove();
      grid.hidden = true;
      legendSlot.replaceChildren();
      spreadNote.hidden = true;
      if (diff) diff.hidden = true;
      return;
    }
    grid.hidden = false;
    ensureLegend();
    // Columns in the order of `compare`, moved only when that changes (a moved node loses focus).
    const measured = ids.map((id, i) => {
      const c = column(id);
      if (grid.children[i] !== c.element) grid.insertBefore(c.element, grid.children[i] ?? null);
      return renderColumn(st, id);
    });
    renderSpreadNote(measured);
    renderDifference(st);
    const ready = ids.filter((id) => matrixOf(st, id)).length;
    status.textContent = t('compare.status', { ready: num(ready), n: ids.length });
  }

  const KEYS = ['compare', 'compared', 'compareMatrices', 'matrix', 'step', 'catalog', 'model', 'info', 'status', 'progress', 'trace', 'error'];
  return {
    element,
    update(st, changed) {
      if (KEYS.some((k) => changed.has(k))) render(st);
    },
    redraw() { for (const c of columns.values()) c.heat.redraw(); diffHeat?.redraw(); },
    destroy() { for (const c of columns.values()) c.heat.destroy(); diffHeat?.destroy(); },
  };
}
