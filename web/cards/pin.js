// pin.js - the "Pin the finger" card: at the current step of the
// step-through, the learner puts the decoder's weights where they choose
// (a click on a source word puts all of it there; a slider per word sets
// each share, arrow keys included), and the engine decodes again with that
// α instead of the softmax's (controllers/pin.js). The card shows the
// model's own translation and heatmap beside the pinned ones, with the
// words that differ marked (lib/pin.js diffWords), says in words what was
// changed and by how much (the total variation between the two α rows),
// how much the output changed (word edit distance), and gives the link that
// reproduces it (`pin=` in the URL, state.js).
//
// Levels: the engine pins source POSITIONS (a subword model's pieces). When
// the heatmap shows words, a word's weight is shared evenly by its pieces
// and the other words keep how theirs was shared (lib/pin.js setGroupWeight);
// "Show subword pieces" in the heatmap card sets each piece. The pin itself
// is a decoder step (a piece: `pin=` in the link), but the card numbers and
// names it as the step view does, at the heatmap's level (lib/steps.js
// stepName): at word level the step of the word, with the piece it writes.

import { h, replaceChildren } from '../lib/dom.js';
import { figureMatrix } from '../lib/figure.js';
import { rowOfStep, sourceWords } from '../lib/words.js';
import { stepName } from '../lib/steps.js';
import { alphaRow, forcedRow, pinChange, pinToString, roundWeights, setGroupWeight, translationWords } from '../lib/pin.js';
import { fmt } from '../lib/math.js';
import { t, num } from '../i18n/index.js';
import { legendGradientCSS } from '../theme.js';
import { createBeside } from '../views/beside.js';
import { sayStep } from '../views/step-name.js';

// A change of α at least this large (total variation) is "large" in the card's verdict.
const LARGE_CHANGE = 0.5;

/** ctx: { headingId, frame (the widget's render scheduler), actions: { setPin(pin), clearPin(), setStep(step), link() → { link } | { why } } } */
export function mount(store, { headingId, frame = null, actions }) {
  const intro = h('p', { class: 'as-small as-muted' }, t('pin.intro'));
  const levelNote = h('p', { class: 'as-small as-muted as-pin-level' });
  const unavailable = h('p', { class: 'as-small as-pin-unavailable', hidden: true });

  // ---- the editor: one row per source word (or piece) at the current step ----
  const stepHead = h('h3', { class: 'as-pin-step' });
  const editorNote = h('p', { class: 'as-small as-muted as-pin-editor-note' });
  const otherStep = h('p', { class: 'as-small as-note as-pin-other', hidden: true });
  const goBtn = h('button', { type: 'button', class: 'as-btn as-btn-small' }, t('pin.goToPinned'));
  const list = h('ul', { class: 'as-pin-weights' });
  const resetBtn = h('button', { type: 'button', class: 'as-btn as-btn-small as-pin-reset' }, t('pin.reset'));
  const editor = h('div', { class: 'as-pin-editor', role: 'group', 'aria-labelledby': null },
    stepHead, editorNote, h('div', { class: 'as-row as-wrap' }, otherStep, goBtn), list, h('div', { class: 'as-row as-wrap' }, resetBtn));

  // ---- what changed, the two translations and heatmaps, the link ----
  const said = h('p', { class: 'as-pin-said' });
  const moved = h('p', { class: 'as-small' });
  const output = h('p', { class: 'as-small' });
  const verdict = h('p', { class: 'as-small as-note as-pin-verdict' });
  const summary = h('div', { class: 'as-pin-summary', role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true', hidden: true }, said, moved, output, verdict);
  const error = h('p', { class: 'as-small as-pin-error', role: 'alert', hidden: true });
  const busy = h('p', { class: 'as-small as-muted as-pin-busy', hidden: true }, t('pin.decoding'));
  const legend = h('div', { class: 'as-legend as-small' }, h('span', null, t('heat.legendLow')),
    h('span', { class: 'as-legend-bar', 'aria-hidden': 'true', style: { 'background-image': legendGradientCSS() } }), h('span', null, t('heat.legendHigh')),
    h('span', { class: 'as-muted as-legend-text' }, t('pin.marked')));
  // The two columns (views/beside.js): they exist only while there is a pinned result.
  const beside = createBeside({
    prefix: 'pin', kinds: ['original', 'pinned'], heads: [t('pin.originalHead'), t('pin.pinnedHead')], frame,
    onPick: (which, row) => { const m = which === 0 ? store.get().matrix : pinnedMatrix; actions.setStep(m?.rowGroups?.[row]?.first ?? row); },
  });
  const results = h('div', { class: 'as-pin-results', hidden: true }, legend, beside.element);
  const linkField = h('input', { class: 'as-link as-pin-link', type: 'text', readonly: true, 'aria-label': t('pin.linkLabel') });
  const copyBtn = h('button', { type: 'button', class: 'as-btn as-btn-small' }, t('pin.copy'));
  // Where no link can be made (a model file from a disk, the single file with no hosted copy): why.
  const linkWhy = h('p', { class: 'as-small as-muted', hidden: true });
  const linkRow = h('div', { class: 'as-pin-link-row', hidden: true }, h('p', { class: 'as-small as-muted' }, t('pin.linkNote')), h('div', { class: 'as-row' }, linkField, copyBtn), linkWhy);

  const element = h('section', { class: 'as-card as-pin-card', 'aria-labelledby': headingId },
    h('div', { class: 'as-card-head' }, h('h2', { id: headingId }, t('pin.heading'))),
    intro, levelNote, unavailable, editor, error, busy, summary, results, linkRow);
  const stepHeadId = `${headingId}-step`;
  stepHead.id = stepHeadId;
  editor.setAttribute('aria-labelledby', stepHeadId);

  let rows = [];        // per group: { li, button, range, value }
  let rowsKey = '';
  let groups = [];      // [{ text, first, count }] the editor's columns (words, or one per piece)
  let pinnedMatrix = null;
  let pinnedFor = null; // { result, pieces, info } pinnedMatrix was made from

  /** The piece-level weights the editor starts from at `step`: the pin's, or the model's α. */
  const baseRow = (st, step) => (st.pin && st.pin.step === step ? forcedRow(st.pin, st.trace.S) : alphaRow(st.trace, step));
  const edit = (group, v) => {
    const st = store.get();
    if (!st.trace?.alpha) return;
    const step = Math.min(st.step, st.trace.T - 1);
    const weights = roundWeights(setGroupWeight(baseRow(st, step), group, v));
    // All the weight on one position: the short form (pin=3:@2).
    actions.setPin(group.count === 1 && v >= 1 ? { step, at: group.first } : { step, weights });
  };

  function buildRows(st) {
    const levelPieces = st.pieces || st.matrix?.identity;
    groups = levelPieces ? st.trace.source.map((p, j) => ({ text: p.text, first: j, count: 1 })) : sourceWords(st.trace);
    const key = JSON.stringify([groups.map((g) => [g.text, g.first, g.count])]);
    if (key === rowsKey) return;
    rowsKey = key;
    rows = groups.map((g, k) => {
      const label = g.text;
      // Its place in the sentence too: a sentence may have two “the”.
      const where = { word: label, i: num(k + 1), n: num(groups.length) };
      const button = h('button', { type: 'button', class: 'as-btn as-btn-small as-pin-word', 'aria-pressed': 'false', 'aria-label': t('pin.allHereLabel', where) }, label);
      const range = h('input', { type: 'range', class: 'as-range as-pin-range', min: '0', max: '1', step: '0.01', value: '0', 'aria-label': t('pin.weightLabel', where) });
      const value = h('output', { class: 'as-small as-pin-value', 'aria-hidden': 'true' });
      button.addEventListener('click', () => edit(g, 1));
      range.addEventListener('input', () => edit(g, Number(range.value)));
      const li = h('li', { class: 'as-pin-weight' }, button, range, value);
      return { li, button, range, value };
    });
    replaceChildren(list, rows.map((r) => r.li));
  }

  function renderEditor(st) {
    const ok = !!(st.trace?.alpha && st.matrix);
    editor.hidden = !ok;
    unavailable.hidden = ok || !st.trace;
    if (!ok) {
      unavailable.textContent = st.trace ? t('pin.noAttention') : '';
      return;
    }
    buildRows(st);
    const step = Math.min(st.step, st.trace.T - 1);
    const subword = st.trace.sourceWords?.length !== st.trace.S;
    levelNote.hidden = !subword;
    levelNote.textContent = subword ? t(st.pieces ? 'pin.levelPieces' : 'pin.levelWords') : '';
    const here = stepName(st.matrix, st.trace, step);
    stepHead.textContent = t('pin.stepHead', { step: num(here.number), n: num(here.of), word: sayStep(here) });
    const pinnedHere = st.pin && st.pin.step === step;
    editorNote.textContent = t(pinnedHere ? 'pin.editorPinned' : 'pin.editorModel');
    // (A pin from a link past this translation's end waits for its own sentence, then is checked: not said meanwhile.)
    const there = st.pin && !pinnedHere && st.pin.step < st.trace.T ? stepName(st.matrix, st.trace, st.pin.step) : null;
    otherStep.hidden = !there;
    goBtn.hidden = otherStep.hidden;
    if (there) otherStep.textContent = t('pin.otherStep', { step: num(there.number), word: sayStep(there) });
    resetBtn.disabled = !st.pin;
    const base = baseRow(st, step);
    const active = element.getRootNode().activeElement;
    groups.forEach((g, i) => {
      let v = 0;
      for (let j = g.first; j < g.first + g.count; j++) v += base[j];
      const r = rows[i];
      // Not under the learner's finger: a slider being dragged keeps its own position.
      if (active !== r.range) r.range.value = String(v);
      r.range.setAttribute('aria-valuetext', fmt(v, 2));
      r.value.textContent = fmt(v, 2);
      r.button.setAttribute('aria-pressed', String(!!pinnedHere && v > 1 - 1e-6));
      r.li.classList.toggle('as-pin-on', !!pinnedHere && v > 1e-6);
    });
  }

  function pinnedMatrixOf(st) {
    const r = st.pinned?.result;
    if (!r || !st.info) return null;
    if (pinnedFor?.result !== r || pinnedFor.pieces !== st.pieces || pinnedFor.info !== st.info) {
      pinnedMatrix = figureMatrix(r, st.info, st.pieces);
      pinnedFor = { result: r, pieces: st.pieces, info: st.info };
    }
    return pinnedMatrix;
  }

  function renderResults(st) {
    const p = st.pinned;
    const m = pinnedMatrixOf(st);
    const shown = !!(st.pin && p?.result && m && st.matrix?.alpha && p.for?.text === st.trace?.text);
    results.hidden = !shown;
    summary.hidden = !shown;
    busy.hidden = !p?.busy;
    error.hidden = !p?.error;
    error.textContent = p?.error ?? '';
    if (!shown) { beside.hide(); return; }
    const pin = p.resultPin;
    const orig = st.trace;
    const res = p.result;
    // The two translations, word by word.
    const d = beside.show(orig, res, st.info?.targetLanguage);
    const [original, pinnedCol] = beside.columns();
    // The pinned step as the step view numbers it, in the model's own translation (the steps before it are the same in both).
    const name = stepName(st.matrix, orig, pin.step);
    pinnedCol.head.textContent = t('pin.pinnedStepHead', { step: num(name.number) });
    // The heatmaps, each with the pinned step's row marked.
    original.heat.update(st.matrix);
    pinnedCol.heat.update(m);
    const rowA = rowOfStep(st.matrix, pin.step);
    const rowB = rowOfStep(m, pin.step);
    original.heat.setMarkedRow(rowA);
    pinnedCol.heat.setMarkedRow(rowB);
    // The marked row's numbers, exact (the canvas shows only colours): for tests and anyone inspecting.
    pinnedCol.box.dataset.markedAlpha = JSON.stringify(Array.from(m.alpha.subarray(rowB * m.S, (rowB + 1) * m.S)));
    original.line.textContent = t('pin.lineOriginal', { n: translationWords(orig).length });
    // A word's row is the mean of its pieces' rows (lib/words.js): the forced row alone shows with pieces.
    const rowWord = m.rowGroups[rowB];
    pinnedCol.line.textContent = `${t('pin.linePinned', { n: d.distance })}${rowWord?.count > 1 ? t('pin.rowIsWord', { word: rowWord.text, n: rowWord.count }) : ''}`;

    // In words: what was changed, by how much, and what it did.
    const level = st.pieces || st.matrix.identity ? orig.source.map((s, j) => ({ text: s.text, first: j, count: 1 })) : sourceWords(orig);
    const ch = pinChange(alphaRow(orig, pin.step), forcedRow(pin, orig.S), level);
    const word = sayStep(name);
    said.textContent = ch.oneHot >= 0
      ? t(ch.to === ch.from ? 'pin.saidAllSame' : 'pin.saidAll', { step: num(name.number), word, to: level[ch.to].text, had: fmt(ch.hadThere, 2), from: level[ch.from].text, a: fmt(ch.before[ch.from], 2) })
      : t('pin.saidSet', { step: num(name.number), word, to: level[ch.to].text, b: fmt(ch.after[ch.to], 2), from: level[ch.from].text, a: fmt(ch.before[ch.from], 2) });
    moved.textContent = t('pin.moved', { tv: fmt(ch.tv, 2) });
    const total = translationWords(orig).length;
    output.textContent = d.distance === 0 ? t('pin.outSame', { n: total }) : t('pin.outChanged', { n: d.distance, total: num(total) });
    verdict.textContent = t(d.distance > 0 ? 'pin.verdictChanged' : ch.tv >= LARGE_CHANGE ? 'pin.verdictSame' : 'pin.verdictSmall');
    element.dataset.tv = String(ch.tv);
    element.dataset.changed = String(d.distance);
  }

  goBtn.addEventListener('click', () => { const st = store.get(); if (st.pin) actions.setStep(st.pin.step); });
  resetBtn.addEventListener('click', () => actions.clearPin());
  copyBtn.addEventListener('click', async () => {
    const r = actions.link();
    if (!r.link) return;
    linkField.value = r.link;
    let copied = false;
    try { await navigator.clipboard.writeText(linkField.value); copied = true; } catch { /* file:// or no permission: the field is selectable */ }
    linkField.focus();
    linkField.select();
    copyBtn.textContent = copied ? t('heat.copied') : t('heat.selectCopy');
    setTimeout(() => { copyBtn.textContent = t('pin.copy'); }, 1800);
  });

  // The link shows the whole shareable state (the step and scale too).
  function renderLink(st) {
    linkRow.hidden = !st.pin;
    if (!st.pin) return;
    const r = actions.link();
    linkWhy.hidden = !r.why;
    linkWhy.textContent = r.why ?? '';
    linkField.hidden = !r.link;
    copyBtn.hidden = !r.link;
    if (r.link) linkField.value = r.link;
  }

  const EDITOR = ['trace', 'matrix', 'step', 'pin', 'pieces', 'info'];
  const RESULTS = ['trace', 'matrix', 'pin', 'pinned', 'pieces', 'info'];
  const LINK = ['pin', 'sentence', 'model', 'scale', 'step', 'pieces', 'colour', 'compare', 'uiLang', 'local', 'winD'];
  return {
    element,
    update(st, changed) {
      const any = (keys) => keys.some((k) => changed.has(k));
      if (any(EDITOR)) renderEditor(st);
      // Playing the step-through moves only the editor: the results are about the pinned step.
      if (any(RESULTS)) renderResults(st);
      if (any(LINK)) renderLink(st);
    },
    redraw() { beside.redraw(); },
    destroy() { beside.destroy(); },
  };
}
