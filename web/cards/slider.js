// slider.js - the score-scale card: divides the attention scores before the
// softmax. Log scale from 1/16 to 64 times the trained divisor; the engine
// takes the multiplier scoreScale = 1 / divisor. What the number means
// depends on the attention kind, and the card says so: for dot products (dot,
// scaled dot) d is the key dimension and √d the textbook divisor; additive
// and general scores are not dot products of d-number vectors, so there the
// divisor is a softmax temperature, and √d belongs to dot products.

import { CONFIG } from '../config.js';
import { h, uid } from '../lib/dom.js';
import { fmt, fmtDivisor } from '../lib/math.js';
import { scaleFor } from '../state.js';

/** The card's words for a model: { title, detail, note } (pure; tests/web/page-logic.test.mjs). */
export function sliderWords(info, rel = 1) {
  const kind = info?.attention;
  const { divisor, trainedDivisor, scoreScale } = scaleFor(info, rel);
  const engine = `trained divisor ${fmtDivisor(trainedDivisor)} · engine multiplier scoreScale = 1/${fmtDivisor(divisor)} = ${scoreScale.toPrecision(3)}`;
  const d = info?.keyDim ?? 0;
  if (!info) return { title: 'The score scale', detail: '', note: '' };
  if (kind === 'none') {
    return {
      title: 'The score scale (off: no attention)',
      detail: '',
      note: 'The slider is off: this model has no attention, so there are no scores to divide and no softmax to sharpen or flatten. Its decoder sees only a fixed summary of the source, the same at every step. Pick an attention model to use the slider.',
    };
  }
  if (kind === 'dot' || kind === 'scaled_dot') {
    return {
      title: 'The √d slider',
      detail: `d = ${d} (the key dimension: each score is a dot product of two vectors of ${d} numbers) · √d = ${fmt(Math.sqrt(d), 2)} · ${engine}`,
      note: kind === 'scaled_dot'
        ? 'This model was trained with scores divided by √d: the trained divisor is √d.'
        : `This model (dot) was trained without a divisor (divisor 1); a scaled dot product would divide by √d = ${fmt(Math.sqrt(d), 2)}. Dividing by more flattens its softmax; by less sharpens it.`,
    };
  }
  const how = kind === 'additive'
    ? `Additive scores come from a small network, vₐᵀ tanh(Wₐ s + Uₐ hⱼ), ${info.attentionDim} units wide: not a dot product of two d-number vectors.`
    : 'General scores are a learned bilinear form sᵀ W hⱼ: W already sets their size, and no √d is used.';
  return {
    title: 'The score scale (softmax temperature)',
    detail: `${how} So the divisor here acts as a temperature τ: α = softmax(e / τ). √d belongs to dot products (dot, scaled dot), where it keeps the scores’ spread independent of d. · ${engine}`,
    note: `This model (${kind}) was trained without a divisor (τ = 1). A higher temperature flattens its softmax; a lower one sharpens it.`,
  };
}

export function mount(store, { headingId }) {
  const id = uid('scale');
  const title = h('h2', { id: headingId }, 'The score scale');
  const intro = h('p', { class: 'as-small' }, 'Scores are divided by this number before the softmax. Drag it and watch the rows of the heatmap sharpen or flatten, and the translation change.');
  const input = h('input', {
    type: 'range', id, class: 'as-range', min: String(CONFIG.scaleMinLog2), max: String(CONFIG.scaleMaxLog2),
    step: String(CONFIG.scaleStepLog2), value: '0',
  });
  const reset = h('button', { type: 'button', class: 'as-btn as-btn-small' }, 'Reset to trained value');
  const divisorOut = h('output', { for: id, class: 'as-big-number' }, '1');
  const detail = h('p', { class: 'as-muted as-small as-slider-detail' });
  const entropyOut = h('p', { class: 'as-small' });
  const kindNote = h('p', { class: 'as-small as-note', id: `${id}-why` });
  const ticks = h('div', { class: 'as-range-ticks', 'aria-hidden': 'true' },
    h('span', null, 'sharper (÷ small)'), h('span', { class: 'as-tick-mid' }, 'trained'), h('span', null, 'flatter (÷ large)'));
  const box = h('div', { class: 'as-slider' },
    h('div', { class: 'as-slider-head' }, h('label', { for: id }, 'Divide scores by'), divisorOut),
    input, ticks, h('div', { class: 'as-row' }, reset), detail, entropyOut, kindNote);
  const element = h('section', { class: 'as-card as-slider-card', 'aria-labelledby': headingId }, title, intro, box);

  let info = null;
  let rel = 1;
  function show() {
    const words = sliderWords(info, rel);
    divisorOut.textContent = fmtDivisor(scaleFor(info, rel).divisor);
    input.setAttribute('aria-valuetext', `divisor ${divisorOut.textContent}, ${fmtDivisor(rel)} times the trained value`);
    detail.textContent = words.detail;
    reset.disabled = Math.abs(Math.log2(rel)) < 1e-9 || info?.attention === 'none';
  }
  input.addEventListener('input', () => { rel = 2 ** Number(input.value); show(); store.set({ scale: rel }); });
  reset.addEventListener('click', () => { rel = 1; input.value = '0'; show(); store.set({ scale: 1 }); });

  return {
    element,
    update(st, changed) {
      if (changed.has('info')) {
        info = st.info;
        const none = info?.attention === 'none';
        const words = sliderWords(info, st.scale);
        title.textContent = words.title;
        kindNote.textContent = words.note;
        input.disabled = !info || none;
        // Off, and why: the reason is the input's description, so a screen
        // reader that lands on the disabled slider hears it.
        if (none) input.setAttribute('aria-describedby', kindNote.id); else input.removeAttribute('aria-describedby');
        detail.hidden = none;
        divisorOut.classList.toggle('as-off', none);
        if (none) entropyOut.textContent = '';
      }
      if (changed.has('scale') && st.scale !== rel) { rel = st.scale; input.value = String(Math.log2(rel)); }
      if (changed.has('info') || changed.has('scale')) show();
      if (changed.has('matrix') && info?.attention !== 'none') {
        const e = st.matrix?.entropies;
        const S = st.matrix?.S;
        entropyOut.textContent = e?.length
          ? `Mean row entropy ${fmt(e.reduce((a, b) => a + b, 0) / e.length, 2)} bits (0 = all weight on one word; ${fmt(Math.log2(Math.max(1, S)), 2)} = spread evenly over all ${S}).`
          : '';
      }
    },
  };
}
