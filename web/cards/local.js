// local.js - the step-through's local window, a what-if: a control for the
// half width D (off, 0 … CONFIG.localWindowMax) re-decodes the sentence with
// Luong's local-m window (controllers/local.js), and the windowed output and
// heatmap show beside the global ones with the words that changed marked
// (views/beside.js, as the pin card shows its pinned decode). A sentence
// computed from the two results says where they part and why (lib/local.js
// windowWhy): at that step, was the word global attention looked at most
// outside the window? It numbers and names that step as the step view does,
// at the heatmap's level (lib/steps.js stepName: at word level the step of
// the word, with the piece where they part), and names source words or
// pieces as the heatmap's columns. The report's measure on the held-out test
// (report.local, via index.json) is cited under it. Part of the
// step-through card (cards/steps.js mounts it).

import { h, uid } from '../lib/dom.js';
import { figureMatrix } from '../lib/figure.js';
import { rowOfStep } from '../lib/words.js';
import { stepName } from '../lib/steps.js';
import { translationWords } from '../lib/pin.js';
import { WINDOW_CHOICES, localReportFor, measuredOnText, windowWhy } from '../lib/local.js';
import { fmt } from '../lib/math.js';
import { t, num } from '../i18n/index.js';
import { legendGradientCSS } from '../theme.js';
import { createBeside } from '../views/beside.js';
import { sayStep } from '../views/step-name.js';

/** ctx: { frame (the widget's render scheduler), actions: { setWindow(d | null), setStep(step) } } */
export function mountLocal(store, { frame = null, actions }) {
  // One radio per choice (off, 0 … max), in a fieldset: Tab reaches the group, the arrow keys move the choice.
  const name = uid('window');
  const choices = [null, ...WINDOW_CHOICES].map((d) => {
    const input = h('input', { type: 'radio', name, value: d == null ? 'off' : String(d) });
    input.addEventListener('change', () => { if (input.checked) actions.setWindow(d); });
    return { d, input, label: h('label', { class: 'as-local-choice' }, input, d == null ? t('local.off') : num(d)) };
  });
  const control = h('fieldset', { class: 'as-local-control' }, h('legend', null, t('local.label')), ...choices.map((c) => c.label));
  const scaleNote = h('p', { class: 'as-small as-muted as-local-note' });
  const unavailable = h('p', { class: 'as-small as-muted', hidden: true }, t('local.noAttention'));
  const busy = h('p', { class: 'as-small as-muted', hidden: true }, t('local.decoding'));
  const error = h('p', { class: 'as-small as-local-error', role: 'alert', hidden: true });
  const why = h('p', { class: 'as-local-why', role: 'status', 'aria-live': 'polite', hidden: true });
  const report = h('p', { class: 'as-small as-muted as-local-report', hidden: true });
  const legend = h('div', { class: 'as-legend as-small' }, h('span', null, t('heat.legendLow')),
    h('span', { class: 'as-legend-bar', 'aria-hidden': 'true', style: { 'background-image': legendGradientCSS() } }), h('span', null, t('heat.legendHigh')),
    h('span', { class: 'as-muted as-legend-text' }, t('pin.marked')));
  let windowedMatrix = null;
  let windowedFor = null;
  const beside = createBeside({
    prefix: 'local', kinds: ['global', 'window'], heads: [t('local.globalHead'), ''], frame,
    onPick: (which, row) => { const m = which === 0 ? store.get().matrix : windowedMatrix; actions.setStep(m?.rowGroups?.[row]?.first ?? row); },
  });
  const results = h('div', { class: 'as-local-results', hidden: true }, legend, beside.element);
  const element = h('div', { class: 'as-local' }, control, scaleNote, unavailable, busy, error, why, results, report);

  function matrixOf(st, r) {
    if (windowedFor?.result !== r || windowedFor.pieces !== st.pieces || windowedFor.info !== st.info) {
      windowedMatrix = figureMatrix(r, st.info, st.pieces);
      windowedFor = { result: r, pieces: st.pieces, info: st.info };
    }
    return windowedMatrix;
  }

  function renderReport(st) {
    const r = localReportFor(st);
    report.hidden = !r;
    if (!r) return;
    const windows = r.windows.map((w) => t('local.reportWindow', { d: num(w.d), diff: signed(w.minus.bleu), lo: signed(w.minus.ci90[0]), hi: signed(w.minus.ci90[1]) })).join('; ');
    // The model's own numbers, or its kind's measured model's, named.
    const said = t(r.own ? 'local.reportOwn' : 'local.report', { n: num(r.sentences), g: fmt(r.global.bleu, 1), windows });
    const on = measuredOnText(r);
    report.textContent = on ? `${said} ${on}` : said;
    report.dataset.measuredOn = r.measuredOn ?? '';
    report.dataset.own = String(r.own);
    report.dataset.global = String(r.global.bleu);
    report.dataset.windows = JSON.stringify(r.windows.map((w) => [w.d, w.minus.bleu]));
  }

  function render(st) {
    const d = st.winD;
    const attends = !!st.trace?.alpha;
    for (const c of choices) {
      c.input.checked = c.d === (d ?? null);
      c.input.disabled = !!st.trace && !attends;
    }
    unavailable.hidden = attends || !st.trace;
    scaleNote.hidden = d == null || !attends;
    if (!scaleNote.hidden) scaleNote.textContent = t('local.scaleNote', { T: num(st.trace.T), S: num(st.trace.S) });
    const w = st.windowed;
    const shown = !!(d != null && attends && w?.result && w.for === st.trace && w.d === d && st.matrix?.alpha);
    busy.hidden = !w?.busy;
    error.hidden = !w?.error;
    error.textContent = w?.error ?? '';
    results.hidden = !shown;
    why.hidden = !shown;
    if (!shown) { beside.hide(); return; }
    const m = matrixOf(st, w.result);
    const diff = beside.show(st.trace, w.result, st.info?.targetLanguage);
    const [global, windowed] = beside.columns();
    windowed.head.textContent = t('local.windowHead', { d: num(d) });
    global.heat.update(st.matrix);
    windowed.heat.update(m);
    const y = windowWhy(st.trace, w.result, d, { pieces: st.matrix.level === 'pieces' });
    const at = y.same ? null : stepName(st.matrix, st.trace, y.step);
    global.heat.setMarkedRow(y.same ? -1 : rowOfStep(st.matrix, y.step));
    windowed.heat.setMarkedRow(y.same ? -1 : rowOfStep(m, y.step));
    const total = translationWords(st.trace).length;
    global.line.textContent = t(y.same ? 'local.lineGlobalSame' : 'local.lineGlobal', { n: total }); // no row outlined when the two agree
    windowed.line.textContent = t('local.lineWindow', { n: diff.distance });
    // In words, from the two results: whether they differ, where they part, and why.
    why.textContent = y.same ? t('local.same', { d: num(d), n: total })
      : `${t('local.changed', { d: num(d), n: diff.distance, total: num(total) })} ${t(y.outside ? 'local.partOutside' : 'local.partInside', {
        step: num(at.number), word: sayStep(at), looked: y.looked, centre: y.centre, dist: num(y.distance), n: y.distance, d: num(d), lost: fmt(y.lost, 2),
      })}${y.outside ? ` ${t('local.diagonal')}` : ''}`;
    element.dataset.changed = String(diff.distance);
    element.dataset.partStep = y.same ? '' : String(y.step);
  }

  return {
    element,
    update(st, changed) {
      if (['winD', 'windowed', 'trace', 'matrix', 'pieces', 'info'].some((k) => changed.has(k))) render(st);
      if (['catalog', 'info', 'model', 'local'].some((k) => changed.has(k))) renderReport(st);
    },
    redraw() { beside.redraw(); },
    destroy() { beside.destroy(); },
  };
}

/** A BLEU difference with its sign ("+1.2", "−0.4"), in the UI language. */
const signed = (x) => (x > 0 ? `+${fmt(x, 1)}` : x < 0 ? `−${fmt(-x, 1)}` : fmt(0, 1));
