// heatmap.js - the heatmap card: its heading and legend, the figure (canvas,
// views/heatmap.js) and its readout, the tools (numbers table, per-row
// colours, subword pieces, zoom, exports, link), the prose that reads it,
// and the screen-reader table (views/table.js); in its header a compact copy
// of the score-scale slider (the same store value as cards/slider.js), so the
// reader can drag it and watch the rows change without scrolling. It shows st.matrix: the
// word-level (or, with "Show subword pieces", piece-level) matrix derived
// from the trace (lib/words.js, ui.js).

import { CONFIG } from '../config.js';
import { rowOfStep } from '../lib/words.js';
import { h, download, uid } from '../lib/dom.js';
import { fixedSummary } from '../lib/catalog.js';
import { scaleFor } from '../state.js';
import { fmtDivisor } from '../lib/math.js';
import { legendGradientCSS, colourMeaning, themeColors } from '../theme.js';
import { fontsFor } from '../views/heatmap-layout.js';
import * as heatmapView from '../views/heatmap.js';
import * as tableView from '../views/table.js';
import { matrixCSV, matrixJSON, heatmapSVG, heatmapPNG, fileStem as exportFileStem } from '../views/export.js';
import { shareWhyText } from '../controllers/share.js';
import { t, num } from '../i18n/index.js';

const toggle = (label, extra = {}) => h('button', { type: 'button', class: 'as-btn as-btn-small', 'aria-pressed': 'false', ...extra }, label);

/** ctx: { ids: { tableCap, shareWhy, link }, headingId, frame (the widget's render scheduler), boxPx (a fixed heatmap box height, or none),
 *        screenBottom (() → px: the top of the bar fixed over the window's bottom, the lesson bar, or Infinity; in presenter mode the map fits above it),
 *        lessonPlace (() → { from, at, bottom } | null: where a running lesson shows the map's row, controllers/lesson.js placeOf; the map fits there outside presenter mode),
 *        startup (lib/startup.js recorder: the first heatmap's paint), actions: { copyLink() → Promise, modelTag() } } */
export function mount(store, { ids, headingId, frame = null, boxPx = null, screenBottom = null, lessonPlace = null, startup = null, actions }) {
  const legendLow = h('span', null, '');
  const legendHigh = h('span', null, '');
  const legendText = h('span', { class: 'as-small as-muted as-legend-text' });
  const legend = h('div', { class: 'as-legend' },
    legendLow, h('span', { class: 'as-legend-bar', 'aria-hidden': 'true', style: { 'background-image': legendGradientCSS() } }), legendHigh, legendText);
  // The compact score-scale control: log2 of the scale, as the slider card's input.
  const scaleId = uid('hscale');
  const scaleInput = h('input', {
    type: 'range', id: scaleId, class: 'as-range as-mini-range', min: String(CONFIG.scaleMinLog2), max: String(CONFIG.scaleMaxLog2),
    step: String(CONFIG.scaleStepLog2), value: '0',
  });
  const scaleOut = h('output', { for: scaleId, class: 'as-mini-value' }, '1');
  const scaleBox = h('div', { class: 'as-mini-slider' },
    h('label', { for: scaleId, class: 'as-small' }, t('heat.scaleLabel')), scaleInput, scaleOut);
  const tableBtn = toggle(t('heat.table'));
  const rowBtn = toggle(t('heat.rowColour'), { title: t('heat.rowColourTitle') });
  const piecesBtn = toggle(t('heat.pieces'));
  const zoomOut = h('button', { type: 'button', class: 'as-btn as-btn-small as-icon-small', 'aria-label': t('heat.zoomOut') }, '−');
  const zoomIn = h('button', { type: 'button', class: 'as-btn as-btn-small as-icon-small', 'aria-label': t('heat.zoomIn') }, '+');
  const zoomFit = h('button', { type: 'button', class: 'as-btn as-btn-small', 'aria-label': t('heat.zoomFitLabel') }, t('heat.zoomFit'));
  const zoomOut$ = h('output', { class: 'as-small as-zoom', 'aria-live': 'polite' }, t('heat.zoomPercent', { p: num(100) }));
  const exportButtons = ['PNG', 'SVG', 'CSV', 'JSON'].map((name) => h('button', { type: 'button', class: 'as-btn as-btn-small', dataset: { export: name.toLowerCase() } }, name));
  const copyBtn = h('button', { type: 'button', class: 'as-btn as-btn-small as-btn-primary', 'aria-describedby': ids.shareWhy }, t('heat.copy'));
  // Why there is no link while a file from disk is in use (a link cannot carry it).
  const shareWhy = h('p', { id: ids.shareWhy, class: 'as-small as-note as-share-why', hidden: true });
  const linkField = h('input', { id: ids.link, class: 'as-link', type: 'text', readonly: true, hidden: true, 'aria-label': t('heat.linkLabel') });
  const intro = h('p', { class: 'as-small as-muted as-heat-intro' });
  const piecesNote = h('p', { class: 'as-small as-muted as-pieces-note' });
  const heatBox = h('div', { class: 'as-heat-box' });
  const tableBox = h('div', { class: 'as-table-box as-visually-hidden' });
  // What a printout says under the figure (shown only in print, alignscope.css):
  // the sentence, the model and the scale, so a sheet on a wall stands alone.
  const printCaption = h('p', { class: 'as-print-caption', 'aria-hidden': 'true' });
  const viewTools = h('div', { class: 'as-toolbar', role: 'toolbar', 'aria-label': t('heat.viewTools') },
    tableBtn, rowBtn, piecesBtn, h('span', { class: 'as-sep', 'aria-hidden': 'true' }), zoomOut, zoomOut$, zoomIn, zoomFit);
  const shareTools = h('div', { class: 'as-toolbar', role: 'toolbar', 'aria-label': t('heat.shareTools') },
    h('span', { class: 'as-small as-muted' }, t('heat.export')), exportButtons, copyBtn);
  const element = h('section', { class: 'as-card as-heat-card', 'aria-labelledby': headingId },
    h('div', { class: 'as-card-head' }, h('h2', { id: headingId }, t('heat.heading')), scaleBox, legend),
    heatBox, printCaption,
    h('div', { class: 'as-heat-tools' }, viewTools, shareTools),
    shareWhy, linkField, intro, piecesNote, tableBox);

  // A step is a decoder step (a piece); a row of the word matrix is a word.
  const stepOfRow = (t) => store.get().matrix?.rowGroups[t]?.first ?? t;
  const heatmap = heatmapView.render(heatBox, {
    name: 'main',
    onPick: (t) => store.set({ step: stepOfRow(t) }),
    onZoom: (z) => store.set({ zoom: clampZoom(z) }),
    // The first heatmap on screen: marked when its canvas is painted, in the animation frame
    // (alignscope:first-heatmap for the bench and the tests; the recorder's last phase).
    onPaint: (vm) => {
      if (store.get().firstHeatmap || !vm.alpha) return;
      const at = performance.now();
      performance.mark?.('alignscope:first-heatmap', { startTime: at });
      startup?.mark('paint', { at, detail: { rows: vm.T, columns: vm.S } });
      store.set({ firstHeatmap: true });
    },
    frame,
  });
  const table = tableView.render(tableBox, { captionId: ids.tableCap, frame });
  const clampZoom = (z) => Math.min(CONFIG.zoomMax, Math.max(CONFIG.zoomMin, Math.round(z * 100) / 100));

  scaleInput.addEventListener('input', () => store.set({ scale: 2 ** Number(scaleInput.value) }));
  function renderScale(st) {
    const none = !st.info || st.info.attention === 'none';
    scaleInput.disabled = none;
    if (Math.abs(2 ** Number(scaleInput.value) - st.scale) > 1e-9 * st.scale) scaleInput.value = String(Math.log2(st.scale));
    scaleOut.textContent = st.info ? fmtDivisor(scaleFor(st.info, st.scale).divisor) : '';
    scaleInput.setAttribute('aria-valuetext', t('slider.valuetext', { divisor: scaleOut.textContent, rel: fmtDivisor(st.scale) }));
  }

  tableBtn.addEventListener('click', () => {
    const on = tableBox.classList.toggle('as-visually-hidden') === false;
    tableBtn.setAttribute('aria-pressed', String(on));
    table.setShown(on);
  });
  rowBtn.addEventListener('click', () => store.set({ colour: store.get().colour === 'row' ? 'absolute' : 'row' }));
  piecesBtn.addEventListener('click', () => store.set({ pieces: !store.get().pieces }));
  zoomIn.addEventListener('click', () => store.set({ zoom: clampZoom(store.get().zoom * CONFIG.zoomStep) }));
  zoomOut.addEventListener('click', () => store.set({ zoom: clampZoom(store.get().zoom / CONFIG.zoomStep) }));
  zoomFit.addEventListener('click', () => store.set({ zoom: 1 }));

  // ---------- exports and the link ----------
  const fileStem = () => { const st = store.get(); return exportFileStem(st.local?.name ?? st.model, st.matrix?.trace?.text ?? st.sentence); };
  const exportMeta = () => {
    const st = store.get();
    const sc = scaleFor(st.info, st.scale);
    // The sentence the matrix was computed for (typing may have moved on);
    // the scale as the link has it (× the trained divisor) and the step (0-based, a decoder step) and its row.
    return { model: actions.modelTag(), sentence: st.matrix?.trace?.text ?? st.sentence, translation: st.trace?.translation, attention: st.info?.attention, divisor: sc.divisor, scoreScale: sc.scoreScale, scale: st.scale, step: st.step, row: st.matrix ? rowOfStep(st.matrix, st.step) : null, keyDim: st.info?.keyDim, level: st.matrix?.level, colour: st.colour };
  };
  // The exports' caption: the sentence and its translation; the model and the scale; what the colour means.
  const exportCaption = () => {
    const st = store.get();
    const vm = st.matrix;
    return [
      t('ribbons.captionSentence', { sentence: vm.trace.text, translation: vm.trace.translation }),
      t('ribbons.captionModel', { model: actions.modelTag(), divisor: fmtDivisor(scaleFor(st.info, st.scale).divisor), scale: fmtDivisor(st.scale) }),
      colourMeaning(st.colour).text,
    ];
  };
  const csvMeta = () => { const m = exportMeta(); return { model: m.model, scale: m.scale, divisor: m.divisor, step: m.step, row: m.row, level: m.level }; };
  const measureCtx = document.createElement('canvas').getContext('2d');
  measureCtx.font = fontsFor().label;
  for (const b of exportButtons) {
    b.addEventListener('click', async () => {
      const { matrix: vm, colour } = store.get();
      if (!vm?.alpha) return;
      const kind = b.dataset.export;
      const colors = themeColors(element);
      if (kind === 'csv') download(new Blob([matrixCSV(vm, csvMeta())], { type: 'text/csv' }), `${fileStem()}.csv`);
      if (kind === 'json') download(new Blob([matrixJSON(vm, exportMeta())], { type: 'application/json' }), `${fileStem()}.json`);
      if (kind === 'svg') download(new Blob([heatmapSVG(vm, (s) => measureCtx.measureText(s).width, { colors, colour, title: `${vm.trace.text} → ${vm.trace.translation}`, caption: exportCaption() })], { type: 'image/svg+xml' }), `${fileStem()}.svg`);
      if (kind === 'png') download(await heatmapPNG(vm, colors, { colour, caption: exportCaption() }), `${fileStem()}.png`);
    });
  }
  copyBtn.addEventListener('click', async () => {
    const r = await actions.copyLink();
    if (!r) return;
    linkField.focus();
    linkField.select();
    copyBtn.textContent = r.copied ? t('heat.copied') : t('heat.selectCopy');
    setTimeout(() => { copyBtn.textContent = t('heat.copy'); }, 1800);
  });

  function renderShare(st) {
    // aria-disabled, not disabled: the button stays focusable, so keyboard and
    // screen-reader users reach it and hear why it does nothing.
    if (st.local) copyBtn.setAttribute('aria-disabled', 'true'); else copyBtn.removeAttribute('aria-disabled');
    copyBtn.classList.toggle('as-btn-off', !!st.local);
    shareWhy.hidden = !st.local;
    shareWhy.textContent = st.local ? shareWhyText(st) : '';
  }

  function renderMatrix(st) {
    const vm = st.matrix;
    const none = st.info?.attention === 'none';
    if (vm?.alpha) {
      heatmap.update(vm);
      table.update(vm);
    } else {
      const fixed = fixedSummary(st.info);
      const msg = st.trace && none
        ? t('heat.none', { formula: fixed.formula, words: fixed.words })
        : st.error?.stage === 'translate' ? st.error.message : st.status === 'failed' ? t('heat.afterLoad') : t('heat.loading');
      heatmap.update({ message: msg });
      table.update(null);
    }
    const off = !vm?.alpha;
    for (const b of [...exportButtons, rowBtn, piecesBtn, zoomFit]) b.disabled = off;
    renderZoom(st);
    tableBtn.disabled = none;
    if (none && !tableBox.classList.contains('as-visually-hidden')) tableBtn.click();
    legend.hidden = none;
    intro.hidden = none;
    piecesNote.hidden = none || !vm;
    if (vm) {
      const pieceWords = vm.identity ? t(st.info?.tokenizer === 'subwords' ? 'heat.piecesSameSentence' : 'heat.piecesSame') : vm.level === 'pieces' ? t('heat.piecesShown') : t('heat.wordsShown');
      piecesNote.textContent = `${t('heat.piecesNote')} ${pieceWords}`;
    }
  }

  function renderZoom(st) {
    zoomOut$.textContent = t('heat.zoomPercent', { p: num(Math.round(st.zoom * 100)) });
    zoomIn.disabled = !st.matrix?.alpha || st.zoom >= CONFIG.zoomMax;
    zoomOut.disabled = !st.matrix?.alpha || st.zoom <= CONFIG.zoomMin;
  }

  function renderLegend(st) {
    const m = colourMeaning(st.colour);
    legendLow.textContent = m.low;
    legendHigh.textContent = m.high;
    legendText.textContent = m.text;
    rowBtn.setAttribute('aria-pressed', String(st.colour === 'row'));
    intro.textContent = t('heat.intro', { colour: st.colour === 'row' ? t('heat.introRow') : t('heat.introAbsolute') });
  }

  function renderPrintCaption(st) {
    const vm = st.matrix;
    if (!vm?.alpha || !st.info) { printCaption.textContent = ''; return; }
    const entry = st.catalog?.models.find((m) => m.id === st.model);
    printCaption.textContent = t('page.printCaption', {
      sentence: vm.trace.text, translation: vm.trace.translation,
      model: st.local ? st.local.name : entry?.label || st.model,
      divisor: fmtDivisor(scaleFor(st.info, st.scale).divisor), scale: fmtDivisor(st.scale),
      colour: colourMeaning(st.colour).text,
    });
  }

  renderLegend(store.get());
  return {
    element,
    /** Before the frame's writes (lib/scheduler.js): the figure's reads of layout. */
    measure: () => heatmap.measure(),
    update(st, changed) {
      if (changed.has('local')) renderShare(st);
      if (changed.has('scale') || changed.has('info')) renderScale(st);
      if (changed.has('link')) { linkField.hidden = st.link == null; if (st.link != null) linkField.value = st.link; }
      if (changed.has('colour')) renderLegend(st);
      // The lesson bar over the window's bottom came, went or has another step's paragraph: the first screen's room changed.
      if (changed.has('lesson') || changed.has('lessonStep')) heatmap.refit();
      if (['colour', 'zoom', 'presenter'].some((k) => changed.has(k))) {
        // Presenter mode: the whole map on one screen with the sentence, the slider above it and the
        // step controls beside it; its type follows the screen's height (24 px at 1080, 16 at 720),
        // and its cells shrink as far as CONFIG.cellMinPresenter to fit (values while they fit).
        const phone = (window.innerWidth || 1024) <= CONFIG.phoneMaxPx;
        const presenterLabel = Math.max(CONFIG.labelPx, Math.min(CONFIG.labelPxPresenter, Math.round((window.innerHeight || 1080) / 45)));
        heatmap.setOptions({
          colour: st.colour, zoom: st.zoom,
          labelPx: st.presenter ? presenterLabel : CONFIG.labelPx,
          cellMax: st.presenter ? CONFIG.cellMaxPresenter : CONFIG.cellMax,
          // A phone: a 12-word sentence's map fits the width with smaller cells (a tap reads a cell, zoom prints the values).
          cellMin: st.presenter ? CONFIG.cellMinPresenter : phone ? CONFIG.cellMinPhone : CONFIG.cellMin,
          // A phone: a short sentence's map (8 words, up to 14 rows) ends above the fold on opening, with smaller cells still.
          screenMin: phone ? CONFIG.firstScreenCellMinPhone : CONFIG.firstScreenCellMin,
          reserve: st.presenter ? CONFIG.heatBoxReservePresenterPx : CONFIG.heatBoxReservePx,
          boxPx: st.presenter ? 0 : (boxPx ?? 0),
          fitFirstScreen: true,
          fitWhole: !!st.presenter,
          // Presenter mode: the readout under the map (a tapped cell's value) stays on the screen too.
          marginPx: st.presenter ? CONFIG.presenterMarginPx : CONFIG.firstScreenMarginPx,
          // Presenter mode: a lesson's bar covers the screen's bottom, and the sentence and the whole map must
          // be above it on entering, so the first screen ends at the bar's top.
          screenBottom: st.presenter ? screenBottom : null,
          // Otherwise a lesson brings its step's card to the window's top: when that card is in the map's row
          // (the map's card, or the step view beside it), the map is fitted where the lesson shows it, above the
          // bar. (Not from its place under the input card: too little room there, so the fit gave up and kept
          // the box's larger cells, the last row under the bar.)
          place: st.presenter ? null : lessonPlace,
        });
        renderZoom(st);
      }
      if (changed.has('pieces')) piecesBtn.setAttribute('aria-pressed', String(!!st.pieces));
      if (['matrix', 'error', 'info', 'status'].some((k) => changed.has(k))) renderMatrix(st);
      if (['matrix', 'info', 'colour', 'scale', 'model', 'local', 'catalog'].some((k) => changed.has(k))) renderPrintCaption(st);
      if (changed.has('step') || changed.has('matrix')) {
        const row = st.matrix ? rowOfStep(st.matrix, st.step) : st.step;
        heatmap.setMarkedRow(row);
        table.setMarkedRow(row);
      }
    },
    redraw: () => heatmap.redraw(),
    destroy: () => heatmap.destroy(),
  };
}
