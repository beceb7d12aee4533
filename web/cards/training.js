// training.js - the card "Watch training find the alignment": the default
// model at a few points of its own training (its "film", lib/film.js), each
// translating the current sentence, and a scrubber over the points. At each
// point: the update count and its share of the training budget, the dev
// BLEU there, the translation and the heatmap on the one absolute colour
// scale (α from 0 to 1, so the points compare). Nothing was ever told which
// words correspond; the alignment appears as the translation improves.
// Closed by default: the button states what opening costs (files and bytes,
// from the catalogue), and nothing is fetched until it is pressed.
// controllers/training.js does the work; this card draws the store's `film`
// and `filmPoint`.

import { CONFIG } from '../config.js';
import { h, uid } from '../lib/dom.js';
import { figureMatrix } from '../lib/figure.js';
import { rowOfStep } from '../lib/words.js';
import { mean } from '../lib/compare.js';
import { fmt } from '../lib/math.js';
import { filmFor, filmDownload, loadLabel, progressText, pointText, bleuText, formatFraction, argmaxColumns } from '../lib/film.js';
import { t, tParts, num } from '../i18n/index.js';
import { legendGradientCSS } from '../theme.js';
import * as heatmapView from '../views/heatmap.js';

// One colour scale for every point (never per row), cells a little smaller than the main map's.
const HEAT_OPTIONS = { colour: 'absolute', zoom: 1, labelPx: CONFIG.labelPx, cellMax: CONFIG.filmCellMax, reserve: CONFIG.heatBoxReservePx };

/** ctx: { headingId, frame (the widget's render scheduler), actions: { open(), retry(), setPoint(i) } } */
export function mount(store, { headingId, frame = null, actions }) {
  const scrubId = uid('film');
  const which = h('p', { class: 'as-small as-training-which' });
  const loadBtn = h('button', { type: 'button', class: 'as-btn as-btn-primary as-training-load' });
  const cost = h('p', { class: 'as-small as-muted as-training-cost' });
  const bar = h('progress', { class: 'as-training-progress', max: '1', hidden: true, 'aria-label': t('training.progressLabel') });
  // The live status says the phase (fetching the list, how many points are ready); the bytes go beside the bar, not read out at every chunk.
  const status = h('p', { class: 'as-small as-training-status', role: 'status', 'aria-live': 'polite' });
  const progressLine = h('p', { class: 'as-small as-muted as-training-bytes', hidden: true });
  const errorLine = h('p', { class: 'as-small as-training-error', hidden: true });
  const retryBtn = h('button', { type: 'button', class: 'as-btn as-btn-small as-training-retry', hidden: true }, t('training.retry'));

  // The scrubber: a range over the points (arrow keys, Home, End), and buttons either side.
  const earlier = h('button', { type: 'button', class: 'as-btn as-icon as-training-earlier', 'aria-label': t('training.earlier') }, '◀');
  const later = h('button', { type: 'button', class: 'as-btn as-icon as-training-later', 'aria-label': t('training.later') }, '▶');
  const scrub = h('input', { type: 'range', id: scrubId, class: 'as-range as-training-scrub', min: '0', max: '1', step: '1', value: '0' });
  const ticks = h('div', { class: 'as-range-ticks as-training-ticks', 'aria-hidden': 'true' });
  const pointHead = h('h3', { class: 'as-training-point' });
  const translation = h('p', { class: 'as-compare-translation as-training-translation' });
  const line = h('p', { class: 'as-small as-training-line' });
  const message = h('p', { class: 'as-small as-training-message', hidden: true });
  const box = h('div', { class: 'as-heat-box as-training-box' });
  const bleuHow = h('p', { class: 'as-small as-muted as-training-how' });
  const announce = h('p', { class: 'as-visually-hidden', 'aria-live': 'polite' });
  const legend = h('div', { class: 'as-legend as-small' }, h('span', null, t('heat.legendLow')), h('span', { class: 'as-legend-bar', 'aria-hidden': 'true', style: { 'background-image': legendGradientCSS() } }), h('span', null, t('heat.legendHigh')));
  const filmView = h('div', { class: 'as-training-film', hidden: true },
    h('div', { class: 'as-training-scrubber' },
      earlier,
      h('div', { class: 'as-training-range' }, h('label', { for: scrubId, class: 'as-visually-hidden' }, t('training.scrubLabel')), scrub, ticks),
      later),
    h('div', { class: 'as-card-head' }, pointHead, legend),
    translation, line, message, box, bleuHow, announce);
  const element = h('section', { class: 'as-card as-training-card', 'aria-labelledby': headingId, hidden: true },
    h('h2', { id: headingId }, t('training.heading')),
    h('p', { class: 'as-small as-muted' }, t('training.intro')),
    which,
    h('div', { class: 'as-toolbar as-training-open' }, loadBtn),
    cost, bar, progressLine, status, h('div', { class: 'as-row as-wrap' }, errorLine, retryBtn), filmView);

  // The heatmap is built when the film first opens: a closed card adds no canvas to the page.
  let heat = null;
  let heatShows = null; // the matrix it shows
  const heatmap = () => {
    if (!heat) { heat = heatmapView.render(box, { frame }); heat.setOptions(HEAT_OPTIONS); }
    return heat;
  };

  loadBtn.addEventListener('click', () => actions.open());
  retryBtn.addEventListener('click', () => actions.retry());
  scrub.addEventListener('input', () => actions.setPoint(Number(scrub.value)));
  earlier.addEventListener('click', () => actions.setPoint((store.get().filmPoint ?? 0) - 1));
  later.addEventListener('click', () => actions.setPoint((store.get().filmPoint ?? 0) + 1));

  let matrixCache = { trace: null, pieces: null, m: null };
  const matrixOf = (st, p) => {
    if (!p?.trace || !p.info) return null;
    if (matrixCache.trace !== p.trace || matrixCache.pieces !== st.pieces) matrixCache = { trace: p.trace, pieces: st.pieces, m: figureMatrix(p.trace, p.info, st.pieces) };
    return matrixCache.m;
  };

  function renderClosed(st, chosen) {
    const { film, entry } = chosen;
    const name = entry.label || entry.id;
    const mainName = st.local?.name ?? st.catalog.models.find((m) => m.id === st.model)?.label ?? st.model ?? '';
    which.textContent = film.model === st.model && !st.local
      ? t('training.which', { name, n: film.points, updates: num(film.updates ?? 0) })
      : t('training.other', { name, main: mainName });
    const download = filmDownload(film, st.local ? null : st.model);
    loadBtn.textContent = loadLabel(download);
    cost.textContent = `${download.shared ? t('training.shared', { name }) : t('training.notShared', { name })} ${t('training.notOffline')}`;
  }

  function renderPoint(st) {
    const f = st.film;
    const n = f.points.length;
    const i = Math.max(0, Math.min(n - 1, st.filmPoint ?? 0));
    const point = f.manifest.points[i];
    const p = f.points[i];
    scrub.max = String(n - 1);
    scrub.value = String(i);
    const head = `${pointText(point, f.manifest.updates)} · ${bleuText(point)}`;
    scrub.setAttribute('aria-valuetext', head);
    earlier.disabled = i === 0;
    later.disabled = i === n - 1;
    if (ticks.childElementCount !== n) ticks.replaceChildren(...f.manifest.points.map((q) => h('span', null, formatFraction(q.fraction))));
    [...ticks.children].forEach((el, k) => el.classList.toggle('as-strong', k === i));
    pointHead.textContent = head;
    const entry = st.catalog?.models.find((m) => m.id === f.model);
    if (entry?.target) translation.lang = entry.target;
    filmView.dataset.point = String(i);
    filmView.dataset.status = p.status;
    const m = matrixOf(st, p);
    translation.textContent = p.trace?.translation ?? '';
    let msg = null;
    if (p.status === 'failed') msg = p.error;
    else if (p.status === 'waiting') msg = t('training.waiting');
    else if (p.status === 'downloading') msg = t('training.downloading', { file: `models/${point.path}` });
    else if (p.status === 'starting') msg = t('training.starting', { file: `models/${point.path}` });
    else if (p.translateError) msg = p.translateError;
    else if (!p.trace) msg = t('training.translating');
    else if (!m?.alpha) msg = t('training.noAlpha');
    message.hidden = !msg;
    message.textContent = msg ?? '';
    message.dataset.error = String(p.status === 'failed' || !!p.translateError);
    box.hidden = !m?.alpha;
    if (m?.alpha) {
      // A download's progress re-renders the card many times a second: paint only a new matrix.
      if (heatShows !== m) { heatmap().update(m); heatShows = m; }
      heatmap().setMarkedRow(rowOfStep(m, Math.min(st.step, m.trace.T - 1)));
      const spread = argmaxColumns(m);
      line.textContent = `${t('training.columns', { n: spread.columns, S: num(spread.S) })} ${t('training.entropy', { h: fmt(mean(m.entropies), 2), max: fmt(Math.log2(Math.max(2, m.S)), 2), S: num(m.S) })}`;
    } else {
      line.textContent = '';
    }
    const how = f.manifest.devBleuHow ? h('span', { lang: 'en' }, f.manifest.devBleuHow) : '';
    bleuHow.replaceChildren(...(f.manifest.devSentences
      ? tParts('training.bleuHow', { n: num(f.manifest.devSentences), how })
      : tParts('training.bleuHowShort', { how })));
    const announceText = `${head}${p.trace ? `: ${p.trace.translation}` : ''}`;
    if (announce.textContent !== announceText) announce.textContent = announceText;
  }

  function render(st) {
    const chosen = filmFor(st.catalog, st.local ? null : st.model);
    // No film in this site's catalogue (or the single-file copy, which carries one model): no card.
    element.hidden = !chosen;
    if (!chosen) return;
    const f = st.film ?? { status: 'closed', points: [] };
    renderClosed(st, chosen);
    const closed = f.status === 'closed';
    loadBtn.parentElement.hidden = !closed;
    cost.hidden = !closed;
    const d = f.download;
    bar.hidden = !(d && d.total > 0);
    if (d && d.total > 0) { bar.max = d.total; bar.value = Math.min(d.total, d.loaded); }
    const failed = f.points.filter((p) => p.status === 'failed').length;
    const ready = f.points.filter((p) => p.status === 'ready').length;
    const downloading = f.status === 'open' && d && d.total > 0 && d.loaded < d.total;
    progressLine.hidden = !downloading;
    progressLine.textContent = downloading ? progressText(d.loaded, d.total) : '';
    let text = '';
    if (f.status === 'manifest') text = t('training.fetchingManifest', { file: `models/${chosen.film.manifest}` });
    else if (f.status === 'open') text = t('training.ready', { ready: num(ready), n: f.points.length });
    if (status.textContent !== text) status.textContent = text;
    const err = f.status === 'failed' ? f.error : failed ? t('training.someFailed', { n: failed }) : null;
    errorLine.hidden = !err;
    errorLine.textContent = err ?? '';
    retryBtn.hidden = !err;
    filmView.hidden = f.status !== 'open';
    element.dataset.status = f.status;
    if (f.status === 'open') renderPoint(st);
  }

  const KEYS = ['film', 'filmPoint', 'catalog', 'model', 'local', 'step', 'pieces'];
  return {
    element,
    update(st, changed) {
      if (KEYS.some((k) => changed.has(k))) render(st);
    },
    redraw() { heat?.redraw(); },
    destroy() { heat?.destroy(); },
  };
}
