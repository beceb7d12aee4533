// worksheet.js - the alignment worksheet: the notes' exercise "plot the
// alignments" on one sheet. Up to CONFIG.worksheetMax sentences (typed, the
// page's own, or picked from the model's examples), each translated by the
// page's model at the page's score scale and decoding (controllers/worksheet.js)
// and drawn as a small heatmap: the heatmap's own painting
// (views/heatmap-paint.js) at one cell size and on its one colour scale
// (α from 0 to 1), at the heatmap's level (words, or pieces with "Show
// subword pieces"). Each map gets labels measured on it (lib/worksheet.js:
// diagonal / with jumps / diffuse, and the model's confidence), a "translation
// wrong" tick and a line of notes. The sheet is in the link (ws, wx, wn:
// state.js), prints on one A4 page (alignscope.css: data-print="worksheet"
// on the widget while its own print runs) and exports as PNG and SVG
// (views/worksheet-export.js).

import { CONFIG } from '../config.js';
import { h, download, uid } from '../lib/dom.js';
import { cutText } from '../lib/sentences.js';
import { figureMatrix } from '../lib/figure.js';
import { fmt, fmtDivisor } from '../lib/math.js';
import { alignmentShape, modelConfidence, entryOf } from '../lib/worksheet.js';
import { scaleFor } from '../state.js';
import { decodingOf } from '../controllers/translation.js';
import { sheetKey, unreadText } from '../controllers/worksheet.js';
import { formatLengthPenalty } from '../lib/beam.js';
import { legendGradientCSS, themeColors, WORKSHEET as W } from '../theme.js';
import { layoutHeatmap, fontsFor } from '../views/heatmap-layout.js';
import { paint } from '../views/heatmap-paint.js';
import { fileStem } from '../views/export.js';
import { worksheetSVG, worksheetPNG } from '../views/worksheet-export.js';
import { t, num } from '../i18n/index.js';

/** ctx: { headingId, actions: { link() → { link } | { why }, modelTag() } } */
export function mount(store, { headingId, actions }) {
  const addId = uid('wsadd');
  const addInput = h('input', { type: 'text', id: addId, class: 'as-input as-ws-add-text', maxlength: String(CONFIG.worksheetSentenceMaxChars), autocomplete: 'off', spellcheck: 'false' });
  const addBtn = h('button', { type: 'submit', class: 'as-btn as-btn-small as-ws-add' }, t('worksheet.add'));
  const addPage = h('button', { type: 'button', class: 'as-btn as-btn-small as-ws-add-page' }, t('worksheet.addPage'));
  const addForm = h('form', { class: 'as-ws-add-form' },
    h('label', { for: addId, class: 'as-small' }, t('worksheet.addLabel')), h('div', { class: 'as-ws-add-row' }, addInput, addBtn, addPage));
  const count = h('p', { class: 'as-small as-muted as-ws-count' });
  const examplesSummary = h('summary', { class: 'as-small' }, t('worksheet.examples'));
  const examplesList = h('div', { class: 'as-examples-list', role: 'group', 'aria-label': t('worksheet.examples') });
  const examples = h('details', { class: 'as-examples as-ws-examples', hidden: true }, examplesSummary, examplesList);
  const status = h('p', { class: 'as-small as-ws-status', role: 'status' });
  const legendModel = h('p', { class: 'as-small as-ws-legend-model' });
  const legendLevel = h('p', { class: 'as-small as-muted as-ws-legend-level' });
  const legend = h('div', { class: 'as-ws-legend' },
    h('div', { class: 'as-legend as-small' }, h('span', null, t('heat.legendLow')), h('span', { class: 'as-legend-bar', 'aria-hidden': 'true', style: { 'background-image': legendGradientCSS() } }), h('span', null, t('heat.legendHigh')),
      h('span', { class: 'as-muted as-legend-text' }, t('worksheet.legendScale'))),
    h('p', { class: 'as-small as-ws-legend-shapes' }, t('worksheet.legendShapes', { bits: fmt(CONFIG.worksheetDiffuseBits, 1) })),
    h('p', { class: 'as-small as-ws-legend-confidence' }, t('worksheet.legendConfidence')),
    legendModel, legendLevel);
  const printBtn = h('button', { type: 'button', class: 'as-btn as-btn-small as-ws-print' }, t('worksheet.print'));
  const pngBtn = h('button', { type: 'button', class: 'as-btn as-btn-small as-ws-png' }, 'PNG');
  const svgBtn = h('button', { type: 'button', class: 'as-btn as-btn-small as-ws-svg' }, 'SVG');
  const linkBtn = h('button', { type: 'button', class: 'as-btn as-btn-small as-ws-copy' }, t('worksheet.copyLink'));
  const linkField = h('input', { type: 'text', class: 'as-input as-ws-link', readonly: true, hidden: true, 'aria-label': t('worksheet.linkLabel') });
  const linkWhy = h('p', { class: 'as-small as-ws-link-why', hidden: true });
  const tools = h('div', { class: 'as-toolbar as-ws-tools', role: 'toolbar', 'aria-label': t('worksheet.tools') },
    printBtn, h('span', { class: 'as-small as-muted' }, t('heat.export')), pngBtn, svgBtn, linkBtn);
  const list = h('ol', { class: 'as-ws-list' });
  const empty = h('p', { class: 'as-small as-muted as-ws-empty' }, t('worksheet.empty', { max: num(CONFIG.worksheetMax) }));
  // What a printout has above the maps (shown only in print): the title and the student's name line.
  const printHead = h('p', { class: 'as-ws-print-head', 'aria-hidden': 'true' }, t('worksheet.printName'));
  const element = h('section', { class: 'as-card as-worksheet-card', 'aria-labelledby': headingId, dataset: { state: 'empty' } },
    h('h2', { id: headingId }, t('worksheet.heading')),
    h('p', { class: 'as-small as-ws-intro' }, t('worksheet.intro', { max: num(CONFIG.worksheetMax) })),
    printHead, addForm, examples, count, tools, linkField, linkWhy, status, legend, empty, list);

  // ---------- the sheet ----------
  const sheetOf = () => store.get().sheet ?? [];
  const setSheet = (sheet) => store.set({ sheet });
  const full = () => sheetOf().length >= CONFIG.worksheetMax;
  // A sentence as the sheet keeps it: one line, cut at the sheet's length.
  const asLine = (text) => cutText(String(text).replace(/\s+/gu, ' '), CONFIG.worksheetSentenceMaxChars);
  function add(text) {
    const line = asLine(text).trim();
    if (!line || full()) return false;
    setSheet([...sheetOf(), entryOf(line)]);
    return true;
  }
  addForm.addEventListener('submit', (e) => {
    e.preventDefault();
    if (add(addInput.value)) addInput.value = '';
    addInput.focus();
  });
  addPage.addEventListener('click', () => add(store.get().sentence));
  // An edited sentence is the student's own (no longer as the link gave it); a tick or a note leaves that as it was.
  const edit = (i, change) => setSheet(sheetOf().map((e, k) => (k !== i ? e
    : entryOf(change.text ?? e.text, { wrong: change.wrong ?? e.wrong, notes: change.notes ?? e.notes, linked: e.linked && (change.text == null || change.text === e.text) }))));
  function remove(i) {
    setSheet(sheetOf().filter((_, k) => k !== i));
    // The focus to the next sentence's field (or the previous one, or the box to add one).
    queueMicrotask(() => (rows[Math.min(i, rows.length - 1)]?.text ?? addInput).focus());
  }

  // ---------- the rows: one per sentence, built when their number changes ----------
  let rows = [];
  function buildRows(n) {
    rows = Array.from({ length: n }, (_, i) => {
      const textId = uid('wst');
      const notesId = uid('wsn');
      const labelsId = uid('wsl');
      const text = h('input', { type: 'text', id: textId, class: 'as-input as-ws-text', maxlength: String(CONFIG.worksheetSentenceMaxChars), autocomplete: 'off', spellcheck: 'false' });
      const removeBtn = h('button', { type: 'button', class: 'as-btn as-btn-small as-ws-remove', 'aria-label': t('worksheet.removeLabel', { i: num(i + 1) }) }, t('worksheet.remove'));
      const translation = h('p', { class: 'as-ws-translation' });
      const canvas = h('canvas', { class: 'as-ws-map', role: 'img', 'aria-describedby': labelsId, hidden: true });
      const note = h('p', { class: 'as-small as-muted as-ws-note' });
      const shape = h('span', { class: 'as-ws-shape' });
      const measured = h('span', { class: 'as-ws-measured' });
      const confidence = h('span', { class: 'as-ws-confidence' });
      const labels = h('p', { id: labelsId, class: 'as-small as-ws-labels' }, shape, ' ', measured, h('span', { class: 'as-ws-sep', 'aria-hidden': 'true' }, ' · '), confidence);
      const wrong = h('input', { type: 'checkbox', class: 'as-ws-wrong' });
      const notes = h('input', { type: 'text', id: notesId, class: 'as-input as-ws-notes', maxlength: String(CONFIG.worksheetNoteMaxChars), autocomplete: 'off' });
      // The tick and the notes as text, for the printout (its controls are not printed).
      const printTick = h('span', { class: 'as-ws-print-tick', 'aria-hidden': 'true' });
      const printNotes = h('span', { class: 'as-ws-print-notes', 'aria-hidden': 'true' });
      const printText = h('span', { class: 'as-ws-print-text', 'aria-hidden': 'true' });
      text.addEventListener('input', () => edit(i, { text: asLine(text.value) }));
      // Leaving the field: the sentence as the link keeps it (no spaces at its ends); an emptied one is removed.
      text.addEventListener('change', () => { const v = asLine(text.value).trim(); if (!v) remove(i); else edit(i, { text: v }); });
      wrong.addEventListener('change', () => edit(i, { wrong: wrong.checked }));
      notes.addEventListener('input', () => edit(i, { notes: cutText(notes.value.replace(/\s+/gu, ' '), CONFIG.worksheetNoteMaxChars) }));
      removeBtn.addEventListener('click', () => remove(i));
      const element = h('li', { class: 'as-ws-item', dataset: { index: String(i + 1), state: 'waiting' } },
        h('div', { class: 'as-ws-item-head' },
          h('label', { for: textId, class: 'as-ws-number' }, t('worksheet.sentenceLabel', { i: num(i + 1) })), text, printText, removeBtn),
        translation, h('div', { class: 'as-ws-map-box' }, canvas, note), labels,
        h('div', { class: 'as-ws-marks' },
          h('label', { class: 'as-ws-wrong-label' }, wrong, ` ${t('worksheet.wrong')}`), printTick,
          h('label', { for: notesId, class: 'as-small as-ws-notes-label' }, t('worksheet.notes')), notes, printNotes));
      return { element, text, translation, canvas, note, shape, measured, confidence, wrong, notes, printTick, printNotes, printText, painted: null };
    });
    list.replaceChildren(...rows.map((r) => r.element));
  }

  // ---------- the maps ----------
  const measureCtx = document.createElement('canvas').getContext('2d');
  measureCtx.font = fontsFor(W.labelPx).label;
  const measure = (s) => measureCtx.measureText(s).width;
  // trace -> { pieces, matrix, shape, confidence }: each map's matrix and labels, made once per trace and level.
  const made = new WeakMap();
  function mapOf(st, trace) {
    const hit = made.get(trace);
    if (hit && hit.pieces === st.pieces && hit.info === st.info) return hit;
    const matrix = figureMatrix(trace, st.info, st.pieces);
    const out = { pieces: st.pieces, info: st.info, matrix, shape: matrix.alpha ? alignmentShape(matrix) : null, confidence: modelConfidence(trace) };
    made.set(trace, out);
    return out;
  }
  let colors = null;
  function paintMap(row, m) {
    const vm = m.matrix;
    const L = layoutHeatmap(vm, measure, Infinity, { labelPx: W.labelPx, cellMax: W.cell, cellMin: W.cell });
    const dpr = window.devicePixelRatio || 1;
    row.canvas.width = Math.round(L.width * dpr);
    row.canvas.height = Math.round(L.height * dpr);
    // Its CSS width: the layout's, at most the column's (alignscope.css max-width), the height following.
    row.canvas.style.width = `${L.width}px`;
    const ctx = row.canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    colors ??= themeColors(element);
    paint(ctx, vm, L, colors, { background: true });
    Object.assign(row.canvas.dataset, { rows: JSON.stringify(vm.rowLabels), cols: JSON.stringify(vm.colLabels), level: vm.level, cell: String(L.cell) });
  }

  /** The row labels' words: the strongest column of each row, in words, for the map's text alternative. */
  const pathWords = (vm, path) => Array.from(path, (j, r) => t('worksheet.pathPair', { row: vm.rowLabels[r], col: vm.colLabels[j] })).join(', ');

  function renderRow(st, row, entry, i) {
    if (document.activeElement !== row.text && row.text.value !== entry.text) row.text.value = entry.text;
    if (document.activeElement !== row.notes && row.notes.value !== entry.notes) row.notes.value = entry.notes;
    row.wrong.checked = entry.wrong;
    row.printText.textContent = entry.text;
    row.printTick.textContent = `${entry.wrong ? '☒' : '☐'} ${t('worksheet.wrong')}`;
    row.printNotes.textContent = entry.notes ? t('worksheet.printNotes', { notes: entry.notes }) : '';
    const key = sheetKey(st, entry.text);
    const result = key ? st.sheetResults?.[key] : null;
    const el = row.element;
    const clear = (state, note) => {
      el.dataset.state = state;
      row.canvas.hidden = true;
      row.painted = null;
      row.note.hidden = !note;
      row.note.textContent = note;
      for (const s of [row.shape, row.measured, row.confidence]) s.textContent = '';
      delete el.dataset.shape;
    };
    if (!result?.trace) {
      row.translation.textContent = result?.error ? '—' : '…';
      clear(result ? 'error' : 'waiting', result ? unreadText(result, st.info) : t(st.sheetBusy === key ? 'worksheet.translating' : 'worksheet.waiting'));
      return;
    }
    const trace = result.trace;
    const m = mapOf(st, trace);
    row.translation.textContent = trace.translation || t('input.emptyTranslation');
    el.dataset.state = 'ready';
    const c = m.confidence;
    row.confidence.textContent = c ? t('worksheet.confidence', { p: fmt(c.geometricMean, 2), min: fmt(c.min, 2), token: tokenText(trace, c.minStep) }) : '';
    el.dataset.confidence = c ? String(c.geometricMean) : '';
    if (!m.shape) {
      clear('ready', t('worksheet.noAttention'));
      row.confidence.textContent = c ? t('worksheet.confidence', { p: fmt(c.geometricMean, 2), min: fmt(c.min, 2), token: tokenText(trace, c.minStep) }) : '';
      return;
    }
    row.note.hidden = true;
    row.canvas.hidden = false;
    el.dataset.shape = m.shape.shape;
    row.shape.textContent = t(`worksheet.shape.${m.shape.shape}`);
    row.shape.dataset.shape = m.shape.shape;
    row.measured.textContent = t('worksheet.measured', { h: fmt(m.shape.meanEntropy, 2), n: m.shape.jumps.length });
    row.canvas.setAttribute('aria-label', t('worksheet.mapLabel', { i: num(i + 1), rows: num(m.matrix.T), cols: num(m.matrix.S), path: pathWords(m.matrix, m.shape.path) }));
    if (row.painted !== m.matrix) { paintMap(row, m); row.painted = m.matrix; }
  }

  const tokenText = (trace, step) => (trace.target[step]?.isEnd ? '</s>' : trace.target[step]?.text || trace.target[step]?.token || '');

  function renderExamples(st) {
    const entry = st.local ? null : st.catalog?.models.find((m) => m.id === st.model);
    const list0 = entry?.examples ?? [];
    examples.hidden = !list0.length;
    if (examples.dataset.model === (entry?.id ?? '')) return;
    examples.dataset.model = entry?.id ?? '';
    examplesList.replaceChildren(...list0.map((e) => {
      const b = h('button', { type: 'button', class: 'as-btn as-btn-small as-example' }, e.text);
      b.addEventListener('click', () => add(e.text));
      return b;
    }));
  }

  function render(st) {
    const sheet = st.sheet ?? [];
    if (rows.length !== sheet.length) buildRows(sheet.length);
    sheet.forEach((entry, i) => renderRow(st, rows[i], entry, i));
    const isFull = sheet.length >= CONFIG.worksheetMax;
    addBtn.disabled = isFull;
    addPage.disabled = isFull;
    addInput.disabled = isFull;
    for (const b of examplesList.querySelectorAll('button')) b.disabled = isFull;
    count.textContent = t('worksheet.count', { n: num(sheet.length), max: num(CONFIG.worksheetMax) });
    empty.hidden = sheet.length > 0;
    for (const b of [printBtn, pngBtn, svgBtn]) b.disabled = !sheet.length;
    const ready = rows.filter((r) => r.element.dataset.state === 'ready').length;
    const busy = st.sheetBusy ? sheet.findIndex((e) => sheetKey(st, e.text) === st.sheetBusy) : -1;
    status.textContent = !sheet.length ? '' : busy >= 0 ? t('worksheet.busy', { i: num(busy + 1), n: num(sheet.length) })
      : ready === sheet.length ? t('worksheet.done', { n: sheet.length }) : '';
    element.dataset.state = !sheet.length ? 'empty' : ready === sheet.length && busy < 0 ? 'ready' : 'busy';
    renderLegend(st);
    renderExamples(st);
  }

  function modelName(st) {
    return st.local ? st.local.name : st.catalog?.models.find((m) => m.id === st.model)?.label || st.model || '';
  }
  function decodingText(st) {
    const { beamWidth, lengthPenalty } = decodingOf(st);
    return beamWidth === 1 ? t('input.decodingGreedy') : t('input.decodingBeam', { k: num(beamWidth), lp: formatLengthPenalty(lengthPenalty) });
  }
  function renderLegend(st) {
    if (!st.info) { legendModel.textContent = ''; return; }
    legendModel.textContent = t('worksheet.legendModel', { model: modelName(st), divisor: fmtDivisor(scaleFor(st.info, st.scale).divisor), scale: fmtDivisor(st.scale), decoding: decodingText(st) });
    legendLevel.textContent = t(st.pieces ? 'worksheet.levelPieces' : 'worksheet.levelWords');
  }

  // ---------- print, exports, link ----------
  printBtn.addEventListener('click', () => {
    const root = element.closest('.as-root');
    // Only this card on the paper (alignscope.css), until the print dialog is done.
    root.dataset.print = 'worksheet';
    addEventListener('afterprint', () => { delete root.dataset.print; }, { once: true });
    window.print();
  });
  /** The sheet as the exports draw it: a block per sentence (views/worksheet-export.js). */
  function blocks() {
    const st = store.get();
    return (st.sheet ?? []).map((entry, i) => {
      const result = st.sheetResults?.[sheetKey(st, entry.text)];
      const m = result?.trace ? mapOf(st, result.trace) : null;
      const labels = m?.shape ? `${t(`worksheet.shape.${m.shape.shape}`)} · ${t('worksheet.measured', { h: fmt(m.shape.meanEntropy, 2), n: m.shape.jumps.length })}` : '';
      const conf = m?.confidence ? t('worksheet.confidence', { p: fmt(m.confidence.geometricMean, 2), min: fmt(m.confidence.min, 2), token: tokenText(result.trace, m.confidence.minStep) }) : '';
      return {
        head: [`${i + 1}. ${entry.text}`, `→ ${result?.trace ? result.trace.translation : '—'}`],
        vm: m?.shape ? m.matrix : null,
        note: result?.trace ? t('worksheet.noAttention') : result ? unreadText(result, st.info) : t('worksheet.waiting'),
        after: [[labels, conf].filter(Boolean).join(' · '), `${entry.wrong ? '☒' : '☐'} ${t('worksheet.wrong')}`, entry.notes ? t('worksheet.printNotes', { notes: entry.notes }) : ''].filter(Boolean),
      };
    });
  }
  const exportLegend = () => {
    const st = store.get();
    return [t('worksheet.legendScale'), t('worksheet.legendShapes', { bits: fmt(CONFIG.worksheetDiffuseBits, 1) }), t('worksheet.legendConfidence'), legendModel.textContent, t(st.pieces ? 'worksheet.levelPieces' : 'worksheet.levelWords')].filter(Boolean);
  };
  const stem = () => fileStem(actions.modelTag(), 'worksheet');
  const exportColors = () => themeColors(element);
  svgBtn.addEventListener('click', () => {
    const ctx = document.createElement('canvas').getContext('2d');
    const m = (s, px, bold) => { ctx.font = `${bold ? 'bold ' : ''}${px}px ${CONFIG.labelFamily}`; return ctx.measureText(s).width; };
    download(new Blob([worksheetSVG(blocks(), m, { colors: exportColors(), title: t('worksheet.heading'), legend: exportLegend() })], { type: 'image/svg+xml' }), `${stem()}.svg`);
  });
  pngBtn.addEventListener('click', async () => {
    download(await worksheetPNG(blocks(), exportColors(), { title: t('worksheet.heading'), legend: exportLegend() }), `${stem()}.png`);
  });
  linkBtn.addEventListener('click', async () => {
    const r = actions.link();
    linkWhy.hidden = !r.why;
    linkWhy.textContent = r.why ?? '';
    linkField.hidden = !r.link;
    if (!r.link) return;
    linkField.value = r.link;
    linkField.select();
    try { await navigator.clipboard.writeText(r.link); } catch { /* file:// or no permission: the field is selected */ }
  });

  const KEYS = ['sheet', 'sheetResults', 'sheetBusy', 'info', 'pieces', 'scale', 'beam', 'beamLp', 'catalog', 'model', 'local'];
  return {
    element,
    update(st, changed) {
      if (KEYS.some((k) => changed.has(k))) render(st);
    },
    /** The theme changed: the maps read their colours again. */
    redraw() {
      colors = null;
      for (const r of rows) r.painted = null;
      render(store.get());
    },
  };
}
