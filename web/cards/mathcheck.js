// mathcheck.js - the "math check" card: why scaled dot-product attention
// divides its scores by √d. A key dimension d (a slider over the powers of
// two 1 … 1024) and n keys (2 … 50); queries and keys drawn from N(0, 1)
// by a seeded generator (lib/mathcheck.js; the seed is in the link, "New
// draw" picks another); the scores computed by the engine's own dot-product
// kernel in the worker (controllers/mathcheck.js). Four charts over d, raw
// and ÷ √d, each the mean over the draws with a band: the scores' standard
// deviation (the √d law as a reference line), the largest softmax weight,
// the entropy in bits and the largest gradient entry max α(1 − α). The
// current draw's weights as bars, one sentence with the numbers at the
// current d, the loaded dot-product model's d marked on the curves, and the
// numbers as tables (the charts' text alternative).

import { CONFIG } from '../config.js';
import { h, svg, uid } from '../lib/dom.js';
import { fmt } from '../lib/math.js';
import { MATH_POWERS, MATH_STATS, scoreStats, mathRequest } from '../lib/mathcheck.js';
import { attentionName } from '../lib/catalog.js';
import { MATH_CHECK as G } from '../theme.js';
import { t, num } from '../i18n/index.js';

const LOG_MAX = Math.log2(CONFIG.mathDMax);
const KINDS = ['raw', 'scaled'];
// How each kind of line is drawn (theme.js MATH_CHECK; the colours are the stylesheet's, by class).
const STROKE = {
  'as-mc-line-raw': { 'stroke-width': G.lineWidth },
  'as-mc-line-scaled': { 'stroke-width': G.lineWidth, 'stroke-dasharray': G.scaledDash },
  'as-mc-ref': { 'stroke-width': G.refWidth, 'stroke-dasharray': G.refDash },
};

/** Each chart's y axis for n keys: [lo, hi], ticks, its reference line (values over d) and the end its name is at. */
function axisOf(stat, n) {
  if (stat === 'sd') return { lo: 0, hi: Math.sqrt(CONFIG.mathDMax) * 1.06, ticks: [0, 8, 16, 24, 32], ref: (d) => Math.sqrt(d), refAt: 'end' };
  if (stat === 'top') return { lo: 0, hi: 1.04, ticks: [0, 0.5, 1], ref: () => 1 / n, refAt: 'end' };
  if (stat === 'entropy') {
    const max = Math.log2(n);
    return { lo: 0, hi: max * 1.06, ticks: Array.from({ length: Math.floor(max) + 1 }, (_, i) => i), ref: () => max, refAt: 'start' };
  }
  return { lo: 0, hi: 0.25 * 1.06, ticks: [0, 0.1, 0.2], ref: () => 0.25, refAt: 'start' };
}

/** A number as the card prints it: fewer decimals for a large standard deviation. */
const val = (stat, x) => fmt(x, stat === 'sd' && x >= 10 ? 1 : 2);
/** √d as a factor: 16, 1.41, 22.6. */
const factor = (x) => num(Number(x.toPrecision(3)));

export function mount(store, { headingId, sliderHeadingId = null }) {
  const dId = uid('mcd');
  const nId = uid('mcn');
  const sentenceId = uid('mcs');
  const dInput = h('input', { type: 'range', id: dId, class: 'as-range as-mc-d', min: '0', max: String(LOG_MAX), step: '1', value: '0', 'aria-describedby': sentenceId });
  const dOut = h('output', { for: dId, class: 'as-mc-value' });
  const nInput = h('input', { type: 'range', id: nId, class: 'as-range as-mc-n', min: String(CONFIG.mathKeysMin), max: String(CONFIG.mathKeysMax), step: '1', value: '2' });
  const nOut = h('output', { for: nId, class: 'as-mc-value' });
  const drawBtn = h('button', { type: 'button', class: 'as-btn as-btn-small as-mc-draw' }, t('math.newDraw'));
  const seedText = h('span', { class: 'as-small as-muted as-mc-seed' });
  const sentence = h('p', { id: sentenceId, class: 'as-mc-sentence', 'aria-live': 'polite' });
  // The model's line, and for a dot-product model a jump to the √d slider card that moves its divisor.
  const modelText = h('span', null);
  const sliderLink = h('a', { class: 'as-mc-slider-link', href: `#${sliderHeadingId}`, hidden: true });
  const modelLine = h('p', { class: 'as-small as-mc-model' }, modelText, ' ', sliderLink);
  // The link moves the view and the focus to the slider itself. Its href names the slider card's heading, but the
  // page's address holds its state, so the click is handled here and the hash is left alone.
  sliderLink.addEventListener('click', (ev) => {
    ev.preventDefault();
    const card = element.getRootNode().getElementById?.(sliderHeadingId)?.closest('.as-card');
    const input = card?.querySelector('input[type="range"]');
    if (!input) return;
    card.scrollIntoView({ block: 'start', behavior: 'auto' });
    input.focus({ preventScroll: true });
  });
  const status = h('p', { class: 'as-small as-mc-status', role: 'status' });
  const swatch = (cls) => svg('svg', { class: 'as-mc-swatch', viewBox: '0 0 28 10', width: 28, height: 10, 'aria-hidden': 'true' }, svg('line', { class: cls, x1: 1, y1: 5, x2: 27, y2: 5, ...STROKE[cls] }));
  const bandSwatch = svg('svg', { class: 'as-mc-swatch', viewBox: '0 0 28 10', width: 28, height: 10, 'aria-hidden': 'true' }, svg('rect', { class: 'as-mc-band-raw', x: 1, y: 1, width: 26, height: 8, 'fill-opacity': G.bandOpacity }));
  const legend = h('p', { class: 'as-small as-mc-legend' },
    h('span', null, swatch('as-mc-line-raw'), ` ${t('math.legend.raw')}`),
    h('span', null, swatch('as-mc-line-scaled'), ` ${t('math.legend.scaled')}`),
    h('span', null, bandSwatch, ` ${t('math.legend.band', { band: num(Math.round(100 * (CONFIG.mathBand[1] - CONFIG.mathBand[0]))), draws: num(CONFIG.mathDraws) })}`),
    h('span', null, swatch('as-mc-ref'), ` ${t('math.legend.ref')}`),
    h('span', null, t('math.axis', { max: num(CONFIG.mathDMax) })));

  // The four charts: a figure each, its caption the title, its summary what a screen reader hears of the picture.
  const charts = MATH_STATS.map((stat) => {
    const capId = uid('mcc');
    const sumId = uid('mcx');
    const plot = svg('svg', { class: 'as-mc-plot', viewBox: `0 0 ${G.width} ${G.height}`, 'font-size': G.fontPx, role: 'img', 'aria-labelledby': `${capId} ${sumId}`, preserveAspectRatio: 'xMidYMid meet' });
    const summary = h('p', { id: sumId, class: 'as-visually-hidden' });
    const element = h('figure', { class: 'as-mc-chart', dataset: { stat } }, h('figcaption', { id: capId, class: 'as-small as-strong' }, t(`math.stat.${stat}`)), plot, summary);
    return { stat, element, plot, summary };
  });

  const barsHead = h('h3', { class: 'as-mc-bars-head' });
  const barRows = KINDS.map((kind) => {
    const caption = h('p', { class: 'as-small as-mc-bar-caption', dataset: { kind } });
    const plot = svg('svg', { class: 'as-mc-bar-plot', role: 'img', preserveAspectRatio: 'none', 'data-kind': kind });
    return { kind, caption, plot, element: h('div', { class: 'as-mc-bar-row' }, caption, plot) };
  });

  const meansTable = h('table', { class: 'as-table as-mc-means' });
  const drawTable = h('table', { class: 'as-table as-mc-draw-table' });
  // Until the first curves come, the card has its controls and its status line only.
  const chartsBox = h('div', { class: 'as-mc-charts', hidden: true }, charts.map((c) => c.element));
  const barsBox = h('div', { class: 'as-mc-bars', hidden: true }, barsHead, barRows.map((r) => r.element));
  const region = (table, label) => h('div', { class: 'as-table-wrap', tabindex: '0', role: 'region', 'aria-label': label }, table);
  const element = h('section', { class: 'as-card as-math-card', 'aria-labelledby': headingId, dataset: { state: 'waiting' } },
    h('h2', { id: headingId }, t('math.heading')),
    h('p', { class: 'as-small' }, t('math.intro', { draws: num(CONFIG.mathDraws), band: num(Math.round(100 * (CONFIG.mathBand[1] - CONFIG.mathBand[0]))) })),
    h('div', { class: 'as-mc-controls' },
      h('div', { class: 'as-mc-control' }, h('div', { class: 'as-mc-control-head' }, h('label', { for: dId }, t('math.dLabel')), dOut), dInput),
      h('div', { class: 'as-mc-control' }, h('div', { class: 'as-mc-control-head' }, h('label', { for: nId }, t('math.keysLabel')), nOut), nInput),
      h('div', { class: 'as-mc-control as-mc-draw-box' }, drawBtn, seedText)),
    status, sentence, modelLine, legend,
    chartsBox, barsBox,
    h('details', { class: 'as-mc-details', hidden: true }, h('summary', null, t('math.tableSummary')), region(meansTable, t('math.tableSummary'))),
    h('details', { class: 'as-mc-details', hidden: true }, h('summary', null, t('math.drawSummary')), region(drawTable, t('math.drawSummary'))));
  const shown = [chartsBox, barsBox, ...element.querySelectorAll('.as-mc-details')];

  const dOf = (st) => st.mathD ?? CONFIG.mathDefaultD;
  const showD = (d) => {
    dOut.textContent = t('math.dValue', { d: num(d) });
    dInput.setAttribute('aria-valuetext', dOut.textContent);
  };
  const showKeys = (n) => {
    nOut.textContent = num(n);
    nInput.setAttribute('aria-valuetext', t('math.keysValue', { n }));
  };
  dInput.addEventListener('input', () => { const d = 2 ** Number(dInput.value); showD(d); store.set({ mathD: d }); });
  nInput.addEventListener('input', () => { const n = Number(nInput.value); showKeys(n); store.set({ mathKeys: n }); });
  // A new seed, at random: the link carries it, so the draw can be shown again.
  drawBtn.addEventListener('click', () => {
    const seed = Math.floor(Math.random() * (CONFIG.mathSeedMax + 1));
    store.set({ mathSeed: seed === (store.get().mathSeed ?? CONFIG.mathDefaultSeed) ? (seed + 1) % (CONFIG.mathSeedMax + 1) : seed });
  });

  /** The loaded model's key dimension where it scores with dot products (dot, scaled dot), else null. */
  const modelD = (info) => (info && (info.attention === 'dot' || info.attention === 'scaled_dot') && info.keyDim > 0 ? info.keyDim : null);

  function render(st) {
    const d = dOf(st);
    const req = mathRequest(st);
    const r = st.mathResult;
    const fresh = r && r.key === req.key;
    element.dataset.state = st.mathError && !st.mathBusy ? 'error' : fresh && !st.mathBusy ? 'ready' : r || st.mathBusy ? 'busy' : 'waiting';
    dInput.value = String(Math.log2(d));
    showD(d);
    nInput.value = String(req.keys);
    showKeys(req.keys);
    seedText.textContent = t('math.seed', { seed: String(req.seed) });
    status.textContent = st.mathError && !st.mathBusy ? st.mathError
      : fresh ? '' : t(st.build ? 'math.busy' : 'math.waiting', { draws: num(req.draws), n: num(req.keys), seed: String(req.seed) });
    status.dataset.error = String(!!st.mathError && !st.mathBusy);
    describeModel(st);
    for (const el of shown) el.hidden = !r;
    // While newer curves are computed the old ones stay, marked busy for assistive technology.
    chartsBox.setAttribute('aria-busy', String(!fresh));
    if (!r) {
      sentence.textContent = '';
      return;
    }
    // What the card shows is the result's (its seed and n); a newer request is said in the status line.
    Object.assign(element.dataset, { seed: String(r.seed), keys: String(r.keys), d: String(d) });
    const di = r.dims.indexOf(d);
    const at = (kind, stat) => r[kind][stat].mean[di];
    const hMax = fmt(Math.log2(r.keys), 2);
    sentence.textContent = d === 1
      ? t('math.sentenceOne', { sd: val('sd', at('raw', 'sd')), top: val('top', at('raw', 'top')), h: val('entropy', at('raw', 'entropy')), hMax, g: val('grad', at('raw', 'grad')), draws: num(r.draws) })
      : t('math.sentence', {
        d: num(d), ratio: factor(at('raw', 'sd') / at('scaled', 'sd')), draws: num(r.draws),
        sdRaw: val('sd', at('raw', 'sd')), sdScaled: val('sd', at('scaled', 'sd')),
        topRaw: val('top', at('raw', 'top')), topScaled: val('top', at('scaled', 'top')),
        hRaw: val('entropy', at('raw', 'entropy')), hScaled: val('entropy', at('scaled', 'entropy')), hMax,
        gRaw: val('grad', at('raw', 'grad')), gScaled: val('grad', at('scaled', 'grad')),
      });
    const md = modelD(st.info);
    for (const c of charts) drawChart(c, r, d, md);
    drawBars(r, d);
    drawMeans(r, d);
    drawDraw(r, d);
  }

  function describeModel(st) {
    const info = st.info;
    sliderLink.hidden = true;
    if (!info) { modelText.textContent = ''; return; }
    const name = st.local?.name ?? st.catalog?.models.find((m) => m.id === st.model)?.label ?? st.model ?? '';
    const md = modelD(info);
    if (md === null) modelText.textContent = t('math.model.other', { name, kind: attentionName(info.attention) });
    else if (md > CONFIG.mathDMax) modelText.textContent = t('math.model.far', { name, d: num(md), max: num(CONFIG.mathDMax) });
    else {
      const kind = info.attention === 'scaled_dot' ? 'scaled' : 'dot';
      const params = { name, d: num(md), sqrt: fmt(Math.sqrt(md), 2) };
      modelText.textContent = t(`math.model.${kind}`, params);
      sliderLink.textContent = t(`math.slider.${kind}`, params);
      sliderLink.hidden = !sliderHeadingId; // no slider card in this widget: nothing to jump to
    }
    modelLine.dataset.d = md === null ? '' : String(md);
  }

  function drawChart(c, r, d, md) {
    const ax = axisOf(c.stat, r.keys);
    const x = (dim) => G.left + (Math.log2(dim) / LOG_MAX) * (G.width - G.left - G.right);
    const y = (v) => G.top + (1 - (Math.min(ax.hi, Math.max(ax.lo, v)) - ax.lo) / (ax.hi - ax.lo)) * (G.height - G.top - G.bottom);
    const pts = (values) => r.dims.map((dim, i) => `${x(dim).toFixed(1)},${y(values[i]).toFixed(1)}`);
    const parts = [];
    // Grid and axes: a line at each power of two (labels at every other one), the y ticks.
    for (const p of MATH_POWERS) {
      parts.push(svg('line', { class: 'as-mc-grid', x1: x(p), x2: x(p), y1: G.top, y2: G.height - G.bottom }));
      if (Math.log2(p) % 2 === 0) parts.push(svg('text', { x: x(p), y: G.height - G.bottom + 14, 'text-anchor': p === CONFIG.mathDMax ? 'end' : 'middle' }, num(p)));
    }
    for (const v of ax.ticks) {
      parts.push(svg('line', { class: 'as-mc-grid', x1: G.left, x2: G.width - G.right, y1: y(v), y2: y(v) }));
      parts.push(svg('text', { x: G.left - 5, y: y(v) + 4, 'text-anchor': 'end' }, num(v)));
    }
    parts.push(svg('text', { x: G.width - G.right, y: G.height - 2, 'text-anchor': 'end', class: 'as-mc-axis' }, 'd'));
    // The reference line (√d, 1/n, log₂ n, ¼), dotted, named above one end (where the curves leave room).
    parts.push(svg('polyline', { class: 'as-mc-ref', ...STROKE['as-mc-ref'], points: r.dims.map((dim) => `${x(dim).toFixed(1)},${y(ax.ref(dim)).toFixed(1)}`).join(' ') }));
    const refD = ax.refAt === 'end' ? CONFIG.mathDMax : 1;
    parts.push(svg('text', { class: 'as-mc-ref-label', x: ax.refAt === 'end' ? G.width - G.right : G.left + 3, y: y(ax.ref(refD)) - 4, 'text-anchor': ax.refAt }, t(`math.ref.${c.stat}`)));
    for (const kind of KINDS) {
      const s = r[kind][c.stat];
      parts.push(svg('polygon', { class: `as-mc-band-${kind}`, 'fill-opacity': G.bandOpacity, points: [...pts(s.hi), ...pts(s.lo).reverse()].join(' ') }));
    }
    for (const kind of KINDS) parts.push(svg('polyline', { class: `as-mc-line-${kind}`, ...STROKE[`as-mc-line-${kind}`], points: pts(r[kind][c.stat].mean).join(' ') }));
    // The model's d, dashed, named above the plot, and the current d, solid, with the curves' values there.
    if (md !== null && md <= CONFIG.mathDMax) {
      const right = x(md) > G.width / 2;
      parts.push(svg('line', { class: 'as-mc-model-line', x1: x(md), x2: x(md), y1: G.top - 14, y2: G.height - G.bottom }));
      parts.push(svg('text', { class: 'as-mc-model-label', x: x(md) + (right ? -4 : 4), y: G.top - 14, 'text-anchor': right ? 'end' : 'start' }, t('math.modelMark', { d: num(md) })));
    }
    const di = r.dims.indexOf(d);
    parts.push(svg('line', { class: 'as-mc-now', x1: x(d), x2: x(d), y1: G.top, y2: G.height - G.bottom }));
    for (const kind of KINDS) parts.push(svg('circle', { class: `as-mc-dot-${kind}`, cx: x(d), cy: y(r[kind][c.stat].mean[di]), r: G.dotR }));
    c.plot.replaceChildren(...parts);
    const last = r.dims.length - 1;
    const m = (kind, i) => val(c.stat, r[kind][c.stat].mean[i]);
    c.summary.textContent = t('math.summary', {
      max: num(CONFIG.mathDMax), d: num(d),
      rawFirst: m('raw', 0), rawNow: m('raw', di), rawLast: m('raw', last),
      scaledFirst: m('scaled', 0), scaledNow: m('scaled', di), scaledLast: m('scaled', last),
    });
  }

  function drawBars(r, d) {
    const e = r.current[r.dims.indexOf(d)];
    barsHead.textContent = t('math.barsHead', { d: num(d), seed: String(r.seed) });
    const step = G.barW + G.barGap;
    for (const row of barRows) {
      const s = scoreStats(e, row.kind === 'raw' ? 1 : Math.sqrt(d));
      const j = s.weights.indexOf(s.top);
      row.caption.textContent = t(`math.bars.${row.kind}`, { top: fmt(s.top, 2), j: num(j + 1) });
      row.plot.setAttribute('viewBox', `0 0 ${e.length * step} ${G.barH}`);
      row.plot.setAttribute('aria-label', `${row.caption.textContent}. ${t('math.barsAll', { list: s.weights.map((w) => fmt(w, 2)).join(' · ') })}`);
      row.plot.replaceChildren(svg('line', { class: 'as-mc-grid', x1: 0, x2: e.length * step, y1: G.barH - 0.5, y2: G.barH - 0.5 }),
        ...s.weights.map((w, i) => svg('rect', { class: `as-mc-bar-${row.kind}`, x: i * step + G.barGap / 2, width: G.barW, y: G.barH * (1 - w), height: Math.max(0.5, G.barH * w) })));
    }
  }

  function drawMeans(r, d) {
    const band = num(Math.round(100 * (r.band[1] - r.band[0])));
    const head1 = h('tr', null, h('th', { scope: 'col', rowspan: '2' }, t('math.colD')),
      MATH_STATS.map((s) => h('th', { scope: 'colgroup', colspan: '2' }, t(`math.short.${s}`))));
    const head2 = h('tr', null, MATH_STATS.map(() => KINDS.map((k) => h('th', { scope: 'col' }, t(`math.col.${k}`)))));
    const body = h('tbody', null, MATH_POWERS.map((p) => {
      const i = r.dims.indexOf(p);
      return h('tr', { dataset: { d: String(p) }, 'aria-current': p === d ? 'true' : null },
        h('th', { scope: 'row' }, num(p)),
        MATH_STATS.map((s) => KINDS.map((k) => h('td', { dataset: { f: `${k}-${s}` } },
          h('span', { class: 'as-mc-mean' }, fmt(r[k][s].mean[i], 3)),
          h('span', { class: 'as-mc-band' }, `${fmt(r[k][s].lo[i], 3)} – ${fmt(r[k][s].hi[i], 3)}`)))));
    }));
    meansTable.replaceChildren(h('caption', null, t('math.tableCaption', { draws: num(r.draws), band, seed: String(r.seed), n: num(r.keys) })),
      h('thead', null, head1, head2), body);
  }

  function drawDraw(r, d) {
    const e = r.current[r.dims.indexOf(d)];
    const raw = scoreStats(e, 1);
    const scaled = scoreStats(e, Math.sqrt(d));
    drawTable.replaceChildren(
      h('caption', null, t('math.drawCaption', { d: num(d), seed: String(r.seed), draws: num(r.draws) })),
      h('thead', null, h('tr', null, ['colKey', 'colScore', 'colScaled', 'colAlphaRaw', 'colAlphaScaled'].map((k) => h('th', { scope: 'col' }, t(`math.${k}`))))),
      h('tbody', null, Array.from(e, (v, j) => h('tr', null,
        h('th', { scope: 'row' }, num(j + 1)),
        h('td', { dataset: { f: 'score' } }, fmt(v, 3)),
        h('td', { dataset: { f: 'scaled' } }, fmt(v / Math.sqrt(d), 3)),
        h('td', { dataset: { f: 'alpha-raw' } }, fmt(raw.weights[j], 4)),
        h('td', { dataset: { f: 'alpha-scaled' } }, fmt(scaled.weights[j], 4))))));
  }

  const KEYS = ['mathResult', 'mathBusy', 'mathError', 'mathD', 'mathKeys', 'mathSeed', 'info', 'build', 'catalog', 'local'];
  return {
    element,
    update(st, changed) {
      if (KEYS.some((k) => changed.has(k))) render(st);
    },
  };
}
