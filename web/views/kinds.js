// kinds.js - the by-hand card's other modes (cards/byhand.js switches
// between them): cross-attention, self-attention and causal self-attention
// as one formula with different sources for Q, K and V, and the additive
// score term by term. The numbers come from lib/kinds.js. The learner's
// numbers live in `memo` (the card's, kept across a UI-language rebuild):
//   memo.numbers.cross   { decoder (3, 2), encoder (4, 2), wq, wk, wv (2, 2) }
//   memo.numbers.self    { sequence (4, 2), wq, wk, wv }   (self and causal share it)
//   memo.numbers.additive { w1, w2 (2, 2), v (2), state (2), states (4, 2) }
//   memo.source[group]   'project' (Q = X W_Q …) or 'direct' (Q, K, V typed)
//   memo.direct[group]   { Q, K, V } while typed directly
//   memo.row[group]      the query row shown step by step
// Inputs are built once per mode (and again on a reset or a change of
// source); typing only rewrites the computed cells, so focus stays put.

import { h, uid } from '../lib/dom.js';
import { formula } from '../lib/formula.js';
import { fmt, fmtVector } from '../lib/math.js';
import { viridisCSS, textOnViridis } from '../lib/colormap.js';
import { attentionMatrix, additiveAttention, projectKind, kindsExample } from '../lib/kinds.js';
import { t, tParts, num } from '../i18n/index.js';

const MINUS_INFINITY = '−∞';
// Q, K and V handed to the direct inputs: 6 decimals, so 0.1 + 0.2 shows as 0.3 in the field.
const typedCopy = (m) => m.map((r) => r.map((x) => Number(x.toFixed(6))));
/** The projections' Q, K and V as numbers to edit. */
const directFrom = (p) => ({ Q: typedCopy(p.Q), K: typedCopy(p.K), V: typedCopy(p.V) });

/** The starting numbers of one group of modes. */
function freshNumbers(group) {
  const e = kindsExample();
  if (group === 'cross') return { decoder: e.decoder, encoder: e.encoder, wq: e.wq, wk: e.wk, wv: e.wv };
  if (group === 'self') return { sequence: e.sequence, wq: e.wq, wk: e.wk, wv: e.wv };
  return { w1: e.w1, w2: e.w2, v: e.v, state: e.state, states: e.states };
}

function numbersOf(memo, group) {
  memo.numbers ??= {};
  memo.numbers[group] ??= freshNumbers(group);
  return memo.numbers[group];
}

/**
 * A number field that reports only finite numbers (an empty or bad field is
 * marked aria-invalid and the last good number stays in force).
 */
export function numberInput(value, label, onValue) {
  const el = h('input', { type: 'number', step: 'any', class: 'as-num', value: String(value), 'aria-label': label });
  el.addEventListener('input', () => {
    const x = Number(el.value);
    if (el.value.trim() !== '' && Number.isFinite(x)) { el.removeAttribute('aria-invalid'); onValue(x); }
    else el.setAttribute('aria-invalid', 'true');
  });
  return el;
}

/** A caption with a formula in it: tParts(key) with {f} as typeset maths. */
const captionWith = (key, f, params) => tParts(key, { f: formula(f, 'as-formula-inline'), ...params });

/**
 * A table in its block, named by the caption above it (a paragraph, not a
 * <caption>, so a long caption wraps at the block's width rather than the
 * narrow table's). `focusable` makes the table's box a Tab stop that
 * scrolls (the read-only tables, which may be wider than a phone: axe's
 * scrollable-region-focusable); tables of inputs are reached through them.
 */
function block(captionNodes, table, { focusable = false, wide = false } = {}) {
  const capId = uid('bhcap');
  table.setAttribute('aria-labelledby', capId);
  const wrap = h('div', { class: 'as-table-wrap', ...(focusable ? { tabindex: '0', role: 'region', 'aria-labelledby': capId } : {}) }, table);
  return h('div', { class: `as-bh-mat${wide ? ' as-bh-wide' : ''}` }, h('p', { class: 'as-bh-cap', id: capId }, captionNodes), wrap);
}

/** Column heads 1 … n after a corner cell. */
const headRow = (corner, n, label = (c) => num(c + 1)) => h('thead', null, h('tr', null,
  corner === '' ? h('td') : h('th', { scope: 'col' }, corner), Array.from({ length: n }, (_, c) => h('th', { scope: 'col' }, label(c)))));

/** An editable matrix M (edited in place), its inputs named "{name} row i, column j". */
function matrixEditor(M, { caption, name, corner, onChange }) {
  const body = h('tbody', null, M.map((row, i) => h('tr', null,
    h('th', { scope: 'row' }, num(i + 1)),
    row.map((x, c) => h('td', null, numberInput(x, t('byhand.cell', { m: name, i: num(i + 1), j: num(c + 1) }), (v) => { row[c] = v; onChange(); }))))));
  return block(caption, h('table', { class: 'as-table as-byhand-table', dataset: { matrix: name } }, headRow(formula(corner), M[0].length), body));
}

/** An editable vector x (edited in place), its inputs named "{name}, number i". */
function vectorEditor(x, { caption, name, onChange }) {
  const row = h('tr', null, h('th', { scope: 'row' }, formula(name)),
    x.map((v, i) => h('td', null, numberInput(v, t('byhand.entry', { m: name, i: num(i + 1) }), (y) => { x[i] = y; onChange(); }))));
  return block(caption, h('table', { class: 'as-table as-byhand-table', dataset: { matrix: name } }, headRow('', x.length), h('tbody', null, row)));
}

/** A computed matrix (rows × cols): { element, set(M) }. */
function matrixView(rows, cols, { caption, corner, name }) {
  const cells = Array.from({ length: rows }, () => Array.from({ length: cols }, () => h('td', { class: 'as-calc' })));
  const body = h('tbody', null, cells.map((r, i) => h('tr', null, h('th', { scope: 'row' }, num(i + 1)), r)));
  const element = block(caption, h('table', { class: 'as-table as-byhand-table', dataset: { matrix: name } }, headRow(formula(corner), cols), body), { focusable: true });
  return { element, set(M) { M.forEach((r, i) => r.forEach((x, c) => { cells[i][c].textContent = fmt(x); })); } };
}

/** One row of the weights matrix drawn as the heatmap draws it (the same colour scale). */
function paintWeight(cell, w, masked) {
  cell.classList.toggle('as-bh-masked', masked);
  if (masked) { cell.style.removeProperty('background-color'); cell.style.removeProperty('color'); }
  else { cell.style.setProperty('background-color', viridisCSS(w)); cell.style.setProperty('color', textOnViridis(w)); }
}

/** A masked score: −∞, and the word for screen readers. */
const maskedText = (cell) => cell.replaceChildren(MINUS_INFINITY, h('span', { class: 'as-visually-hidden' }, ` (${t('byhand.masked')})`));

/** Formulas on one line that wraps between them (each alone fits a phone, so none becomes a scroller). */
const formulaLine = (parts) => h('p', { class: 'as-formula-line as-bh-formulas' }, parts.map((f) => formula(f)));

// What each kind reads its Q, K and V from, as the formula line says it.
const SOURCES = {
  cross: { q: 'S', kv: 'H', formulas: ['Q = S W_Q,', 'K = H W_K,', 'V = H W_V'] },
  self: { q: 'X', kv: 'X', formulas: ['Q = X W_Q,', 'K = X W_K,', 'V = X W_V'] },
  causal: { q: 'X', kv: 'X', formulas: ['Q = X W_Q,', 'K = X W_K,', 'V = X W_V'] },
};

/**
 * Cross-, self- or causal self-attention (kind), with the sources, the
 * projections (or Q, K, V typed directly), the score matrix with its mask,
 * the row-wise softmax and every row's output, and one query row step by
 * step as the exercise mode shows it. -> { element }
 */
export function dotProductPanel(kind, memo) {
  const group = kind === 'cross' ? 'cross' : 'self';
  const causal = kind === 'causal';
  const d = 2;
  let numbers = numbersOf(memo, group);
  memo.source ??= {};
  memo.direct ??= {};
  memo.row ??= {};
  const source = () => (memo.source[group] === 'direct' && memo.direct[group] ? 'direct' : 'project');
  const qkv = () => (source() === 'direct' ? memo.direct[group] : projectKind(kind, numbers));
  const nq = (group === 'cross' ? numbers.decoder : numbers.sequence).length;
  const nk = (group === 'cross' ? numbers.encoder : numbers.sequence).length;
  const rowOf = () => Math.min(nq - 1, Math.max(0, memo.row[group] ?? 0));

  // ---- the source of Q, K and V: through the projections, or typed
  const radioName = uid('bhsrc');
  const sourcePick = h('fieldset', { class: 'as-bh-pick as-bh-source' },
    h('legend', { class: 'as-small as-strong' }, t('byhand.source')),
    ['project', 'direct'].map((s) => h('label', { class: 'as-bh-option' },
      h('input', { type: 'radio', name: radioName, value: s, checked: source() === s }), t(`byhand.source.${s}`))));
  sourcePick.addEventListener('change', (e) => {
    const s = e.target.value;
    // Typing Q, K and V directly starts from the ones the projections give now.
    if (s === 'direct') memo.direct[group] = directFrom(projectKind(kind, numbers));
    memo.source[group] = s;
    buildInputs();
  });
  const resetBtn = h('button', { type: 'button', class: 'as-btn as-btn-small' }, t('byhand.resetKind'));
  resetBtn.addEventListener('click', () => {
    numbers = memo.numbers[group] = freshNumbers(group);
    if (source() === 'direct') memo.direct[group] = directFrom(projectKind(kind, numbers));
    buildInputs();
  });

  // ---- the inputs (rebuilt on a change of source or a reset)
  const inputs = h('div', { class: 'as-bh-inputs' });
  let computed = null; // the projections' Q, K, V views while projecting
  function buildInputs() {
    computed = null;
    const mats = [];
    if (source() === 'project') {
      if (group === 'cross') {
        mats.push(matrixEditor(numbers.decoder, { caption: t('byhand.m.decoder'), name: 'S', corner: 'S', onChange: compute }));
        mats.push(matrixEditor(numbers.encoder, { caption: t('byhand.m.encoder'), name: 'H', corner: 'H', onChange: compute }));
      } else {
        mats.push(matrixEditor(numbers.sequence, { caption: t('byhand.m.sequence'), name: 'X', corner: 'X', onChange: compute }));
      }
      for (const [w, name] of [['wq', 'W_Q'], ['wk', 'W_K'], ['wv', 'W_V']]) {
        mats.push(matrixEditor(numbers[w], { caption: captionWith('byhand.m.projection', name), name: name.replace('_', ''), corner: name, onChange: compute }));
      }
      const src = SOURCES[kind];
      computed = {
        Q: matrixView(nq, d, { caption: captionWith('byhand.m.computed', `Q = ${src.q} W_Q`), corner: 'Q', name: 'Q' }),
        K: matrixView(nk, d, { caption: captionWith('byhand.m.computed', `K = ${src.kv} W_K`), corner: 'K', name: 'K' }),
        V: matrixView(nk, d, { caption: captionWith('byhand.m.computed', `V = ${src.kv} W_V`), corner: 'V', name: 'V' }),
      };
      inputs.replaceChildren(
        h('div', { class: 'as-bh-mats' }, mats),
        h('div', { class: 'as-bh-mats' }, computed.Q.element, computed.K.element, computed.V.element));
    } else {
      const m = memo.direct[group];
      inputs.replaceChildren(h('div', { class: 'as-bh-mats' },
        matrixEditor(m.Q, { caption: t(group === 'cross' ? 'byhand.m.queriesCross' : 'byhand.m.queries'), name: 'Q', corner: 'Q', onChange: compute }),
        matrixEditor(m.K, { caption: t(group === 'cross' ? 'byhand.m.keysCross' : 'byhand.m.keys'), name: 'K', corner: 'K', onChange: compute }),
        matrixEditor(m.V, { caption: t(group === 'cross' ? 'byhand.m.valuesCross' : 'byhand.m.values'), name: 'V', corner: 'V', onChange: compute })));
    }
    compute();
  }

  // ---- the score matrix QKᵀ ÷ √d (with the mask), the weights and outputs
  const scoreCells = Array.from({ length: nq }, () => Array.from({ length: nk }, () => h('td', { class: 'as-calc' })));
  const scoreTable = block(captionWith(causal ? 'byhand.scoresCausal' : 'byhand.scoresCaption', `QK^{⊤} ÷ √${d}`),
    h('table', { class: 'as-table as-byhand-table as-bh-scores' }, headRow(h('span', null, formula('i'), ' \\ ', formula('j')), nk),
      h('tbody', null, scoreCells.map((r, i) => h('tr', null, h('th', { scope: 'row' }, num(i + 1)), r)))), { focusable: true });
  const weightCells = Array.from({ length: nq }, () => Array.from({ length: nk }, () => h('td', { class: 'as-calc as-bh-weight' })));
  const weightSums = Array.from({ length: nq }, () => h('td', { class: 'as-calc' }));
  const outputCells = Array.from({ length: nq }, () => h('td', { class: 'as-calc as-strong' }));
  const weightRows = weightCells.map((r, i) => h('tr', null, h('th', { scope: 'row' }, num(i + 1)), r, weightSums[i], outputCells[i]));
  const weightTable = block(captionWith('byhand.weightsCaption', 'z_i = Σ_j α_{ij} v_j'),
    h('table', { class: 'as-table as-byhand-table as-bh-weights' },
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, h('span', null, formula('i'), ' \\ ', formula('j'))),
        Array.from({ length: nk }, (_, j) => h('th', { scope: 'col' }, num(j + 1))),
        h('th', { scope: 'col' }, formula('Σ_j α_{ij}')), h('th', { scope: 'col' }, formula('z_i')))),
      h('tbody', null, weightRows)), { focusable: true, wide: true });

  // ---- one row step by step: the exercise's table, for query i
  const rowSelect = h('select', { class: 'as-select', id: uid('bhrow') },
    Array.from({ length: nq }, (_, i) => h('option', { value: String(i) }, num(i + 1))));
  rowSelect.value = String(rowOf());
  rowSelect.addEventListener('change', () => { memo.row[group] = Number(rowSelect.value); compute(); });
  const stepCells = Array.from({ length: nk }, () => ({ score: h('td', { class: 'as-calc' }), exp: h('td', { class: 'as-calc' }), w: h('td', { class: 'as-calc as-strong' }), v: h('td', { class: 'as-calc' }), wv: h('td', { class: 'as-calc' }) }));
  const stepRows = stepCells.map((c, j) => h('tr', null, h('th', { scope: 'row' }, num(j + 1)), c.score, c.exp, c.w, c.v, c.wv));
  const stepSum = { exp: h('td', { class: 'as-calc' }), w: h('td', { class: 'as-calc' }), z: h('td', { class: 'as-calc as-strong' }) };
  const stepCaption = h('span');
  const stepTable = block(stepCaption, h('table', { class: 'as-table as-byhand-table as-bh-steps' },
    h('thead', null, h('tr', null,
      h('th', { scope: 'col' }, t('byhand.keyJ')),
      h('th', { scope: 'col' }, formula(`s_{ij} = q_i · k_j ÷ √${d}`)),
      h('th', { scope: 'col' }, formula('exp(s_{ij})')),
      h('th', { scope: 'col' }, formula('α_{ij} = exp ÷ Σ')),
      h('th', { scope: 'col' }, formula('v_j')),
      h('th', { scope: 'col' }, formula('α_{ij} v_j')))),
    h('tbody', null, stepRows),
    h('tfoot', null, h('tr', null, h('th', { scope: 'row' }, 'Σ'), h('td'), stepSum.exp, stepSum.w, h('td'), stepSum.z))), { focusable: true, wide: true });
  const result = h('div', { class: 'as-byhand-result', 'aria-live': 'polite' });

  function compute() {
    const { Q, K, V } = qkv();
    if (computed) { computed.Q.set(Q); computed.K.set(K); computed.V.set(V); }
    const r = attentionMatrix(Q, K, V, { causal, divisor: Math.sqrt(d) });
    for (let i = 0; i < nq; i++) {
      for (let j = 0; j < nk; j++) {
        const masked = r.masked[i][j];
        const sc = scoreCells[i][j];
        sc.classList.toggle('as-bh-masked', masked);
        if (masked) maskedText(sc); else sc.textContent = fmt(r.scores[i][j]);
        weightCells[i][j].textContent = fmt(r.weights[i][j]);
        paintWeight(weightCells[i][j], r.weights[i][j], masked);
      }
      weightSums[i].textContent = fmt(r.weights[i].reduce((a, b) => a + b, 0));
      outputCells[i].textContent = fmtVector(r.outputs[i]);
    }
    const i = rowOf();
    weightRows.forEach((tr, k) => tr.classList.toggle('as-bh-current', k === i));
    stepCaption.replaceChildren(t('byhand.rowCaption', { i: num(i + 1) }));
    stepCells.forEach((c, j) => {
      const masked = r.masked[i][j];
      stepRows[j].classList.toggle('as-bh-masked', masked);
      if (masked) maskedText(c.score); else c.score.textContent = fmt(r.scores[i][j]);
      c.exp.textContent = r.shifted[i] && !masked ? t('byhand.shifted', { x: fmt(r.exps[i][j], 4) }) : fmt(r.exps[i][j], 3);
      c.w.textContent = fmt(r.weights[i][j]);
      c.v.textContent = fmtVector(V[j]);
      c.wv.textContent = fmtVector(V[j].map((x) => r.weights[i][j] * x));
    });
    stepSum.exp.textContent = fmt(r.sums[i], 3);
    stepSum.w.textContent = fmt(r.weights[i].reduce((a, b) => a + b, 0));
    stepSum.z.textContent = fmtVector(r.outputs[i]);
    const hidden = r.masked[i].filter(Boolean).length;
    result.replaceChildren(
      h('p', null, h('strong', null, t('byhand.rowWeights', { i: num(i + 1) })), fmtVector(r.weights[i])),
      h('p', null, h('strong', null, t('byhand.rowOutput', { i: num(i + 1) })), formula('z_i = Σ_j α_{ij} v_j', 'as-formula-inline'), ' = ', fmtVector(r.outputs[i])),
      causal ? h('p', { class: 'as-small' }, hidden ? t('byhand.rowMasked', { i: num(i + 1), n: hidden }) : t('byhand.rowMaskedNone')) : null);
  }

  const element = h('div', { class: 'as-bh-panel', dataset: { kind } },
    h('p', null, t(`byhand.${kind}.intro`)),
    h('p', { class: 'as-formula-line' }, formula(causal ? `Z = softmax(QK^{⊤} ÷ √d + M) V` : `Z = softmax(QK^{⊤} ÷ √d) V`)),
    formulaLine(SOURCES[kind].formulas),
    causal ? formulaLine(['M_{ij} = −∞ (j > i),', '0 (j ≤ i)']) : null,
    h('p', { class: 'as-small as-muted' }, t('byhand.sameFormula')),
    h('div', { class: 'as-row as-wrap' }, sourcePick, resetBtn),
    inputs,
    h('div', { class: 'as-bh-mats' }, scoreTable, weightTable),
    h('div', { class: 'as-row as-wrap' }, h('label', { for: rowSelect.id }, t('byhand.rowPick')), rowSelect),
    stepTable,
    result);
  buildInputs();
  return { element };
}

/**
 * The additive (Bahdanau) score by hand: W₁, W₂, v, the decoder state s and
 * the encoder states h_j edited; each term of vᵀ tanh(W₁h_j + W₂s), then the
 * same softmax and weighted sum (the values are the encoder states). -> { element }
 */
export function additivePanel(memo) {
  let n = numbersOf(memo, 'additive');
  const inputs = h('div', { class: 'as-bh-inputs' });
  function buildInputs() {
    inputs.replaceChildren(h('div', { class: 'as-bh-mats' },
      matrixEditor(n.w1, { caption: captionWith('byhand.m.w1', 'W₁'), name: 'W₁', corner: 'W₁', onChange: compute }),
      matrixEditor(n.w2, { caption: captionWith('byhand.m.w2', 'W₂'), name: 'W₂', corner: 'W₂', onChange: compute }),
      vectorEditor(n.v, { caption: captionWith('byhand.m.v', 'v'), name: 'v', onChange: compute }),
      vectorEditor(n.state, { caption: captionWith('byhand.m.s', 's'), name: 's', onChange: compute }),
      matrixEditor(n.states, { caption: captionWith('byhand.m.h', 'h_j'), name: 'h', corner: 'h', onChange: compute })));
    compute();
  }
  const resetBtn = h('button', { type: 'button', class: 'as-btn as-btn-small' }, t('byhand.resetKind'));
  resetBtn.addEventListener('click', () => { n = memo.numbers.additive = freshNumbers('additive'); buildInputs(); });

  const len = n.states.length;
  const termCells = Array.from({ length: len }, () => ({ h: h('td', { class: 'as-calc' }), W1h: h('td', { class: 'as-calc' }), W2s: h('td', { class: 'as-calc' }), sum: h('td', { class: 'as-calc' }), tanh: h('td', { class: 'as-calc' }), score: h('td', { class: 'as-calc as-strong' }) }));
  const termTable = block(t('byhand.termsCaption'), h('table', { class: 'as-table as-byhand-table as-bh-terms' },
    h('thead', null, h('tr', null,
      h('th', { scope: 'col' }, formula('j')),
      h('th', { scope: 'col' }, formula('h_j')),
      h('th', { scope: 'col' }, formula('W₁h_j')),
      h('th', { scope: 'col' }, formula('W₂s')),
      h('th', { scope: 'col' }, formula('W₁h_j + W₂s')),
      h('th', { scope: 'col' }, formula('tanh(W₁h_j + W₂s)')),
      h('th', { scope: 'col' }, formula('e_j = v^{⊤} tanh(…)')))),
    h('tbody', null, termCells.map((c, j) => h('tr', null, h('th', { scope: 'row' }, num(j + 1)), c.h, c.W1h, c.W2s, c.sum, c.tanh, c.score)))), { focusable: true, wide: true });
  const softCells = Array.from({ length: len }, () => ({ score: h('td', { class: 'as-calc' }), exp: h('td', { class: 'as-calc' }), w: h('td', { class: 'as-calc as-strong' }), wh: h('td', { class: 'as-calc' }) }));
  const softSum = { exp: h('td', { class: 'as-calc' }), w: h('td', { class: 'as-calc' }), c: h('td', { class: 'as-calc as-strong' }) };
  const softTable = block(t('byhand.caption'), h('table', { class: 'as-table as-byhand-table as-bh-soft' },
    h('thead', null, h('tr', null,
      h('th', { scope: 'col' }, t('byhand.keyJ')),
      h('th', { scope: 'col' }, formula('e_j')),
      h('th', { scope: 'col' }, formula('exp(e_j)')),
      h('th', { scope: 'col' }, formula('α_j = exp ÷ Σ')),
      h('th', { scope: 'col' }, formula('α_j h_j')))),
    h('tbody', null, softCells.map((c, j) => h('tr', null, h('th', { scope: 'row' }, num(j + 1)), c.score, c.exp, c.w, c.wh))),
    h('tfoot', null, h('tr', null, h('th', { scope: 'row' }, 'Σ'), h('td'), softSum.exp, softSum.w, softSum.c))), { focusable: true, wide: true });
  const result = h('div', { class: 'as-byhand-result', 'aria-live': 'polite' });

  function compute() {
    const r = additiveAttention(n.w1, n.w2, n.v, n.states, n.state);
    r.terms.forEach((x, j) => {
      const c = termCells[j];
      c.h.textContent = fmtVector(n.states[j]);
      c.W1h.textContent = fmtVector(x.W1h);
      c.W2s.textContent = fmtVector(x.W2s);
      c.sum.textContent = fmtVector(x.sum);
      c.tanh.textContent = fmtVector(x.tanh);
      c.score.textContent = fmt(x.score);
      const s = softCells[j];
      s.score.textContent = fmt(r.scores[j]);
      s.exp.textContent = r.shifted ? t('byhand.shifted', { x: fmt(r.exps[j], 4) }) : fmt(r.exps[j], 3);
      s.w.textContent = fmt(r.weights[j]);
      s.wh.textContent = fmtVector(n.states[j].map((v) => r.weights[j] * v));
    });
    softSum.exp.textContent = fmt(r.sum, 3);
    softSum.w.textContent = fmt(r.weights.reduce((a, b) => a + b, 0));
    softSum.c.textContent = fmtVector(r.context);
    result.replaceChildren(
      h('p', null, h('strong', null, t('byhand.additiveScores')), fmtVector(r.scores)),
      h('p', null, h('strong', null, t('byhand.weights')), fmtVector(r.weights)),
      h('p', null, h('strong', null, t('byhand.context'), formula('c = Σ_j α_j h_j', 'as-formula-inline'), ' = '), fmtVector(r.context)));
  }

  const element = h('div', { class: 'as-bh-panel', dataset: { kind: 'additive' } },
    h('p', null, t('byhand.additive.intro')),
    formulaLine(['e_j = v^{⊤} tanh(W₁h_j + W₂s),', 'α_j = exp(e_j) ÷ Σ_k exp(e_k),', 'c = Σ_j α_j h_j']),
    h('div', { class: 'as-row as-wrap' }, resetBtn),
    inputs, termTable, softTable, result);
  buildInputs();
  return { element };
}
