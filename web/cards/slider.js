// slider.js - the score-scale card: divides the attention scores before the
// softmax. Log scale from 1/16 to 64 times the trained divisor; the engine
// takes the multiplier scoreScale = 1 / divisor. What the number means
// depends on the attention kind, and the card says so: for dot products (dot,
// scaled dot) d is the key dimension and √d the textbook divisor; additive
// and general scores are not dot products of d-number vectors, so there the
// divisor is a softmax temperature, and √d belongs to dot products.

import { CONFIG } from '../config.js';
import { h, uid } from '../lib/dom.js';
import { fmt, fmtDivisor, fmtLocale } from '../lib/math.js';
import { scaleFor } from '../state.js';
import { t, num } from '../i18n/index.js';

/** The card's words for a model: { title, detail, note } (pure; tests/web/page-logic.test.mjs). */
/** x to `digits` significant digits, in the UI language's decimal mark. */
const precise = (x, digits) => fmtLocale(Number(x.toPrecision(digits)), Math.max(0, digits - 1 - Math.floor(Math.log10(Math.abs(x)))));

export function sliderWords(info, rel = 1) {
  const kind = info?.attention;
  const { divisor, trainedDivisor, scoreScale } = scaleFor(info, rel);
  const engine = t('slider.engine', { trained: fmtDivisor(trainedDivisor), divisor: fmtDivisor(divisor), multiplier: precise(scoreScale, 3) });
  const d = info?.keyDim ?? 0;
  if (!info) return { title: t('slider.title'), detail: '', note: '' };
  if (kind === 'none') {
    return {
      title: t('slider.titleOff'),
      detail: '',
      note: t('slider.noteOff'),
    };
  }
  if (kind === 'dot' || kind === 'scaled_dot') {
    return {
      title: t('slider.titleDot'),
      detail: t('slider.detailDot', { d: num(d), sqrt: fmt(Math.sqrt(d), 2), engine }),
      note: kind === 'scaled_dot' ? t('slider.noteScaled') : t('slider.noteDot', { sqrt: fmt(Math.sqrt(d), 2) }),
    };
  }
  const how = kind === 'additive' ? t('slider.howAdditive', { units: num(info.attentionDim) }) : t('slider.howGeneral');
  return {
    title: t('slider.titleTemperature'),
    detail: t('slider.detailTemperature', { how, engine }),
    note: t('slider.noteTemperature', { kind }),
  };
}

export function mount(store, { headingId }) {
  const id = uid('scale');
  const title = h('h2', { id: headingId }, t('slider.title'));
  const intro = h('p', { class: 'as-small' }, t('slider.intro'));
  const input = h('input', {
    type: 'range', id, class: 'as-range', min: String(CONFIG.scaleMinLog2), max: String(CONFIG.scaleMaxLog2),
    step: String(CONFIG.scaleStepLog2), value: '0',
  });
  const reset = h('button', { type: 'button', class: 'as-btn as-btn-small' }, t('slider.reset'));
  const divisorOut = h('output', { for: id, class: 'as-big-number' }, '1');
  const detail = h('p', { class: 'as-muted as-small as-slider-detail' });
  const entropyOut = h('p', { class: 'as-small' });
  const kindNote = h('p', { class: 'as-small as-note', id: `${id}-why` });
  const ticks = h('div', { class: 'as-range-ticks', 'aria-hidden': 'true' },
    h('span', null, t('slider.sharper')), h('span', { class: 'as-tick-mid' }, t('slider.trained')), h('span', null, t('slider.flatter')));
  const box = h('div', { class: 'as-slider' },
    h('div', { class: 'as-slider-head' }, h('label', { for: id }, t('slider.label')), divisorOut),
    input, ticks, h('div', { class: 'as-row' }, reset), detail, entropyOut, kindNote);
  const element = h('section', { class: 'as-card as-slider-card', 'aria-labelledby': headingId }, title, intro, box);

  let info = null;
  let rel = 1;
  function show() {
    const words = sliderWords(info, rel);
    divisorOut.textContent = fmtDivisor(scaleFor(info, rel).divisor);
    input.setAttribute('aria-valuetext', t('slider.valuetext', { divisor: divisorOut.textContent, rel: fmtDivisor(rel) }));
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
          ? t('slider.entropy', { mean: fmt(e.reduce((a, b) => a + b, 0) / e.length, 2), max: fmt(Math.log2(Math.max(1, S)), 2), n: S })
          : '';
      }
    },
  };
}
