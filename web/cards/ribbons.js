// ribbons.js - the ribbons card: the lesson's own picture, "the decoder
// weights all encoder states (thickness = weight α)". The source words on
// top, the target words below, and from each source word a band to the word
// being written, as wide as its α (views/ribbons.js). It follows the step of
// the step-through and the heatmap (store `step`); a click on a target word
// moves them all there. "All steps" draws the whole bipartite graph, each
// band's opacity its α. Exports: the figure as SVG and PNG, and the whole
// step-through as an animated GIF or a WebM film with the heatmap
// (views/animation.js), each with a caption (sentence, model, scale, step).
// The matrix is the heatmap's (store `matrix`: words, or subword pieces).

import { h, download } from '../lib/dom.js';
import { rowOfStep } from '../lib/words.js';
import { fmtDivisor } from '../lib/math.js';
import { scaleFor } from '../state.js';
import { RIBBONS, themeColors } from '../theme.js';
import * as ribbonsView from '../views/ribbons.js';
import { filmOf, filmGIF, filmWebM, webmType } from '../views/animation.js';
import { fileStem } from '../views/export.js';
import { t, num } from '../i18n/index.js';

const PHONE = '(max-width: 480px)';

/** ctx: { headingId, frame (the widget's render scheduler), memo (what outlives a rebuild: { all }), actions: { modelTag() } } */
export function mount(store, { headingId, frame = null, memo = {}, actions }) {
  const allBtn = h('button', { type: 'button', class: 'as-btn as-btn-small', 'aria-pressed': 'false', title: t('ribbons.allTitle') }, t('ribbons.all'));
  // data-ribbons: not data-export, which names the heatmap's own buttons.
  const exportButtons = ['SVG', 'PNG'].map((name) => h('button', { type: 'button', class: 'as-btn as-btn-small', dataset: { ribbons: name.toLowerCase() }, 'aria-label': t('ribbons.exportLabel', { kind: name }) }, name));
  const filmButtons = ['GIF', 'WebM'].map((name) => h('button', { type: 'button', class: 'as-btn as-btn-small', dataset: { film: name.toLowerCase() }, 'aria-label': t('ribbons.filmLabel', { kind: name }) }, name));
  const progress = h('progress', { class: 'as-rb-progress', max: '1', value: '0', hidden: true });
  const status = h('p', { class: 'as-small as-rb-status', role: 'status', 'aria-live': 'polite' });
  const intro = h('p', { class: 'as-small as-muted as-rb-intro' }, t('ribbons.intro'));
  const empty = h('p', { class: 'as-empty', hidden: true });
  const figureBox = h('div', { class: 'as-rb-figure' });
  const tools = h('div', { class: 'as-heat-tools' },
    h('div', { class: 'as-toolbar', role: 'toolbar', 'aria-label': t('ribbons.viewTools') }, allBtn),
    h('div', { class: 'as-toolbar', role: 'toolbar', 'aria-label': t('ribbons.exportTools') },
      h('span', { class: 'as-small as-muted' }, t('ribbons.export')), ...exportButtons,
      h('span', { class: 'as-sep', 'aria-hidden': 'true' }),
      h('span', { class: 'as-small as-muted' }, t('ribbons.film')), ...filmButtons));
  const element = h('section', { class: 'as-card as-ribbons-card', 'aria-labelledby': headingId },
    h('h2', { id: headingId }, t('ribbons.heading')),
    intro, empty, figureBox, tools, h('div', { class: 'as-rb-progress-row' }, progress, status));

  // A target word picked here: the step of its row's first decoder step.
  const view = ribbonsView.render(figureBox, {
    frame,
    onPick: (row) => { const m = store.get().matrix; if (m) store.set({ step: m.rowGroups[row]?.first ?? row }); },
  });
  let all = !!memo.all;
  const setAll = (on) => {
    all = memo.all = on;
    allBtn.setAttribute('aria-pressed', String(all));
    view.setAll(all);
  };
  allBtn.addEventListener('click', () => setAll(!all));
  if (all) setAll(true);

  // ---- options: a phone (presenter mode hides this card: alignscope.css, the figure on one screen) ----
  const phone = typeof matchMedia === 'function' ? matchMedia(PHONE) : null;
  function applyOptions() {
    view.setOptions({ labelPx: RIBBONS.labelPx, bandMax: RIBBONS.bandMax, bandHeight: phone?.matches ? RIBBONS.bandHeightPhone : RIBBONS.bandHeight });
  }
  const onPhone = () => applyOptions();
  applyOptions();
  phone?.addEventListener('change', onPhone);

  // ---- exports ----
  const stem = () => { const st = store.get(); return fileStem(st.local?.name ?? st.model, st.matrix?.trace?.text ?? st.sentence); };
  /** The caption of row `row` of the figure: sentence → translation; model and scale; the step. */
  function caption(st, row, { allSteps = false } = {}) {
    const m = st.matrix;
    const sc = scaleFor(st.info, st.scale);
    return [
      t('ribbons.captionSentence', { sentence: m.trace.text, translation: m.trace.translation }),
      t('ribbons.captionModel', { model: actions.modelTag(), divisor: fmtDivisor(sc.divisor), scale: fmtDivisor(st.scale) }),
      t(allSteps ? 'ribbons.captionAll' : 'ribbons.captionStep', { t: num(row + 1), n: num(m.T), word: m.rowLabels[row] }),
    ];
  }
  for (const b of exportButtons) {
    b.addEventListener('click', async () => {
      const st = store.get();
      if (!st.matrix?.alpha) return;
      const row = rowOfStep(st.matrix, st.step);
      const opts = { colors: themeColors(element), all, caption: caption(st, row, { allSteps: all }) };
      try {
        if (b.dataset.ribbons === 'svg') download(new Blob([ribbonsView.ribbonsSVG(st.matrix, row, ribbonsView.measureAt(), opts).svg], { type: 'image/svg+xml' }), `${stem()}-ribbons.svg`);
        else download(await ribbonsView.ribbonsPNG(st.matrix, row, ribbonsView.measureAt(), opts), `${stem()}-ribbons.png`);
      } catch (err) {
        say(t('ribbons.exportFailed', { why: err.message }), true);
      }
    });
  }

  // ---- the animated export (one at a time) ----
  let busy = false;
  function say(text, error = false) {
    status.textContent = text;
    status.classList.toggle('as-rb-error', error);
  }
  for (const b of filmButtons) {
    b.addEventListener('click', async () => {
      const st = store.get();
      if (busy || !st.matrix?.alpha) return;
      const kind = b.dataset.film;
      // WebM needs MediaRecorder: say so before painting anything.
      if (kind === 'webm' && !webmType()) { say(t('ribbons.noWebm'), true); return; }
      busy = true;
      renderButtons(st);
      const m = st.matrix;
      progress.hidden = false;
      progress.max = m.T;
      progress.value = 0;
      const onProgress = (done, total) => {
        progress.value = done;
        say(t(kind === 'gif' ? 'ribbons.encodingGif' : 'ribbons.recordingWebm', { i: num(done), n: num(total), s: num(Math.ceil(((total - done) * RIBBONS.frameMs) / 1000)) }));
      };
      say(t('ribbons.preparing'));
      try {
        const film = filmOf(m, { colors: themeColors(element), colour: st.colour, caption: (row) => caption(st, row) });
        const blob = kind === 'gif' ? await filmGIF(film, { onProgress }) : await filmWebM(film, { onProgress });
        download(blob, `${stem()}-steps.${kind}`);
        say(t('ribbons.filmDone', { kind: kind === 'gif' ? 'GIF' : 'WebM', n: m.T, size: num(Math.max(1, Math.round(blob.size / 1000))) }));
      } catch (err) {
        say(t('ribbons.filmFailed', { why: err.message }), true);
      } finally {
        busy = false;
        progress.hidden = true;
        renderButtons(store.get());
      }
    });
  }

  function renderButtons(st) {
    const off = !st.matrix?.alpha;
    for (const b of [allBtn, ...exportButtons]) b.disabled = off;
    for (const b of filmButtons) b.disabled = off || busy;
  }

  function renderMatrix(st) {
    const m = st.matrix;
    renderButtons(st);
    if (m?.alpha) {
      empty.hidden = true;
      view.update(m, rowOfStep(m, st.step));
      return;
    }
    view.update(null);
    empty.hidden = false;
    empty.textContent = st.trace && st.info?.attention === 'none' ? t('ribbons.none') : st.error?.stage === 'translate' ? st.error.message : t('heat.loading');
  }

  return {
    element,
    update(st, changed) {
      if (['matrix', 'info', 'error', 'trace'].some((k) => changed.has(k))) renderMatrix(st);
      else if (changed.has('step') && st.matrix?.alpha) view.setRow(rowOfStep(st.matrix, st.step));
    },
    destroy() { view.destroy(); phone?.removeEventListener('change', onPhone); },
  };
}
