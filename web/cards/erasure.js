// erasure.js - the "Where it looked vs what it needed" card. Attention
// shows where the decoder looked; erasure asks what the output needed:
// each source word removed in turn and the same translation scored again
// (controllers/erasure.js, computed in the worker, lib/erasure.js). Beside a
// small copy of the attention map, with the same rows and columns (the
// heatmap's level: words, or pieces with "Show subword pieces"), the
// erasure map: cell (t, j) the drop in log p of target word t when source
// word j is removed, on a diverging scale with its own legend, each row's
// rank correlation ρ with attention in the side column. Below: one
// sentence with the overall agreement (the mean of the rows' Spearman ρ)
// and the cells where the two disagree most, a table with, per target word,
// the most-attended and the most-needed source word and whether they agree,
// and every number as a table (the maps' text alternative). The
// no-attention model has no attention map (the card says so); its
// erasure deletes the word from the source instead of masking it.

import { CONFIG } from '../config.js';
import { h, replaceChildren } from '../lib/dom.js';
import { fmt } from '../lib/math.js';
import { rowOfStep } from '../lib/words.js';
import { compareRows, dropScale, sumRows, worstDisagreements } from '../lib/erasure.js';
import { erasureRequest } from '../controllers/erasure.js';
import { divergingGradientCSS, legendGradientCSS } from '../theme.js';
import * as heatmapView from '../views/heatmap.js';
import { t, num } from '../i18n/index.js';
import { localReportFor, measuredOnText } from '../lib/local.js';

// Both maps: the comparison's cells (two fit side by side), absolute colour (α is compared as it is).
const COLUMN_OPTIONS = { colour: 'absolute', zoom: 1, labelPx: CONFIG.labelPx, cellMax: CONFIG.compareCellMax, reserve: CONFIG.heatBoxReservePx };
// +0.42, −1.30, 0.00 (no sign on what rounds to zero), — for a cell that cannot be removed.
const signed = (x, d = 2) => {
  if (!Number.isFinite(x)) return '—';
  const zero = Math.abs(x) < 0.5 * 10 ** -d;
  return `${zero ? '' : x > 0 ? '+' : '−'}${fmt(Math.abs(x), d)}`;
};

/**
 * The card's figures for the store's state, or why there are none:
 *   { attention (the heatmap's matrix, its alpha null without attention), erasure (a view model
 *     for views/heatmap.js: alpha the drops, entropies the rows' ρ), cmp (lib/erasure.js compareRows),
 *     worst (worstDisagreements), method } | null
 * Exported for the tests: the rows and columns are the heatmap's by construction.
 */
export function erasureFigures(st) {
  const req = erasureRequest(st);
  const e = st.erasure;
  if (!req || !e?.result || e.for !== req.trace || e.columns !== req.columns) return null;
  const m = st.matrix;
  const r = e.result;
  const drop = sumRows(r.drop, r.T, r.G, m.rowGroups);
  const cmp = compareRows(m.alpha, drop, m.T, m.S);
  const erasure = {
    T: m.T, S: m.S, rowLabels: m.rowLabels, colLabels: m.colLabels, alpha: drop, level: m.level, trace: m.trace,
    entropies: cmp.rows.map((row) => row.rho), rowMax: null, erasure: { scale: dropScale(drop) },
  };
  return { attention: m, erasure, cmp, worst: worstDisagreements(cmp), method: r.method, erasable: r.erasable };
}

/** ctx: { headingId, frame (the widget's render scheduler), actions: { setStep(step) } } */
export function mount(store, { headingId, frame = null, actions }) {
  const intro = h('p', { class: 'as-small as-muted' }, t('erasure.intro'));
  const method = h('p', { class: 'as-small as-muted as-er-method' });
  const status = h('p', { class: 'as-small as-er-status', role: 'status' });
  const sentence = h('p', { class: 'as-er-sentence', 'aria-live': 'polite' });
  const worst = h('p', { class: 'as-small as-er-worst' });
  const scaleLow = h('span');
  const scaleHigh = h('span');
  const attentionLegend = h('div', { class: 'as-legend as-small' }, h('span', null, t('erasure.legendAttention')), h('span', null, '0'),
      h('span', { class: 'as-legend-bar', 'aria-hidden': 'true', style: { 'background-image': legendGradientCSS() } }), h('span', null, '1'));
  const legends = h('div', { class: 'as-row as-wrap' }, attentionLegend,
    h('div', { class: 'as-legend as-small' }, h('span', null, t('erasure.legendErasure')), scaleLow,
      h('span', { class: 'as-legend-bar', 'aria-hidden': 'true', style: { 'background-image': divergingGradientCSS() } }), scaleHigh,
      h('span', { class: 'as-muted as-legend-text' }, t('erasure.legendText'))));

  const column = (kind, title, note) => {
    const box = h('div', { class: 'as-heat-box' });
    const el = h('article', { class: 'as-er-col', dataset: { map: kind } }, h('h3', { class: 'as-er-col-title' }, title), h('p', { class: 'as-small as-muted' }, note), box);
    const heat = heatmapView.render(box, { frame, onPick: (row) => actions.setStep(store.get().matrix?.rowGroups?.[row]?.first ?? row) });
    heat.setOptions(COLUMN_OPTIONS);
    return { el, box, heat };
  };
  // The two maps exist only once there is a result: until then the card has no canvases (nor their Tab stops).
  let looked = null;
  let needed = null;
  const grid = h('div', { class: 'as-er-grid' });
  const agreeBody = h('tbody');
  const agreeHead = h('thead');
  const agreeTable = h('table', { class: 'as-table as-er-agree' },
    h('caption', { class: 'as-small as-strong' }, t('erasure.agreeCaption')), agreeHead, agreeBody);
  const numbers = h('table', { class: 'as-table as-er-numbers' });
  const region = (table, label) => h('div', { class: 'as-table-wrap as-er-agree-wrap', tabindex: '0', role: 'region', 'aria-label': label }, table);
  const details = h('details', { class: 'as-er-details' }, h('summary', null, t('erasure.numbersSummary')), region(numbers, t('erasure.numbersSummary')));
  const results = h('div', { class: 'as-er-results', hidden: true }, sentence, worst, legends, grid, region(agreeTable, t('erasure.agreeCaption')), details);
  // The report's measure of the same question on the held-out test (report.local, via index.json).
  const report = h('p', { class: 'as-small as-muted as-er-report', hidden: true });
  const element = h('section', { class: 'as-card as-erasure-card', 'aria-labelledby': headingId, dataset: { state: 'waiting' } },
    h('div', { class: 'as-card-head' }, h('h2', { id: headingId }, t('erasure.heading'))),
    intro, method, status, results, report);

  const ensureColumns = () => {
    if (looked) return;
    looked = column('attention', t('erasure.lookedHead'), t('erasure.lookedNote'));
    needed = column('erasure', t('erasure.neededHead'), t('erasure.neededNote'));
    grid.replaceChildren(looked.el, needed.el);
  };

  // The figures last drawn, and what they were made of: moving the step only moves the marked rows.
  let drawn = { erasure: undefined, matrix: undefined, info: undefined, fig: null };
  function render(st) {
    const e = st.erasure;
    const same = drawn.erasure === e && drawn.matrix === st.matrix && drawn.info === st.info;
    const fig = same ? drawn.fig : erasureFigures(st);
    if (same) {
      if (fig) markStep(fig, st);
      return;
    }
    drawn = { erasure: e, matrix: st.matrix, info: st.info, fig };
    const attends = st.info && st.info.attention !== 'none';
    method.textContent = !st.info ? '' : t(attends ? 'erasure.methodMask' : 'erasure.methodDelete');
    const busy = !!e?.busy;
    element.dataset.state = fig ? 'ready' : e?.error && e.for === st.trace ? 'error' : busy ? 'busy' : 'waiting';
    status.dataset.error = String(element.dataset.state === 'error');
    status.textContent = element.dataset.state === 'error' ? e.error : fig ? '' : st.trace ? t('erasure.computing') : t('erasure.waiting');
    results.hidden = !fig;
    if (!fig) return;
    ensureColumns();
    const { attention, erasure, cmp } = fig;
    element.dataset.level = attention.level;
    element.dataset.method = fig.method;
    element.dataset.meanRho = String(cmp.meanRho);
    looked.heat.update(attention.alpha ? attention : { message: t('erasure.noAttention') });
    needed.heat.update(erasure);
    markStep(fig, st);
    scaleLow.textContent = signed(-erasure.erasure.scale);
    scaleHigh.textContent = signed(erasure.erasure.scale);
    // The rows and columns as drawn (the tests compare them with the heatmap's).
    needed.box.dataset.rows = JSON.stringify(erasure.rowLabels);
    needed.box.dataset.cols = JSON.stringify(erasure.colLabels);
    renderSentence(fig);
    renderAgreement(fig);
    renderNumbers(fig);
  }

  function markStep({ attention }, st) {
    const marked = rowOfStep(attention, st.step);
    if (attention.alpha) looked.heat.setMarkedRow(marked);
    needed.heat.setMarkedRow(marked);
  }

  function renderSentence({ attention, erasure, cmp, worst: w, erasable }) {
    const none = erasable.every((x) => !x);
    if (none) {
      sentence.textContent = t('erasure.nothingErasable');
      worst.textContent = '';
      return;
    }
    if (!attention.alpha) {
      // No attention: what the output needed, alone.
      let best = { r: 0, c: 0 };
      for (let r = 0; r < erasure.T; r++) for (let c = 0; c < erasure.S; c++) {
        const v = erasure.alpha[r * erasure.S + c];
        if (Number.isFinite(v) && !(v <= erasure.alpha[best.r * erasure.S + best.c])) best = { r, c };
      }
      sentence.textContent = t('erasure.sentenceNone', { row: erasure.rowLabels[best.r], col: erasure.colLabels[best.c], d: fmt(erasure.alpha[best.r * erasure.S + best.c], 2) });
      worst.textContent = '';
      return;
    }
    sentence.textContent = Number.isFinite(cmp.meanRho)
      ? t('erasure.sentence', { rho: signed(cmp.meanRho), rows: num(cmp.rhoRows), agree: num(cmp.agreeCount), n: cmp.compared })
      : t('erasure.sentenceNoRho', { agree: num(cmp.agreeCount), n: cmp.compared });
    if (!w.length) {
      worst.textContent = t('erasure.worstNone');
      return;
    }
    const at = (r, c) => erasure.alpha[r * erasure.S + c];
    worst.textContent = w.map((d) => t('erasure.worst', {
      row: erasure.rowLabels[d.row], looked: erasure.colLabels[d.attended], a: fmt(attention.alpha[d.row * attention.S + d.attended], 2),
      dLooked: signed(at(d.row, d.attended)), needed: erasure.colLabels[d.needed], dNeeded: signed(at(d.row, d.needed)),
    })).join(' ');
  }

  function renderAgreement({ attention, erasure, cmp }) {
    // Without attention: what each target word needed, alone (there is nothing to agree with).
    const attends = !!attention.alpha;
    attentionLegend.hidden = !attends;
    replaceChildren(agreeHead, h('tr', null, (attends ? ['colTarget', 'colAttended', 'colNeeded', 'colAgree'] : ['colTarget', 'colNeeded'])
      .map((k) => h('th', { scope: 'col' }, t(`erasure.${k}`)))));
    replaceChildren(agreeBody, cmp.rows.map((row, r) => {
      const needed = h('td', null, row.needed >= 0 ? `${erasure.colLabels[row.needed]} (${signed(erasure.alpha[r * erasure.S + row.needed])})` : '—');
      if (!attends) return h('tr', { dataset: { agree: 'null' } }, h('th', { scope: 'row' }, erasure.rowLabels[r]), needed);
      const mark = row.agree === null ? { text: '—', label: t('erasure.agreeNothing') }
        : row.agree ? { text: '✓', label: t('erasure.agreeYes') } : { text: '✗', label: t('erasure.agreeNo') };
      return h('tr', { dataset: { agree: String(row.agree) } },
        h('th', { scope: 'row' }, erasure.rowLabels[r]),
        h('td', null, row.attended >= 0 ? `${attention.colLabels[row.attended]} (α ${fmt(attention.alpha[r * attention.S + row.attended], 2)})` : '—'),
        needed,
        h('td', null, h('span', { class: 'as-er-mark' }, h('span', { 'aria-hidden': 'true' }, mark.text), ' ', mark.label)));
    }));
  }

  function renderNumbers({ erasure }) {
    const { T, S } = erasure;
    replaceChildren(numbers,
      h('caption', null, t(erasure.level === 'pieces' ? 'erasure.numbersCaptionPieces' : 'erasure.numbersCaption', { source: erasure.trace.text, translation: erasure.trace.translation })),
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, t('table.corner')), erasure.colLabels.map((c) => h('th', { scope: 'col' }, c)), h('th', { scope: 'col' }, t('erasure.sideHead')))),
      h('tbody', null, Array.from({ length: T }, (_, r) => h('tr', null,
        h('th', { scope: 'row' }, erasure.rowLabels[r]),
        Array.from({ length: S }, (__, c) => h('td', null, signed(erasure.alpha[r * S + c], 3))),
        h('td', null, signed(erasure.entropies[r]))))));
  }

  function renderReport(st) {
    const r = localReportFor(st);
    const a = r?.agreement;
    report.hidden = !a;
    if (!a) return;
    const pct = (x) => t('steps.percent', { p: fmt(100 * x, 1) });
    // The model's own numbers, or its kind's measured model's, named.
    const said = t(r.own ? 'erasure.reportOwn' : 'erasure.report', { n: num(r.sentences), share: pct(a.share), compared: num(a.compared), lo: pct(a.ci90[0]), hi: pct(a.ci90[1]) });
    const on = measuredOnText(r);
    report.textContent = on ? `${said} ${on}` : said;
    report.dataset.share = String(a.share);
    report.dataset.measuredOn = r.measuredOn ?? '';
    report.dataset.own = String(r.own);
  }

  const KEYS = ['erasure', 'matrix', 'trace', 'info', 'step'];
  return {
    element,
    update(st, changed) {
      if (KEYS.some((k) => changed.has(k))) render(st);
      if (['catalog', 'info', 'model', 'local'].some((k) => changed.has(k))) renderReport(st);
    },
    redraw() { looked?.heat.redraw(); needed?.heat.redraw(); },
    destroy() { looked?.heat.destroy(); needed?.heat.destroy(); },
  };
}
