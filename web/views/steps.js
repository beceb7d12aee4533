// steps.js - the decoder moving its finger over the source, one step at a time.
// At step t: the finger (α_t as intensity and bars), the context vector c_t,
// the top candidates of the next-word softmax (over the VOCABULARY), and the
// word emitted.

import { CONFIG } from '../config.js';
import { h, uid, prefersReducedMotion } from '../lib/dom.js';
import { viridis, diverging, rgb, textOn } from '../lib/colormap.js';
import { fmt, argmax } from '../lib/math.js';
import { fixedSummary } from '../lib/catalog.js';

export function render(container, { onStep }) {
  const scrubId = uid('scrub');
  const back = h('button', { type: 'button', class: 'as-btn as-icon', 'aria-label': 'Previous step' }, '◀');
  const play = h('button', { type: 'button', class: 'as-btn as-icon as-play', 'aria-label': 'Play', 'aria-pressed': 'false' }, '▶');
  const fwd = h('button', { type: 'button', class: 'as-btn as-icon', 'aria-label': 'Next step' }, '▶▶');
  const scrub = h('input', { type: 'range', id: scrubId, class: 'as-range as-scrub', min: '0', max: '0', step: '1', value: '0' });
  const counter = h('output', { for: scrubId, class: 'as-step-count' }, 'step 0 / 0');
  const emitted = h('p', { class: 'as-emitted', 'aria-live': 'polite' });
  const finger = h('div', { class: 'as-finger', role: 'list', 'aria-label': 'Attention weights of this step over the source words' });
  const fingerNote = h('p', { class: 'as-small as-muted' });
  const fingerHead = h('h4');
  const setFingerHead = (attention) => (attention
    ? fingerHead.replaceChildren('Where the finger points: α', h('sub', null, 't'), ' over the source positions')
    : fingerHead.replaceChildren('No finger: this model has no attention'));
  const ctxStrip = h('div', { class: 'as-ctx-strip', role: 'img' });
  const ctxNote = h('p', { class: 'as-small as-muted' });
  const ctxHead = h('h4');
  const setCtxHead = (attention) => (attention
    ? ctxHead.replaceChildren('Context vector c', h('sub', null, 't'), ' = Σ', h('sub', null, 'j'), ' α', h('sub', null, 'tj'), ' h', h('sub', null, 'j'))
    : ctxHead.replaceChildren('Context vector c: one summary for every step'));
  const cands = h('ol', { class: 'as-cands' });
  const candNote = h('p', { class: 'as-small as-muted' });

  const panel = h('div', { class: 'as-steps', tabindex: '0', role: 'group', 'aria-label': 'Step-through. Left and right arrows step, space plays or pauses, Home and End jump.' },
    h('div', { class: 'as-step-controls' },
      back, play, fwd,
      h('label', { for: scrubId, class: 'as-visually-hidden' }, 'Decoder step'),
      scrub, counter),
    h('div', { class: 'as-step-grid' },
      h('section', { class: 'as-step-block as-step-wide' },
        fingerHead, finger, fingerNote),
      h('section', { class: 'as-step-block' },
        ctxHead, ctxStrip, ctxNote),
      h('section', { class: 'as-step-block' },
        h('h4', null, 'Next word: softmax over the vocabulary'),
        cands, candNote),
      h('section', { class: 'as-step-block as-step-wide' },
        h('h4', null, 'Translation so far'), emitted)));
  container.append(panel);

  let vm = null;
  let step = 0;
  let timer = null;

  function go(t) {
    if (!vm) return;
    const next = Math.max(0, Math.min(vm.T - 1, t));
    if (next !== step) onStep(next);
  }
  function setPlaying(on) {
    if (timer) { clearInterval(timer); timer = null; }
    play.textContent = on ? '❚❚' : '▶';
    play.setAttribute('aria-label', on ? 'Pause' : 'Play');
    play.setAttribute('aria-pressed', on ? 'true' : 'false');
    if (!on || !vm) return;
    if (step >= vm.T - 1) onStep(0);
    timer = setInterval(() => {
      if (!vm || step >= vm.T - 1) { setPlaying(false); return; }
      onStep(step + 1);
    }, prefersReducedMotion() ? CONFIG.playIntervalReducedMs : CONFIG.playIntervalMs);
  }
  back.addEventListener('click', () => { setPlaying(false); go(step - 1); });
  fwd.addEventListener('click', () => { setPlaying(false); go(step + 1); });
  play.addEventListener('click', () => setPlaying(!timer));
  scrub.addEventListener('input', () => { setPlaying(false); go(Number(scrub.value)); });
  panel.addEventListener('keydown', (e) => {
    if (e.target !== panel && e.target !== scrub && !(e.target instanceof HTMLButtonElement && e.key !== ' ')) return;
    if (e.target === scrub && e.key !== ' ') return; // the range input steps itself
    const keys = { ArrowLeft: -1, ArrowDown: -1, ArrowRight: 1, ArrowUp: 1 };
    if (e.key in keys) { setPlaying(false); go(step + keys[e.key]); e.preventDefault(); }
    else if (e.key === 'Home') { setPlaying(false); go(0); e.preventDefault(); }
    else if (e.key === 'End') { setPlaying(false); go(vm ? vm.T - 1 : 0); e.preventDefault(); }
    else if (e.key === ' ' || e.key === 'Spacebar') { setPlaying(!timer); e.preventDefault(); }
  });

  function drawStep() {
    if (!vm) return;
    const { S, T, trace } = vm;
    const t = step;
    scrub.value = String(t);
    scrub.setAttribute('aria-valuetext', `step ${t + 1} of ${T}: ${vm.rowLabels[t]}`);
    counter.textContent = `step ${t + 1} / ${T}`;
    back.disabled = t <= 0;
    fwd.disabled = t >= T - 1;

    // Finger over the source.
    setFingerHead(!!vm.alpha);
    setCtxHead(!!vm.alpha);
    finger.classList.toggle('as-finger-none', !vm.alpha);
    finger.setAttribute('aria-label', vm.alpha ? 'Attention weights of this step over the source words' : 'The source words (this model has no attention weights)');
    finger.replaceChildren();
    const row = vm.alpha ? Array.from(vm.alpha.subarray(t * S, (t + 1) * S)) : null;
    const best = row ? argmax(row) : -1;
    for (let j = 0; j < S; j++) {
      const a = row ? row[j] : 0;
      const c = viridis(a);
      const bar = h('span', { class: 'as-bar', style: { height: `${Math.max(1, a * 100)}%` } });
      const unk = trace.source[j]?.unknown;
      const chip = h('span', { class: `as-chip${unk ? ' as-unk' : ''}`, title: unk ? 'Not in the model’s vocabulary: the encoder sees <unk>' : null, style: row ? { 'background-color': rgb(c), color: textOn(c) } : null }, vm.colLabels[j]);
      const said = `${vm.colLabels[j]}${unk ? ' (unknown word)' : ''}`;
      finger.append(h('div', { class: `as-fcol${j === best ? ' as-best' : ''}`, role: 'listitem', 'aria-label': row ? `${said}: ${fmt(a)}` : said },
        row ? h('span', { class: 'as-finger-mark', 'aria-hidden': 'true' }, j === best ? '▼' : '') : null,
        row ? h('span', { class: 'as-bar-box', 'aria-hidden': 'true' }, bar) : null,
        row ? h('span', { class: 'as-bar-val', 'aria-hidden': 'true' }, a.toFixed(2)) : null,
        chip));
    }
    // Keep the finger in view on narrow screens (the row scrolls sideways).
    const bestCol = finger.children[best];
    if (bestCol && (bestCol.offsetLeft < finger.scrollLeft || bestCol.offsetLeft + bestCol.offsetWidth > finger.scrollLeft + finger.clientWidth)) {
      finger.scrollLeft = Math.max(0, bestCol.offsetLeft - finger.offsetLeft - finger.clientWidth / 2);
    }
    const unknown = trace.source.filter((w) => w.unknown).map((w) => `“${w.text}”`);
    fingerNote.textContent = (row
      ? `These ${S} weights are α: one per source position, each between 0 and 1, summing to 1. The ▼ marks the largest (“${vm.colLabels[best]}”, ${fmt(row[best])}).`
      : `The decoder of this model sees only a fixed summary of the source: ${fixedSummary(vm.info).formula}, ${fixedSummary(vm.info).words}, the same at every step. It never looks back at single words, so there are no weights α and no finger to show; the words above are only what it read.`)
      + (unknown.length ? ` Dashed: ${unknown.slice(0, 6).join(', ')}${unknown.length > 6 ? ', …' : ''} ${unknown.length === 1 ? 'is' : 'are'} not among the ${vm.info?.srcVocabSize ?? ''} words the model knows, so the encoder reads ${unknown.length === 1 ? 'it' : 'each'} as <unk>.` : '');

    // Context vector.
    const D = trace.contextDim;
    ctxStrip.replaceChildren();
    const ctx = trace.context.subarray(t * D, (t + 1) * D);
    let lo = Infinity; let hi = -Infinity;
    for (const v of ctx) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    for (let k = 0; k < D; k++) {
      ctxStrip.append(h('span', { class: 'as-ctx-cell', title: `c_t[${k}] = ${ctx[k].toFixed(3)}`, style: { 'background-color': rgb(diverging(ctx[k])) } }));
    }
    ctxStrip.setAttribute('aria-label', `Context vector c_t: ${D} numbers between ${fmt(lo, 2)} and ${fmt(hi, 2)}.`);
    const oneWay = vm.info?.architecture?.unidirectional;
    ctxNote.textContent = vm.alpha
      ? `${D} numbers (${oneWay ? `the ${D} units of a one-direction encoder` : `2 × ${D / 2} encoder units`}), purple < 0 < orange. Not the weights: c_t is the weighted sum of the encoder states h_j, using the weights α above.`
      : `${D} numbers: ${fixedSummary(vm.info).formula.slice(4)}, the same at every step for this model.`;

    // Candidates.
    cands.replaceChildren();
    const K = trace.topK;
    for (let k = 0; k < K; k++) {
      const p = trace.topProbs[t * K + k];
      const tok = trace.topTokens[t][k];
      const chosen = k === 0;
      cands.append(h('li', { class: chosen ? 'as-chosen' : '' },
        h('span', { class: 'as-cand-tok' }, tok),
        h('span', { class: 'as-cand-bar', 'aria-hidden': 'true' }, h('span', { style: { width: `${(p * 100).toFixed(1)}%` } })),
        h('span', { class: 'as-cand-p' }, `${(p * 100).toFixed(1)}%`),
        chosen ? h('span', { class: 'as-visually-hidden' }, ' (chosen)') : null));
    }
    candNote.textContent = `Probabilities over all ${vm.info?.tgtVocabSize ?? '?'} words of the target vocabulary (top ${K} shown; greedy decoding takes the first). Unlike α, this softmax is not over source positions.`;

    // Emitted words.
    emitted.replaceChildren();
    for (let k = 0; k <= t; k++) {
      const w = vm.target[k];
      emitted.append(h('span', { class: `as-word${k === t ? ' as-current' : ''}` }, w.isEnd ? '</s>' : w.text), ' ');
    }
    const w = vm.target[t];
    emitted.append(h('span', { class: 'as-small as-muted' }, w.isEnd ? ' — step ' + (t + 1) + ' emits the end-of-sentence token </s>.' : w.copiedFrom >= 0 ? ` — <unk> replaced by the attended source word “${vm.colLabels[w.copiedFrom]}”.` : ''));
  }

  return {
    element: panel,
    update(next, nextStep) {
      vm = next && !next.message ? next : null;
      panel.hidden = !vm;
      if (!vm) { setPlaying(false); return; }
      scrub.max = String(vm.T - 1);
      step = Math.max(0, Math.min(vm.T - 1, nextStep));
      drawStep();
    },
    setStep(t) {
      step = t;
      drawStep();
    },
    stop() { setPlaying(false); },
  };
}
