// slider.js - the √d slider: divides the attention scores before the softmax.
// Log scale from 1/16 to 64 times the trained divisor. The engine takes the
// multiplier scoreScale = 1 / divisor.

import { CONFIG } from '../config.js';
import { h, uid } from '../lib/dom.js';
import { fmt, fmtDivisor } from '../lib/math.js';
import { scaleFor } from '../state.js';

export function render(container, { onChange }) {
  const id = uid('scale');
  const input = h('input', {
    type: 'range', id, class: 'as-range', min: String(CONFIG.scaleMinLog2), max: String(CONFIG.scaleMaxLog2),
    step: String(CONFIG.scaleStepLog2), value: '0',
  });
  const reset = h('button', { type: 'button', class: 'as-btn as-btn-small' }, 'Reset to trained value');
  const divisorOut = h('output', { for: id, class: 'as-big-number' }, '1');
  const detail = h('p', { class: 'as-muted as-small' });
  const entropyOut = h('p', { class: 'as-small' });
  const kindNote = h('p', { class: 'as-small as-note', id: `${id}-why` });
  const ticks = h('div', { class: 'as-range-ticks', 'aria-hidden': 'true' },
    h('span', null, 'sharper (÷ small)'), h('span', { class: 'as-tick-mid' }, 'trained'), h('span', null, 'flatter (÷ large)'));
  container.append(
    h('div', { class: 'as-slider-head' },
      h('label', { for: id }, 'Divide scores by'), divisorOut),
    input, ticks,
    h('div', { class: 'as-row' }, reset),
    detail, entropyOut, kindNote,
  );

  let info = null;
  let rel = 1;
  const valueText = () => {
    const { divisor } = scaleFor(info, rel);
    return `divisor ${fmtDivisor(divisor)}, ${fmtDivisor(rel)} times the trained value`;
  };
  function show() {
    const { divisor, trainedDivisor, scoreScale } = scaleFor(info, rel);
    divisorOut.textContent = fmtDivisor(divisor);
    input.setAttribute('aria-valuetext', valueText());
    const d = info?.keyDim ?? 0;
    detail.textContent = `d = ${d} (length of the vectors the score compares) · √d = ${fmt(Math.sqrt(d), 2)} · trained divisor ${fmtDivisor(trainedDivisor)} · engine multiplier scoreScale = 1/${fmtDivisor(divisor)} = ${scoreScale.toPrecision(3)}`;
    reset.disabled = Math.abs(Math.log2(rel)) < 1e-9;
  }
  input.addEventListener('input', () => {
    rel = 2 ** Number(input.value);
    show();
    onChange(rel);
  });
  reset.addEventListener('click', () => {
    rel = 1;
    input.value = '0';
    show();
    onChange(rel);
  });
  return {
    input,
    update({ info: nextInfo, scale, entropies, S }) {
      info = nextInfo;
      if (scale !== rel) {
        rel = scale;
        input.value = String(Math.log2(rel));
      }
      const none = info?.attention === 'none';
      input.disabled = !info || none;
      show();
      // Off, and why: the reason is the input's description, so a screen
      // reader that lands on the disabled slider hears it.
      if (none) input.setAttribute('aria-describedby', kindNote.id); else input.removeAttribute('aria-describedby');
      detail.hidden = none;
      divisorOut.classList.toggle('as-off', none);
      if (none) {
        reset.disabled = true;
        entropyOut.textContent = '';
      } else if (entropies?.length) {
        const mean = entropies.reduce((a, b) => a + b, 0) / entropies.length;
        entropyOut.textContent = `Mean row entropy ${fmt(mean, 2)} bits (0 = all weight on one word; ${fmt(Math.log2(Math.max(1, S)), 2)} = spread evenly over all ${S}).`;
      } else entropyOut.textContent = '';
      kindNote.textContent = !info ? '' : info.attention === 'scaled_dot'
        ? 'This model was trained with scores divided by √d: the trained divisor is √d.'
        : info.attention === 'none' ? 'The slider is off: this model has no attention, so there are no scores to divide and no softmax to sharpen or flatten. Its decoder sees only a fixed summary of the source, the same at every step. Pick an attention model to use the slider.'
          : `This model (${info.attention}) was trained without a divisor (divisor 1). Dividing by more flattens its softmax; by less sharpens it.`;
    },
  };
}
