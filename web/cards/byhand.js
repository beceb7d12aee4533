// byhand.js - "attention by hand". The default mode is the seed's exercise:
// editable scores and 2-d values for a few keys, a divisor, and every step
// of the arithmetic (e^score, sum, weight, weighted values, context). The
// other modes (views/kinds.js) show the lesson's "same formula, different
// Q/K/V sources": cross-attention, self-attention and causal
// self-attention with editable Q, K and V, and the additive score term by
// term. The mode and every number the reader typed stay in `memo`.

import { h, uid } from '../lib/dom.js';
import { softmaxSteps, weightedSum, entropyBits, fmt, fmtVector as list } from '../lib/math.js';
import { formula } from '../lib/formula.js';
import { t, num } from '../i18n/index.js';
import { dotProductPanel, additivePanel, numberInput as field } from '../views/kinds.js';

export const EXERCISE = Object.freeze({
  scores: [3, 1, 0, 1],
  values: [[1, 0], [0, 1], [-1, 0], [0, -1]],
  d: 2,
});

/** The card's modes, in the order of its switch; 'scores' (the exercise) first and by default. */
export const BYHAND_MODES = Object.freeze(['scores', 'cross', 'self', 'causal', 'additive']);

/** The whole computation for given scores, values and divisor (pure). */
export function computeByHand(scores, values, divisor) {
  const st = softmaxSteps(scores, 1 / divisor);
  return { ...st, context: weightedSum(st.weights, values), entropy: entropyBits(st.weights) };
}

/**
 * memo (kept by ui.js across a UI-language rebuild):
 *   mode: one of BYHAND_MODES; keys, divisor: the exercise mode's numbers;
 *   kinds: the other modes' numbers (views/kinds.js).
 */
export function mount(store, { headingId, memo = {} }) {
  const mode = () => (BYHAND_MODES.includes(memo.mode) ? memo.mode : 'scores');
  const radioName = uid('bhmode');
  const switcher = h('fieldset', { class: 'as-bh-pick as-bh-modes' },
    h('legend', { class: 'as-strong' }, t('byhand.mode')),
    BYHAND_MODES.map((m) => h('label', { class: 'as-bh-option' },
      h('input', { type: 'radio', name: radioName, value: m, checked: m === mode() }), t(`byhand.mode.${m}`))));
  const panel = h('div', { class: 'as-bh-body' });
  const element = h('section', { class: 'as-card as-byhand-card', 'aria-labelledby': headingId, dataset: { mode: mode() } },
    h('h2', { id: headingId }, t('byhand.heading')), switcher, panel);
  memo.kinds ??= {};
  function show() {
    const m = mode();
    element.dataset.mode = m;
    if (m === 'scores') panel.replaceChildren(scoresPanel(memo));
    else if (m === 'additive') panel.replaceChildren(additivePanel(memo.kinds).element);
    else panel.replaceChildren(dotProductPanel(m, memo.kinds).element);
  }
  switcher.addEventListener('change', (e) => { memo.mode = e.target.value; show(); });
  show();
  return { element, update() {} };
}

/** The exercise mode: the scores given directly (the seed's "Attention by hand"). */
function scoresPanel(memo) {
  const container = h('div', { class: 'as-bh-panel', dataset: { kind: 'scores' } });
  // memo: the widget keeps the reader's numbers here, so a new UI language
  // (which builds the cards again) does not reset them.
  let keys = memo.keys ?? EXERCISE.scores.map((s, i) => ({ score: s, v: [...EXERCISE.values[i]] }));
  let divisor = memo.divisor ?? 1;
  const remember = () => { memo.keys = keys; memo.divisor = divisor; };
  const d = EXERCISE.d;

  const divId = uid('div');
  const divInput = h('input', { id: divId, type: 'number', step: 'any', min: '0.01', value: String(divisor), class: 'as-num' });
  const btn1 = h('button', { type: 'button', class: 'as-btn as-btn-small' }, t('byhand.noScaling'));
  const btnSqrt = h('button', { type: 'button', class: 'as-btn as-btn-small' }, t('byhand.sqrt', { d: num(d) }));
  const addBtn = h('button', { type: 'button', class: 'as-btn as-btn-small' }, t('byhand.addKey'));
  const delBtn = h('button', { type: 'button', class: 'as-btn as-btn-small' }, t('byhand.removeKey'));
  const resetBtn = h('button', { type: 'button', class: 'as-btn as-btn-small' }, t('byhand.reset'));
  const table = h('table', { class: 'as-table as-byhand-table' });
  const result = h('div', { class: 'as-byhand-result', 'aria-live': 'polite' });
  const compare = h('p', { class: 'as-small' });

  container.append(
    h('p', null, t('byhand.intro')),
    h('div', { class: 'as-row as-wrap' },
      h('label', { for: divId }, `${t('byhand.divisor')} `), divInput, btn1, btnSqrt, addBtn, delBtn, resetBtn),
    h('div', { class: 'as-table-wrap', tabindex: '0', role: 'region', 'aria-label': t('byhand.caption') }, table),
    result, compare,
    // The exercise as the teaching notes set it (their "Attention by hand"), with the numbers this card starts from:
    // the note below speaks of its expected answer, so the reader must see it.
    h('blockquote', { class: 'as-small as-exercise' },
      h('strong', null, t('byhand.exerciseHead')), ' ',
      t('byhand.exercise', {
        scores: list(EXERCISE.scores, 0), values: EXERCISE.values.map((v) => list(v, 0)).join(', '), d: num(EXERCISE.d),
        w: list([0.787, 0.106, 0.039, 0.106], 3), c: list([0.748, 0], 3), c2: list([0.56, 0], 2),
      })),
    h('p', { class: 'as-small as-note' },
      t('byhand.printed', { w: list([0.787, 0.106, 0.039, 0.106], 3), sum: fmt(1.038), c: list([0.748, 0], 3), exact: list([0.7573, 0.1025, 0.0377, 0.1025], 4), ctx: list([0.7196, 0], 4), ctx2: list([0.5481, 0], 4), printed: fmt(0.56, 2) })),
  );

  const numberInput = (value, label, onInput) => field(value, label, (x) => { onInput(x); compute(); });

  function build() {
    const head = h('tr', null,
      h('th', { scope: 'col' }, t('byhand.keyJ')),
      h('th', { scope: 'col' }, formula(t('byhand.score'))),
      h('th', { scope: 'col' }, formula(t('byhand.scaled'))),
      h('th', { scope: 'col' }, formula(t('byhand.exp'))),
      h('th', { scope: 'col' }, formula('α_j = exp ÷ Σ')),
      h('th', { scope: 'col' }, formula(t('byhand.value'))),
      h('th', { scope: 'col' }, formula('α_j v_j')));
    const body = h('tbody');
    keys.forEach((k, j) => {
      body.append(h('tr', null,
        h('th', { scope: 'row' }, num(j + 1)),
        h('td', null, numberInput(k.score, t('byhand.scoreOf', { j: num(j + 1) }), (x) => { k.score = x; })),
        h('td', { class: 'as-calc', dataset: { f: 'scaled' } }),
        h('td', { class: 'as-calc', dataset: { f: 'exp' } }),
        h('td', { class: 'as-calc as-strong', dataset: { f: 'w' } }),
        h('td', { class: 'as-vec' }, '(', numberInput(k.v[0], t('byhand.valueFirst', { j: num(j + 1) }), (x) => { k.v[0] = x; }), ', ',
          numberInput(k.v[1], t('byhand.valueSecond', { j: num(j + 1) }), (x) => { k.v[1] = x; }), ')'),
        h('td', { class: 'as-calc', dataset: { f: 'wv' } })));
    });
    const foot = h('tfoot', null, h('tr', null,
      h('th', { scope: 'row' }, 'Σ'), h('td'), h('td'),
      h('td', { class: 'as-calc', dataset: { f: 'sum' } }),
      h('td', { class: 'as-calc', dataset: { f: 'wsum' } }),
      h('td'),
      h('td', { class: 'as-calc as-strong', dataset: { f: 'ctx' } })));
    table.replaceChildren(h('caption', null, t('byhand.caption')), h('thead', null, head), body, foot);
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
      cell('exp').textContent = r.shifted ? t('byhand.shifted', { x: fmt(r.exps[j], 4) }) : fmt(r.exps[j], 3);
      cell('w').textContent = fmt(r.weights[j]);
      cell('wv').textContent = list([r.weights[j] * k.v[0], r.weights[j] * k.v[1]]);
    });
    const foot = table.tFoot;
    foot.querySelector('[data-f="sum"]').textContent = fmt(r.sum, 3);
    foot.querySelector('[data-f="wsum"]').textContent = fmt(r.weights.reduce((a, b) => a + b, 0));
    foot.querySelector('[data-f="ctx"]').textContent = list(r.context);
    result.replaceChildren(
      h('p', null, h('strong', null, t('byhand.weights')), list(r.weights), h('span', { class: 'as-muted' }, t('byhand.entropy', { h: fmt(r.entropy, 2) }))),
      h('p', null, h('strong', null, t('byhand.context'), formula('c = Σ_j α_j v_j', 'as-formula-inline'), ' = '), list(r.context)));
    const a = computeByHand(scores, values, 1);
    const b = computeByHand(scores, values, Math.sqrt(d));
    compare.textContent = t('byhand.compare', { d: num(d), a1: fmt(a.weights[0]), ca: list(a.context), b1: fmt(b.weights[0]), cb: list(b.context), ha: fmt(a.entropy, 2), hb: fmt(b.entropy, 2) });
    remember();
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
  return container;
}
