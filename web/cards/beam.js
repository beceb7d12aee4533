// beam.js - the beam search card. Greedy decoding (the main heatmap) keeps
// one translation; beam search keeps the k most likely partial ones. Here:
// a width control (k, 1-8) and a length penalty λ (score = log p / T^λ);
// the k finished hypotheses as a prefix tree in SVG (lib/beam.js: shared
// words are shared boxes, #1 runs along the top, each leaf has its log p and
// score); the same hypotheses as a radio group, best first (Tab reaches it,
// the arrows pick); and the picked one's translation and heatmap, with what
// it does differently from #1: where it parts, and where it then looks.
// The search itself is controllers/beam.js (store: beamResult, beamBusy,
// beamError); width and λ are the store's `beam` and `beamLp` (URL beam=, lp=).

import { CONFIG } from '../config.js';
import { h, svg, uid } from '../lib/dom.js';
import { figureMatrix } from '../lib/figure.js';
import { rowOfStep } from '../lib/words.js';
import { fmt } from '../lib/math.js';
import {
  buildBeamTree, layoutBeamTree, differenceFromBest, differenceAtLevel, greedyScore, sameTokens,
  DEFAULT_BEAM_WIDTH, BEAM_MAX_WIDTH, MAX_LENGTH_PENALTY, DEFAULT_LENGTH_PENALTY,
} from '../lib/beam.js';
import { noticePatch } from '../state.js';
import { BEAM_TREE } from '../theme.js';
import { t, tParts, num } from '../i18n/index.js';
import * as heatmapView from '../views/heatmap.js';

// The picked hypothesis's heatmap: the comparison's settings (one absolute colour scale, smaller cells).
const HEAT_OPTIONS = { colour: 'absolute', zoom: 1, labelPx: CONFIG.labelPx, cellMax: CONFIG.compareCellMax, reserve: CONFIG.heatBoxReservePx };
const LP_STEP = 0.1;
// Below this total variation, two rows of α are "almost the same" (the card says so instead of naming a step).
const SAME_LOOK = 0.05;
/** λ as the card prints it: one decimal (1.0, 0.6), two where a link gave two (1.25). */
const lpText = (x) => fmt(x, Math.abs(Math.round(x * 10) - x * 10) > 1e-9 ? 2 : 1);

/** ctx: { headingId, frame (the widget's render scheduler), memo (what survives a rebuild for another UI language: { pick }) } */
export function mount(store, { headingId, frame = null, memo = {} }) {
  const widthId = uid('beamk');
  const lpId = uid('beamlp');
  const width = h('input', { type: 'range', id: widthId, class: 'as-range', min: '1', max: String(BEAM_MAX_WIDTH), step: '1', value: String(DEFAULT_BEAM_WIDTH) });
  const widthOut = h('output', { for: widthId, class: 'as-big-number' }, num(DEFAULT_BEAM_WIDTH));
  const lp = h('input', { type: 'range', id: lpId, class: 'as-range', min: '0', max: String(MAX_LENGTH_PENALTY), step: String(LP_STEP), value: String(DEFAULT_LENGTH_PENALTY) });
  const lpOut = h('output', { for: lpId, class: 'as-big-number' }, fmt(DEFAULT_LENGTH_PENALTY, 1));
  const formula = h('span', { class: 'as-formula' }, t('beam.formulaLhs'), ' = log p(y | x) / T', h('sup', null, 'λ'));
  const widthNote = h('p', { class: 'as-small as-beam-greedy' });
  const progress = h('progress', { class: 'as-beam-progress', hidden: true });
  const status = h('p', { class: 'as-small as-beam-status', 'aria-live': 'polite' });
  const error = h('p', { class: 'as-note as-beam-error', role: 'alert', hidden: true });
  const caption = h('p', { class: 'as-small as-muted as-beam-for' });
  const treeBox = h('div', { class: 'as-beam-tree', tabindex: '0', role: 'group', 'aria-label': t('beam.treeBox') });
  const list = h('div', { class: 'as-beam-list' });
  const listBox = h('fieldset', { class: 'as-beam-pick' }, h('legend', { class: 'as-small' }, t('beam.listLegend')), list);
  const pickedHead = h('h3', { class: 'as-beam-picked-head' });
  const pickedText = h('p', { class: 'as-compare-translation as-beam-translation' });
  const parting = h('p', { class: 'as-small as-beam-parting' });
  const looking = h('p', { class: 'as-small as-beam-looking' });
  const heatBox = h('div', { class: 'as-heat-box as-beam-heat' });
  const picked = h('div', { class: 'as-beam-picked', 'aria-live': 'polite' }, pickedHead, pickedText, parting, looking);
  const body = h('div', { class: 'as-beam-body', hidden: true }, treeBox, h('p', { class: 'as-small as-muted as-beam-tree-note' }, t('beam.treeNote')), h('div', { class: 'as-beam-panes' }, listBox, h('div', { class: 'as-beam-detail' }, picked, heatBox)));

  const element = h('section', { class: 'as-card as-beam-card', 'aria-labelledby': headingId },
    h('h2', { id: headingId }, t('beam.heading')),
    h('p', { class: 'as-small' }, t('beam.intro')),
    h('div', { class: 'as-beam-controls' },
      h('div', { class: 'as-beam-control' },
        h('div', { class: 'as-slider-head' }, h('label', { for: widthId }, t('beam.widthLabel')), widthOut), width),
      h('div', { class: 'as-beam-control' },
        h('div', { class: 'as-slider-head' }, h('label', { for: lpId }, t('beam.lpLabel')), lpOut), lp)),
    h('p', { class: 'as-small as-beam-formula' }, ...tParts('beam.formula', { formula })),
    widthNote,
    h('div', { class: 'as-row' }, progress, status),
    error, caption, body);

  // The heatmap is made with the first result (until then the page has one heatmap, the main one).
  let heat = null;
  const heatmap = () => {
    if (!heat) { heat = heatmapView.render(heatBox, { frame }); heat.setOptions(HEAT_OPTIONS); }
    return heat;
  };

  let result = null; // the beamResult shown
  let tree = null;   // buildBeamTree(result.hypotheses)
  let shapes = null; // { nodes, edges, leaves, radios }: what the selection restyles
  let pick = 0;      // rank of the picked hypothesis
  const measureCtx = document.createElement('canvas').getContext('2d');
  // Bold: the picked hypothesis's boxes and scores are bold, and must fit the same boxes.
  measureCtx.font = `bold ${BEAM_TREE.fontPx}px ${CONFIG.labelFamily}`;
  const measure = (s) => measureCtx.measureText(s).width;

  // ---- controls: they write the store; the controller searches ----
  const widthOf = (st) => st.beam ?? DEFAULT_BEAM_WIDTH;
  const lpOf = (st) => st.beamLp ?? DEFAULT_LENGTH_PENALTY;
  width.addEventListener('input', () => {
    const k = Number(width.value);
    store.set({ beam: k, ...noticePatch(store.get(), 'beam', null) });
  });
  lp.addEventListener('input', () => {
    const x = Math.round(Number(lp.value) / LP_STEP) * LP_STEP;
    store.set({ beamLp: Math.round(x * 100) / 100, ...noticePatch(store.get(), 'beamLp', null) });
  });
  function showControls(st) {
    const k = widthOf(st);
    const x = lpOf(st);
    if (Number(width.value) !== k) width.value = String(k);
    if (Math.abs(Number(lp.value) - x) > 1e-9) lp.value = String(x);
    widthOut.textContent = num(k);
    lpOut.textContent = lpText(x);
    width.setAttribute('aria-valuetext', t('beam.widthValue', { n: k }));
    lp.setAttribute('aria-valuetext', t('beam.lpValue', { lp: lpOut.textContent }));
  }

  // ---- the search's progress and errors ----
  function showStatus(st) {
    const busy = st.beamBusy;
    progress.hidden = !busy;
    status.textContent = busy ? t('beam.searching', { k: num(busy.width) })
      : result ? t('beam.found', { n: result.hypotheses.length }) : '';
    // Seen while it searches; afterwards only heard (the caption under it says what was found).
    status.classList.toggle('as-visually-hidden', !busy);
    error.hidden = !st.beamError;
    error.textContent = st.beamError ?? '';
    element.dataset.busy = String(!!busy);
  }

  // ---- the tree ----
  function drawTree() {
    const hyps = result.hypotheses;
    const leafLabels = hyps.map((hyp, r) => t('beam.leaf', { rank: num(r + 1), lp: fmt(hyp.logProb, 2), score: fmt(hyp.score, 3) }));
    const L = layoutBeamTree(tree, measure, leafLabels, BEAM_TREE);
    const edges = L.edges.map((e) => {
      const mx = (e.x1 + e.x2) / 2;
      return svg('path', {
        class: 'as-beam-edge', d: `M${e.x1} ${e.y1} C${mx} ${e.y1} ${mx} ${e.y2} ${e.x2} ${e.y2}`,
        'stroke-width': (BEAM_TREE.edgeMin + BEAM_TREE.edgeGain * (Number.isFinite(e.p) ? e.p : 0)).toFixed(2),
      });
    });
    const nodes = L.nodes.map((n) => svg('g', { class: `as-beam-node${n.step < 0 ? ' as-beam-root' : ''}`, 'data-node': n.id },
      n.step >= 0 ? svg('title', null, t('beam.nodeTitle', { token: n.label, step: num(n.step + 1), p: fmt(n.p, 3) })) : null,
      svg('rect', { x: n.x, y: n.y - n.h / 2, width: n.w, height: n.h, rx: 5 }),
      svg('text', { x: n.x + BEAM_TREE.padX, y: n.y, 'dominant-baseline': 'central' }, n.continues ? `·${n.label}` : n.label)));
    // The steps' numbers above the columns (the parting step of "It parts from #1 at step 3").
    const heads = L.columns.map((c) => svg('text', { class: 'as-beam-step', x: c.x + c.w / 2, y: BEAM_TREE.margin + BEAM_TREE.headH / 2, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'font-size': BEAM_TREE.headPx },
      c.step < 0 ? t('beam.stepAxis') : num(c.step + 1)));
    const leaves = L.leaves.map((l) => svg('text', { class: 'as-beam-leaf', 'data-rank': l.ranks[0], x: l.x, y: l.y, 'dominant-baseline': 'central' }, l.label));
    const root = svg('svg', {
      class: 'as-beam-svg', width: L.width, height: L.height, viewBox: `0 0 ${L.width} ${L.height}`,
      'font-size': BEAM_TREE.fontPx, 'font-family': CONFIG.labelFamily, role: 'img',
      'aria-label': tree.shared > 0
        ? t('beam.treeLabel', { n: hyps.length, steps: num(tree.steps), shared: num(tree.shared) })
        : t('beam.treeLabelNoShare', { n: hyps.length, steps: num(tree.steps) }),
    }, svg('g', null, ...heads), svg('g', null, ...edges), svg('g', null, ...nodes), svg('g', null, ...leaves));
    treeBox.replaceChildren(root);
    shapes = { edges: L.edges.map((e, i) => [e, edges[i]]), nodes: L.nodes.map((n, i) => [n, nodes[i]]), leaves: L.leaves.map((l, i) => [l, leaves[i]]), columns: L.columns };
  }
  treeBox.addEventListener('click', (e) => {
    const leaf = e.target.closest?.('[data-rank]');
    if (leaf) { select(Number(leaf.dataset.rank)); return; }
    const node = e.target.closest?.('[data-node]');
    if (!node || !tree) return;
    // A box: the best hypothesis through it (the picked one, if it passes there).
    const ranks = tree.nodes[Number(node.dataset.node)].ranks;
    if (!ranks.includes(pick)) select(ranks[0]);
  });

  // ---- the hypotheses as a radio group ----
  const groupName = uid('beampick');
  function drawList(st) {
    const lang = st.catalog?.models.find((m) => m.id === st.model)?.target ?? st.info?.targetLanguage ?? null;
    const radios = result.hypotheses.map((hyp, r) => {
      const input = h('input', { type: 'radio', name: groupName, value: String(r), checked: r === pick });
      input.addEventListener('change', () => { if (input.checked) select(r); });
      // Enter picks too (a radio group's arrows already do).
      input.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); select(r); } });
      const label = h('label', { class: 'as-beam-option', dataset: { rank: String(r) } }, input,
        h('span', { class: 'as-beam-option-text' },
          h('span', { class: 'as-strong' }, `#${num(r + 1)} `),
          h('span', { lang: lang || null }, hyp.translation || t('input.emptyTranslation')),
          h('span', { class: 'as-small as-muted as-beam-scores' }, t('beam.scores', { lp: fmt(hyp.logProb, 3), score: fmt(hyp.score, 3), T: num(hyp.T) }))));
      return label;
    });
    list.replaceChildren(...radios);
    if (lang) pickedText.lang = lang; else pickedText.removeAttribute('lang');
  }

  // ---- the picked hypothesis ----
  function select(rank) {
    if (!result || rank < 0 || rank >= result.hypotheses.length) return;
    pick = rank;
    memo.pick = result.hypotheses[rank].target.map((x) => x.id).join(' ');
    showPick(store.get());
  }
  function showPick(st) {
    const hyps = result.hypotheses;
    const hyp = hyps[pick];
    element.dataset.pick = String(pick);
    for (const [n, el] of shapes.nodes) el.classList.toggle('as-on', n.ranks.includes(pick));
    for (const [e, el] of shapes.edges) el.classList.toggle('as-on', e.ranks.includes(pick));
    for (const [l, el] of shapes.leaves) el.classList.toggle('as-on', l.ranks.includes(pick));
    for (const input of list.querySelectorAll('input')) input.checked = Number(input.value) === pick;
    pickedHead.textContent = t('beam.picked', { rank: num(pick + 1) });
    pickedText.textContent = hyp.translation || t('input.emptyTranslation');
    const diff = pick === 0 ? null : differenceFromBest(hyp, hyps[0]);
    // A tree wider than its box (a phone): keep in view where the picked one parts from #1 (for #1: the first branch).
    showColumn(pick === 0 || !diff ? tree.shared : diff.step);
    // The sentences name what the heatmap shows: words at word level, pieces with "Show subword pieces".
    const m = st.info ? figureMatrix(hyp, st.info, st.pieces) : null;
    const lv = diff && m ? differenceAtLevel(diff, m, figureMatrix(hyps[0], st.info, st.pieces)) : null;
    parting.textContent = pick === 0 ? t(hyps.length > 1 ? 'beam.isBest' : 'beam.only')
      : lv ? t('beam.parts', { step: num(lv.step + 1), wrote: lv.wrote, bestWrote: lv.bestWrote }) : t('beam.sameAsBest');
    const most = diff?.most;
    looking.textContent = !hyp.alpha ? t('beam.noAttention')
      : !most || !lv?.most ? ''
        : most.tv < SAME_LOOK ? t('beam.afterSame', { tv: fmt(most.tv, 2) })
          : t('beam.after', {
            step: num(lv.most.step + 1), col: lv.most.col, a: fmt(lv.most.a), bestCol: lv.most.bestCol, bestA: fmt(lv.most.bestA),
            tv: fmt(most.tv, 2), mean: fmt(diff.meanTv, 2),
          });
    looking.hidden = !looking.textContent;
    if (m?.alpha) {
      heatmap().update(m);
      // Mark the row where its attention differs most from #1's.
      heatmap().setMarkedRow(most && most.tv >= SAME_LOOK ? rowOfStep(m, most.step) : -1);
    } else heatmap().update({ message: t('beam.noAttentionMap') });
  }

  /**
   * Scroll the tree's box so that step `step`'s column (and the one before it)
   * shows. The box's width and scroll are read in the next frame's measure
   * phase (the tree was just written), and the box scrolled in that frame.
   */
  function showColumn(step) {
    const columns = shapes.columns;
    const scrollTo = () => {
      const col = columns[Math.min(step + 1, columns.length - 1)];
      const view = treeBox.clientWidth;
      if (!col || !view) return null;
      const from = columns[Math.max(0, step)].x;
      const left = treeBox.scrollLeft;
      return from < left || col.x + col.w > left + view ? Math.max(0, from - view / 4) : null;
    };
    if (!frame) { const x = scrollTo(); if (x != null) treeBox.scrollLeft = x; return; }
    frame.measure('beam-column', () => {
      if (shapes?.columns !== columns) return; // another tree since
      const x = scrollTo();
      if (x != null) frame.add('beam-column', () => { treeBox.scrollLeft = x; });
    });
  }

  // What width 1 is, and how the greedy translation of the same text (the
  // worker's, beside the search: the main heatmap is the beam's #1 unless
  // greedy is chosen) fares in this beam.
  function showGreedy(st) {
    const k = result?.beamWidth ?? widthOf(st);
    const greedy = result?.greedy;
    let text = k === 1 ? t('beam.greedy') : '';
    if (greedy && k === 1) {
      text += sameTokens(result.hypotheses[0], greedy) ? t('beam.greedySame', { text: greedy.translation }) : t('beam.greedyDiffers', { text: greedy.translation });
    } else if (greedy) {
      const rank = result.hypotheses.findIndex((hyp) => sameTokens(hyp, greedy));
      const g = greedyScore(greedy, result.lengthPenalty);
      if (rank === 0) text = t('beam.greedyIsBest');
      else if (rank > 0) text = t('beam.greedyRank', { rank: num(rank + 1), best: fmt(result.hypotheses[0].score, 3), greedy: fmt(result.hypotheses[rank].score, 3) });
      else if (g) text = t('beam.greedyOut', { n: result.hypotheses.length, greedy: fmt(g.score, 3) });
    }
    widthNote.textContent = text;
    widthNote.hidden = !text;
  }

  function draw() {
    const st = store.get();
    showGreedy(st);
    if (!result) { body.hidden = true; return; }
    body.hidden = false;
    caption.textContent = t('beam.for', { text: result.text, k: num(result.beamWidth), lp: lpText(result.lengthPenalty), n: result.hypotheses.length });
    element.dataset.width = String(result.beamWidth);
    element.dataset.count = String(result.hypotheses.length);
    drawTree();
    drawList(st);
    showPick(st);
  }
  const redraw = () => (frame ? frame.add('beam', draw) : draw());

  function takeResult(next) {
    result = next?.hypotheses?.length ? next : null;
    tree = result ? buildBeamTree(result.hypotheses) : null;
    // Keep the hypothesis the reader picked when the new search has it too; else #1.
    const keep = result && memo.pick != null ? result.hypotheses.findIndex((hyp) => hyp.target.map((x) => x.id).join(' ') === memo.pick) : -1;
    pick = Math.max(0, keep);
  }

  return {
    element,
    update(st, changed) {
      if (changed.has('beam') || changed.has('beamLp')) showControls(st);
      if (changed.has('beamResult')) takeResult(st.beamResult);
      if (changed.has('beamBusy') || changed.has('beamError') || changed.has('beamResult')) showStatus(st);
      if (changed.has('beamResult') || changed.has('pieces') || changed.has('info') || changed.has('catalog')) redraw();
      else if (changed.has('trace') || changed.has('beam')) showGreedy(st);
    },
    redraw() { heat?.redraw(); },
    destroy() { frame?.drop('beam'); frame?.drop('beam-column'); heat?.destroy(); },
  };
}
