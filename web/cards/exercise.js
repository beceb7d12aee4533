// exercise.js - the exercise card: the notes' "Add attention to your
// seq2seq. Compare validation BLEU and the quality on the longest 10% of
// sentences against the no-attention model", answered with the models the
// page ships (no attention, Bahdanau additive, Luong dot). The figure has the
// shape of Bahdanau et al. 2015's Fig. 2: BLEU against source length, one
// line per model, each point with its 90% interval, and the longest 10% of
// the test set as a column of its own, highlighted; the table under it is the
// figure's text alternative (validation BLEU, test BLEU, each length bucket,
// the longest 10% row marked); one sentence says what the numbers show. The
// numbers are the model report's (lib/exercise.js reads them from the
// catalogue). "Side by side on your sentence" sets the comparison card's
// selection (cards/compare.js, controllers/compare.js do the rest) and takes
// the reader there. The card asks nothing of the engine itself.

import { h, svg, uid, replaceChildren } from '../lib/dom.js';
import { attentionName } from '../lib/catalog.js';
import { exerciseReport, longestPart, verdictOf, sideBySide, sideBySideShown, yAxis } from '../lib/exercise.js';
import { EXERCISE as G, themeColors } from '../theme.js';
import { t, num, fixed } from '../i18n/index.js';

const b1 = (x) => fixed(x, 1);
/** A difference with its sign: "+12.0", "−0.1". */
const signed = (x) => `${x > 0 ? '+' : x < 0 ? '−' : ''}${b1(Math.abs(x))}`;
const interval = (c) => (c.ci90 ? t('exercise.ci', { lo: b1(c.ci90[0]), hi: b1(c.ci90[1]) }) : '');

/** A marker of `shape` centred at (x, y). */
function marker(shape, x, y, r, attrs) {
  if (shape === 'square') return svg('rect', { x: x - r, y: y - r, width: 2 * r, height: 2 * r, ...attrs });
  if (shape === 'triangle') return svg('path', { d: `M${x} ${y - r * 1.2}L${x + r * 1.1} ${y + r * 0.8}L${x - r * 1.1} ${y + r * 0.8}Z`, ...attrs });
  return svg('circle', { cx: x, cy: y, r, ...attrs });
}

/** ctx: { headingId, frame (the render scheduler: a resize redraws in its frame) } */
export function mount(store, { headingId, frame = null }) {
  const capId = uid('exc');
  const sumId = uid('exs');
  const plot = svg('svg', { class: 'as-ex-plot', role: 'img', 'aria-labelledby': `${capId} ${sumId}` });
  const caption = h('figcaption', { id: capId, class: 'as-small as-strong' });
  const summary = h('p', { id: sumId, class: 'as-visually-hidden' });
  const legend = h('p', { class: 'as-small as-ex-legend' });
  const figure = h('figure', { class: 'as-ex-figure' }, caption, plot, summary, legend);
  const sentence = h('p', { class: 'as-ex-sentence' });
  const table = h('table', { class: 'as-table as-ex-table' });
  const tableNote = h('p', { class: 'as-small as-muted as-ex-table-note' });
  const tableWrap = h('div', { class: 'as-table-wrap', tabindex: '0', role: 'region', 'aria-label': t('exercise.tableLabel') }, table);
  const button = h('button', { type: 'button', class: 'as-btn as-ex-side' }, t('exercise.sideBySide'));
  const how = h('p', { class: 'as-small as-muted as-ex-how' });
  const status = h('p', { class: 'as-small as-ex-status', role: 'status' });
  const missing = h('p', { class: 'as-small as-muted', hidden: true }, t('exercise.missing'));
  const body = h('div', { class: 'as-ex-body', hidden: true },
    sentence, figure, tableNote, tableWrap,
    h('h3', { class: 'as-ex-side-head' }, t('exercise.sideHead')), how, h('div', { class: 'as-toolbar' }, button), status);
  const element = h('section', { class: 'as-card as-exercise-card', 'aria-labelledby': headingId, dataset: { state: 'waiting' } },
    h('h2', { id: headingId }, t('exercise.heading')),
    h('p', { class: 'as-small' }, h('q', null, t('exercise.quote')), ' ', t('exercise.intro')),
    missing, body);

  let report = null;
  let catalog = null;
  let drawnWidth = 0;
  let figureWidth = 0; // the figure's width: its ResizeObserver's, or read in a frame's measure phase before it reports
  const labelOf = (id) => catalog?.models?.find((m) => m.id === id)?.label || id;
  const kindName = (kind) => attentionName(kind);

  button.addEventListener('click', () => {
    const st = store.get();
    if (!report) return;
    const plan = sideBySide(report, st.catalog, st.model);
    store.set({ compare: plan.compare });
    status.textContent = t('exercise.sideDone', { models: plan.shown.map(labelOf).join(t('exercise.listSep')) });
    // The comparison card is this widget's (ui.js builds it with this one): its heading takes the focus.
    const card = element.closest('.as-root')?.querySelector('.as-compare-card');
    const head = card?.querySelector('h2');
    if (head) {
      head.setAttribute('tabindex', '-1');
      card.scrollIntoView({ block: 'start', behavior: 'auto' });
      head.focus({ preventScroll: true });
    }
  });

  function renderTable() {
    const kinds = report.kinds;
    const head = h('tr', null, h('th', { scope: 'col' }, t('exercise.colWords')), h('th', { scope: 'col' }, t('exercise.colSentences')),
      ...kinds.map((k) => h('th', { scope: 'col', dataset: { kind: k } }, kindName(k))), h('th', { scope: 'col' }, t('exercise.colLongest')));
    const cells = (get) => kinds.map((k) => { const c = get(k); return h('td', { dataset: { kind: k, bleu: c ? String(c.bleu) : '' } }, c ? [b1(c.bleu), c.ci90 ? h('span', { class: 'as-muted as-ex-ci' }, ` ${interval(c)}`) : null] : '—'); });
    const rows = [];
    const dev = kinds.map((k) => report.models[k]);
    if (dev.every((m) => m.devBleu != null)) {
      const n = dev[0].devSentences;
      rows.push(h('tr', { dataset: { row: 'dev' } }, h('th', { scope: 'row' }, t('exercise.rowDev')), h('td', null, n ? num(n) : '—'),
        ...cells((k) => ({ bleu: report.models[k].devBleu, ci90: null })), h('td')));
    }
    const total = report.buckets.reduce((s, b) => s + b.sentences, 0);
    rows.push(h('tr', { dataset: { row: 'test' } }, h('th', { scope: 'row' }, t('exercise.rowTest')), h('td', null, num(total)),
      ...cells((k) => ({ bleu: report.models[k].bleu, ci90: null })), h('td')));
    for (const b of report.buckets) {
      const part = report.longest ? longestPart(b, report.longest.minWords) : null;
      rows.push(h('tr', { dataset: { row: 'bucket', words: b.words, ...(part ? { inLongest: part } : {}) } },
        h('th', { scope: 'row' }, t('exercise.rowBucket', { words: b.words })), h('td', null, num(b.sentences)),
        ...cells((k) => b.bleu[k]), h('td', null, part ? t(`exercise.part.${part}`) : '')));
    }
    const l = report.longest;
    if (l) {
      rows.push(h('tr', { class: 'as-ex-longest', dataset: { row: 'longest', longest: 'true' } },
        h('th', { scope: 'row' }, h('strong', null, t('exercise.rowLongest', { share: num(Math.round(l.share * 100)), min: num(l.minWords) }))),
        h('td', null, num(l.sentences)), ...cells((k) => l.bleu[k]), h('td', null, t('exercise.part.row'))));
    }
    tableNote.textContent = t('exercise.tableCaption', { measure: t(`exercise.measure.${report.measure}`) });
    replaceChildren(table,
      h('caption', { class: 'as-visually-hidden' }, t('exercise.tableLabel')),
      h('thead', null, head), h('tbody', null, rows));
  }

  /** The one sentence: what the longest 10% shows, chosen by the numbers' intervals. */
  function renderSentence() {
    const l = report.longest;
    if (!l) { sentence.textContent = t('exercise.noLongest'); return; }
    const parts = report.kinds.filter((k) => k !== 'none').map((k) => {
      const c = l.bleu[k];
      const v = verdictOf(c.minusNone);
      return t(`exercise.verdict.${v ?? 'unknown'}`, { kind: kindName(k), bleu: b1(c.bleu), diff: c.minusNone ? signed(c.minusNone.bleu) : '', lo: c.minusNone ? signed(c.minusNone.ci90[0]) : '', hi: c.minusNone ? signed(c.minusNone.ci90[1]) : '' });
    });
    sentence.textContent = t('exercise.sentence', {
      share: num(Math.round(l.share * 100)), min: num(l.minWords), n: num(l.sentences), total: num(l.sentencesInSet),
      none: b1(l.bleu.none.bleu), verdicts: parts.join(t('exercise.verdictSep')),
    });
  }

  // The figure is drawn for a known width: never read in the frame that wrote the card.
  const readWidth = () => { figureWidth = figure.clientWidth || 0; };
  function drawSoon() {
    if (figureWidth) { draw(); return; } // (0: hidden when last observed; read again, it may show now)
    if (!frame) { readWidth(); draw(); return; }
    frame.drop('exercise-draw');
    frame.measure('exercise-width', () => { readWidth(); frame.add('exercise-draw', draw); });
  }

  function draw() {
    if (!report) return;
    const width = Math.round(Math.max(G.minWidth, Math.min(G.maxWidth, figureWidth || G.minWidth)));
    drawnWidth = width;
    const height = Math.round(Math.max(G.minHeight, Math.min(G.maxHeight, width * G.ratio)));
    const dark = themeColors(element).dark;
    const kinds = report.kinds;
    const n = report.buckets.length;
    const slots = n + (report.longest ? 1 + G.longestGap : 0);
    const x0 = G.left;
    const x1 = width - G.right;
    const slot = (x1 - x0) / slots;
    const xAt = (i) => x0 + slot * (i + 0.5);
    const xLongest = x0 + slot * (n + G.longestGap + 0.5);
    // On a phone the bucket labels take two rows, every other one lower, so they do not run together.
    const narrow = slot < G.staggerBelow;
    const bottom = G.bottom + (narrow ? G.textPx : 0);
    const axis = yAxis(report);
    const yAt = (v) => height - bottom - (v - axis.lo) / (axis.hi - axis.lo) * (height - G.top - bottom);
    const nodes = [];
    // The longest 10%: its own column, highlighted, and a bracket over the buckets it is made of.
    if (report.longest) {
      const l = report.longest;
      nodes.push(svg('rect', { class: 'as-ex-band', x: xLongest - slot / 2, y: G.top - 6, width: slot, height: height - G.top - bottom + 6 }));
      const first = report.buckets.findIndex((b) => longestPart(b, l.minWords));
      if (first >= 0) {
        const from = xAt(first) + (report.buckets[first].lo < l.minWords ? slot * 0.25 : -slot / 2);
        const y = G.top - 14;
        nodes.push(svg('path', { class: 'as-ex-bracket', d: `M${from} ${y + 5}V${y}H${x0 + slot * n}V${y + 5}`, fill: 'none' }));
        // On a phone its words end at the plot's right edge (French and German run longer than the bracket).
        nodes.push(svg('text', { class: 'as-ex-bracket-label', x: narrow ? x1 : from, y: y - 4, 'text-anchor': narrow ? 'end' : 'start' }, t('exercise.bracket', { share: num(Math.round(l.share * 100)), min: num(l.minWords) })));
      }
    }
    for (const tick of axis.ticks) {
      const y = yAt(tick);
      nodes.push(svg('line', { class: 'as-ex-grid', x1: x0, x2: x1, y1: y, y2: y }));
      nodes.push(svg('text', { x: x0 - 6, y: y + 4, 'text-anchor': 'end' }, num(tick)));
    }
    report.buckets.forEach((b, i) => nodes.push(svg('text', { x: xAt(i), y: height - bottom + 16 + (narrow && i % 2 ? G.textPx : 0), 'text-anchor': 'middle' }, b.words)));
    // Its label ends at the plot's right edge when the column is narrower than the words.
    if (report.longest) nodes.push(svg('text', { class: 'as-ex-longest-label', x: narrow ? x1 : xLongest, y: height - bottom + 16, 'text-anchor': narrow ? 'end' : 'middle' }, t('exercise.axisLongest', { share: num(Math.round(report.longest.share * 100)) })));
    nodes.push(svg('text', { x: x0 + slot * n / 2, y: height - 6, 'text-anchor': 'middle' }, t('exercise.axisX')));
    nodes.push(svg('text', { x: 4, y: 14, 'text-anchor': 'start' }, t('exercise.axisY')));
    // One line per model, each point with its 90% interval; the longest 10% unjoined (it is no bucket).
    kinds.forEach((k, ki) => {
      const style = G.kinds[k];
      const colour = dark ? style.dark : style.light;
      const nudge = (ki - (kinds.length - 1) / 2) * Math.min(6, slot * 0.08); // intervals side by side, not on top
      const pts = report.buckets.map((b, i) => [xAt(i) + nudge, yAt(b.bleu[k].bleu), b.bleu[k], b.words]);
      if (report.longest) pts.push([xLongest + nudge, yAt(report.longest.bleu[k].bleu), report.longest.bleu[k], 'longest']);
      const g = svg('g', { class: 'as-ex-series', 'data-kind': k, stroke: colour, fill: colour });
      g.append(svg('polyline', { points: pts.slice(0, n).map(([x, y]) => `${x},${y}`).join(' '), fill: 'none', 'stroke-width': G.lineWidth, 'stroke-dasharray': style.dash || null, 'stroke-linejoin': 'round' }));
      for (const [x, y, c, words] of pts) {
        if (c.ci90) g.append(svg('line', { x1: x, x2: x, y1: yAt(c.ci90[0]), y2: yAt(c.ci90[1]), 'stroke-width': G.whiskerWidth }));
        // The number each point stands for (the browser test reads them against the metrics files).
        g.append(marker(style.marker, x, y, G.markerR, { stroke: 'none', class: 'as-ex-point', 'data-words': words, 'data-bleu': c.bleu }));
      }
      nodes.push(g);
    });
    plot.setAttribute('viewBox', `0 0 ${width} ${height}`);
    plot.setAttribute('width', String(width));
    plot.setAttribute('height', String(height));
    plot.setAttribute('font-size', String(G.textPx));
    replaceChildren(plot, nodes);
    replaceChildren(legend, kinds.map((k) => {
      const style = G.kinds[k];
      const colour = dark ? style.dark : style.light;
      const sw = svg('svg', { class: 'as-ex-swatch', viewBox: '0 0 30 12', width: 30, height: 12, 'aria-hidden': 'true' },
        svg('line', { x1: 1, x2: 29, y1: 6, y2: 6, stroke: colour, 'stroke-width': G.lineWidth, 'stroke-dasharray': style.dash || null }),
        marker(style.marker, 15, 6, 4, { fill: colour }));
      return h('span', { dataset: { kind: k } }, sw, ` ${kindName(k)} (${report.models[k].id})`);
    }));
  }

  function render(st) {
    catalog = st.catalog;
    report = exerciseReport(st.catalog);
    element.dataset.state = report ? 'ready' : st.catalog ? 'missing' : 'waiting';
    missing.hidden = !st.catalog || !!report;
    body.hidden = !report;
    if (!report) return;
    const m = t(`exercise.measure.${report.measure}`);
    caption.textContent = t('exercise.caption', { measure: m });
    summary.textContent = t('exercise.summary', {
      models: report.kinds.map((k) => kindName(k)).join(t('exercise.listSep')),
      rows: report.buckets.map((b) => t('exercise.summaryRow', { words: b.words, values: report.kinds.map((k) => `${kindName(k)} ${b1(b.bleu[k].bleu)}`).join(', ') })).join('; '),
    });
    renderSentence();
    renderTable();
    drawSoon();
    renderSide(st);
  }

  function renderSide(st) {
    const plan = sideBySide(report, st.catalog, st.model);
    how.textContent = t('exercise.how', { models: report.kinds.map((k) => `${kindName(k)} (${report.models[k].id})`).join(t('exercise.listSep')) })
      + (plan.missing.length ? ` ${t('exercise.notListed', { ids: plan.missing.join(', ') })}` : '');
    button.disabled = !plan.compare.length;
    const on = sideBySideShown(report, st.catalog, st.model, st.compare);
    button.setAttribute('aria-pressed', String(on));
    element.dataset.side = on ? 'shown' : 'hidden';
  }

  // A new width draws the figure again, in the render scheduler's frame. (Read here, the
  // figure's width costs no layout: the observer reports after the browser's own.)
  const ro = typeof ResizeObserver === 'function' ? new ResizeObserver(() => {
    readWidth();
    if (!report || Math.abs(figureWidth - drawnWidth) < 2) return;
    if (frame) { frame.drop('exercise-width'); frame.add('exercise-draw', draw); } else draw();
  }) : null;
  ro?.observe(figure);

  return {
    element,
    update(st, changed) {
      if (changed.has('catalog') || changed.has('uiLang')) render(st);
      else if (report && (changed.has('compare') || changed.has('model'))) renderSide(st);
    },
    redraw: drawSoon,
    destroy() { ro?.disconnect(); frame?.drop('exercise-draw'); frame?.drop('exercise-width'); },
  };
}
