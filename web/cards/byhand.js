// byhand.js - "attention by hand": editable scores and 2-d values for a few
// keys, a divisor, and every step of the arithmetic (e^score, sum, weight,
// weighted values, context). Defaults to the seed's exercise.

import { h, uid } from '../lib/dom.js';
import { softmaxSteps, weightedSum, entropyBits, fmt } from '../lib/math.js';
import { formula } from '../lib/formula.js';

export const EXERCISE = Object.freeze({
  scores: [3, 1, 0, 1],
  values: [[1, 0], [0, 1], [-1, 0], [0, -1]],
  d: 2,
});

/** The whole computation for given scores, values and divisor (pure). */
export function computeByHand(scores, values, divisor) {
  const st = softmaxSteps(scores, 1 / divisor);
  return { ...st, context: weightedSum(st.weights, values), entropy: entropyBits(st.weights) };
}

export function mount(store, { headingId }) {
  const container = h('div');
  const element = h('section', { class: 'as-card as-byhand-card', 'aria-labelledby': headingId },
    h('h2', { id: headingId }, 'Attention by hand'), container);
  let keys = EXERCISE.scores.map((s, i) => ({ score: s, v: [...EXERCISE.values[i]] }));
  let divisor = 1;
  const d = EXERCISE.d;

  const divId = uid('div');
  const divInput = h('input', { id: divId, type: 'number', step: 'any', min: '0.01', value: '1', class: 'as-num' });
  const btn1 = h('button', { type: 'button', class: 'as-btn as-btn-small' }, 'no scaling (÷ 1)');
  const btnSqrt = h('button', { type: 'button', class: 'as-btn as-btn-small' }, `÷ √d = √${d}`);
  const addBtn = h('button', { type: 'button', class: 'as-btn as-btn-small' }, '+ key');
  const delBtn = h('button', { type: 'button', class: 'as-btn as-btn-small' }, '− key');
  const resetBtn = h('button', { type: 'button', class: 'as-btn as-btn-small' }, 'Reset to the exercise');
  const table = h('table', { class: 'as-table as-byhand-table' });
  const result = h('div', { class: 'as-byhand-result', 'aria-live': 'polite' });
  const compare = h('p', { class: 'as-small' });

  container.append(
    h('p', null, 'A query was scored against four keys (dot products). Edit any number: the weights and the context update as you type. Values are 2-d so you can check the context vector by hand.'),
    h('div', { class: 'as-row as-wrap' },
      h('label', { for: divId }, 'Divisor '), divInput, btn1, btnSqrt, addBtn, delBtn, resetBtn),
    h('div', { class: 'as-table-wrap' }, table),
    result, compare,
    h('p', { class: 'as-small as-note' },
      'About the printed answer: the exercise text gives weights ≈ (0.787, 0.106, 0.039, 0.106), which add up to 1.038, and context ≈ (0.748, 0). ',
      'The exact weights are (0.7573, 0.1025, 0.0377, 0.1025), which do sum to 1, and the context is (0.7196, 0); divided by √2 the context is (0.5481, 0), close to the printed 0.56.'),
  );

  function numberInput(value, label, onInput) {
    const el = h('input', { type: 'number', step: 'any', class: 'as-num', value: String(value), 'aria-label': label });
    el.addEventListener('input', () => {
      const x = Number(el.value);
      if (el.value.trim() !== '' && Number.isFinite(x)) { el.removeAttribute('aria-invalid'); onInput(x); compute(); }
      else el.setAttribute('aria-invalid', 'true');
    });
    return el;
  }

  function build() {
    const head = h('tr', null,
      h('th', { scope: 'col' }, 'key j'),
      h('th', { scope: 'col' }, formula('score e_j')),
      h('th', { scope: 'col' }, formula('e_j ÷ divisor')),
      h('th', { scope: 'col' }, formula('exp(e_j ÷ divisor)')),
      h('th', { scope: 'col' }, formula('α_j = exp ÷ Σ')),
      h('th', { scope: 'col' }, formula('value v_j')),
      h('th', { scope: 'col' }, formula('α_j v_j')));
    const body = h('tbody');
    keys.forEach((k, j) => {
      body.append(h('tr', null,
        h('th', { scope: 'row' }, String(j + 1)),
        h('td', null, numberInput(k.score, `score of key ${j + 1}`, (x) => { k.score = x; })),
        h('td', { class: 'as-calc', dataset: { f: 'scaled' } }),
        h('td', { class: 'as-calc', dataset: { f: 'exp' } }),
        h('td', { class: 'as-calc as-strong', dataset: { f: 'w' } }),
        h('td', { class: 'as-vec' }, '(', numberInput(k.v[0], `value ${j + 1}, first number`, (x) => { k.v[0] = x; }), ', ',
          numberInput(k.v[1], `value ${j + 1}, second number`, (x) => { k.v[1] = x; }), ')'),
        h('td', { class: 'as-calc', dataset: { f: 'wv' } })));
    });
    const foot = h('tfoot', null, h('tr', null,
      h('th', { scope: 'row' }, 'Σ'), h('td'), h('td'),
      h('td', { class: 'as-calc', dataset: { f: 'sum' } }),
      h('td', { class: 'as-calc', dataset: { f: 'wsum' } }),
      h('td'),
      h('td', { class: 'as-calc as-strong', dataset: { f: 'ctx' } })));
    table.replaceChildren(h('caption', null, 'Softmax over the keys, then the weighted sum of the values'), h('thead', null, head), body, foot);
    addBtn.disabled = keys.length >= 6;
    delBtn.disabled = keys.length <= 2;
    compute();
  }

  function compute() {
    const scores = keys.map((k) => k.score);
    const values = keys.map((k) => k.v);
    const r = computeByHand(scores, values, divisor);
    const rows = table.tBodies[0].rows;
    keys.forEach((k, j) => {
      const cell = (f) => rows[j].querySelector(`[data-f="${f}"]`);
      cell('scaled').textContent = fmt(r.scaled[j]);
      cell('exp').textContent = r.shifted ? `${fmt(r.exps[j], 4)} (× e^max)` : fmt(r.exps[j], 3);
      cell('w').textContent = fmt(r.weights[j]);
      cell('wv').textContent = `(${fmt(r.weights[j] * k.v[0])}, ${fmt(r.weights[j] * k.v[1])})`;
    });
    const foot = table.tFoot;
    foot.querySelector('[data-f="sum"]').textContent = fmt(r.sum, 3);
    foot.querySelector('[data-f="wsum"]').textContent = fmt(r.weights.reduce((a, b) => a + b, 0));
    foot.querySelector('[data-f="ctx"]').textContent = `(${fmt(r.context[0])}, ${fmt(r.context[1])})`;
    result.replaceChildren(
      h('p', null, h('strong', null, 'Weights α = '), `(${r.weights.map((w) => fmt(w)).join(', ')})`, h('span', { class: 'as-muted' }, `  — ${fmt(r.entropy, 2)} bits of entropy`)),
      h('p', null, h('strong', null, 'Context ', formula('c = Σ_j α_j v_j', 'as-formula-inline'), ' = '), `(${fmt(r.context[0])}, ${fmt(r.context[1])})`));
    const a = computeByHand(scores, values, 1);
    const b = computeByHand(scores, values, Math.sqrt(d));
    compare.textContent = `Compare: ÷ 1 gives α₁ = ${fmt(a.weights[0])} and c = (${fmt(a.context[0])}, ${fmt(a.context[1])}); ÷ √${d} gives α₁ = ${fmt(b.weights[0])} and c = (${fmt(b.context[0])}, ${fmt(b.context[1])}). A bigger divisor makes the weights flatter (entropy ${fmt(a.entropy, 2)} → ${fmt(b.entropy, 2)} bits).`;
  }

  divInput.addEventListener('input', () => {
    const x = Number(divInput.value);
    if (Number.isFinite(x) && x > 0) { divInput.removeAttribute('aria-invalid'); divisor = x; compute(); }
    else divInput.setAttribute('aria-invalid', 'true');
  });
  btn1.addEventListener('click', () => { divisor = 1; divInput.value = '1'; compute(); });
  btnSqrt.addEventListener('click', () => { divisor = Math.sqrt(d); divInput.value = String(Number(divisor.toFixed(6))); compute(); });
  addBtn.addEventListener('click', () => { keys.push({ score: 0, v: [0, 0] }); build(); });
  delBtn.addEventListener('click', () => { keys.pop(); build(); });
  resetBtn.addEventListener('click', () => {
    keys = EXERCISE.scores.map((s, i) => ({ score: s, v: [...EXERCISE.values[i]] }));
    divisor = 1;
    divInput.value = '1';
    build();
  });
  build();
  return { element, update() {} };
}
