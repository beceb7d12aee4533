// beam.js - beam search as a figure (pure; tests/web/beam-tree.test.mjs).
//
// engine.beam() returns the k finished hypotheses, best first, each a full
// trace plus logProb, score and stepLogProbs (web/engine.js). They share
// prefixes: every hypothesis starts with the same <s>, most agree on their
// first words. Here they become
//   - a prefix tree: one node per (prefix, token), children ordered by the
//     best hypothesis below them, so #1 runs straight along the top row;
//   - its layout (rows, columns, edges) for cards/beam.js to draw in SVG;
//   - what a hypothesis does differently from the best (where it parts, and
//     where it then looks);
//   - the URL keys `beam` (width) and `lp` (length penalty), parsed strictly.

import { BEAM_MAX_WIDTH, MAX_LENGTH_PENALTY, DEFAULT_LENGTH_PENALTY } from '../engine.js';
import { rowOfStep } from './words.js';

/** The width the card searches with until the reader (or a link) picks one: engine.beam()'s default. */
export { DEFAULT_BEAM_WIDTH } from '../engine.js';
export { BEAM_MAX_WIDTH, MAX_LENGTH_PENALTY, DEFAULT_LENGTH_PENALTY };

// ---- URL keys --------------------------------------------------------------

/** `beam=K`: a whole number from 1 to BEAM_MAX_WIDTH, or null (0, 9, 1000, 2.5, 'x' are refused). */
export function parseBeamWidth(text) {
  if (text == null || !/^\s*[0-9]{1,4}\s*$/.test(text)) return null;
  const n = Number(text);
  return n >= 1 && n <= BEAM_MAX_WIDTH ? n : null;
}

/** `lp=X`: a decimal from 0 to MAX_LENGTH_PENALTY with at most two decimals, or null. */
export function parseLengthPenalty(text) {
  if (text == null || !/^\s*[0-9](\.[0-9]{1,2})?\s*$/.test(text)) return null;
  const x = Number(text);
  return x >= 0 && x <= MAX_LENGTH_PENALTY ? x : null;
}

/** A length penalty as the link writes it: 1, 0.6, 1.25. */
export function formatLengthPenalty(x) {
  return String(Math.round(x * 100) / 100);
}

// ---- the prefix tree -------------------------------------------------------

/** What a node shows for decoder step t: the piece's text, '</s>' for the end. */
export function tokenLabel(trace, t) {
  const p = trace.target[t];
  if (p.isEnd) return '</s>';
  return (p.text || p.token || '').trim() || p.token || '?';
}

/** True when the piece at step t continues the word of the piece before it (a subword model). */
export function continuesWord(trace, t) {
  return t > 0 && trace.target[t].word != null && trace.target[t].word === trace.target[t - 1].word;
}

/**
 * hypotheses (best first) -> {
 *   nodes: [{ id, step (-1 for the root <s>), parent (-1 for the root), tokenId, label, continues,
 *             p (this token's probability given its prefix), logProb (of the prefix up to and with it),
 *             ranks (the hypotheses through it, best first), finals (those that end here), children (ids) }],
 *   paths: [[node id at step 0, 1, …, T-1] per hypothesis],
 *   steps: the longest hypothesis's T, shared: how many first steps every hypothesis has in common }
 * Two hypotheses share a node when their token ids agree up to and at its
 * step. Children are kept in the order of their best hypothesis.
 */
export function buildBeamTree(hypotheses) {
  const root = { id: 0, step: -1, parent: -1, tokenId: null, label: '<s>', continues: false, p: 1, logProb: 0, ranks: [], finals: [], children: [] };
  const nodes = [root];
  const paths = hypotheses.map((hyp, rank) => {
    let node = root;
    root.ranks.push(rank);
    let logProb = 0;
    const path = [];
    for (let t = 0; t < hyp.T; t++) {
      const id = hyp.target[t].id;
      const stepLogProb = hyp.stepLogProbs?.[t] ?? NaN;
      logProb += stepLogProb;
      let child = null;
      for (const c of node.children) if (nodes[c].tokenId === id) { child = nodes[c]; break; }
      if (!child) {
        child = {
          id: nodes.length, step: t, parent: node.id, tokenId: id, label: tokenLabel(hyp, t), continues: continuesWord(hyp, t),
          p: Math.exp(stepLogProb), logProb, ranks: [], finals: [], children: [],
        };
        nodes.push(child);
        node.children.push(child.id);
      }
      child.ranks.push(rank);
      path.push(child.id);
      node = child;
    }
    node.finals.push(rank);
    return path;
  });
  // Every hypothesis passes the root; while a node has one child and nobody ends there, all pass that child too.
  let shared = 0;
  for (let n = root; n.children.length === 1 && n.finals.length === 0; n = nodes[n.children[0]]) shared++;
  return { nodes, paths, steps: Math.max(0, ...hypotheses.map((h) => h.T)), shared };
}

/**
 * Where the tree's boxes go. measure(text) -> its width in px at the tree's
 * font; leafLabels[rank]: the text after each hypothesis's last node (its
 * rank and scores). sizes: { padX (inside a box), boxH, rowH, colGap,
 * leafGap, margin, headH (a strip above the rows for the steps' numbers) }. Rows: a depth-first walk, children in the order of
 * their best hypothesis, so branches never cross and #1 is the top row.
 * Columns: one per decoder step (the root's first), as wide as their widest
 * box. Returns { width, height, nodes: [{ ...node, x, y (centre), w, row }],
 * edges: [{ from, to, x1, y1, x2, y2, p, ranks }], columns: [{ step, x, w }], leaves (top to bottom): [{ ranks, node, x, y, w, label }], rows }.
 */
export function layoutBeamTree(tree, measure, leafLabels = [], sizes = {}) {
  const { padX = 6, boxH = 22, rowH = 32, colGap = 18, leafGap = 10, margin = 6, headH = 0 } = sizes;
  const width = new Map(tree.nodes.map((n) => [n.id, Math.ceil(measure(n.continues ? `·${n.label}` : n.label)) + 2 * padX]));
  const colW = new Array(tree.steps + 1).fill(0);
  for (const n of tree.nodes) colW[n.step + 1] = Math.max(colW[n.step + 1], width.get(n.id));
  const colX = [margin];
  for (let c = 1; c < colW.length; c++) colX[c] = colX[c - 1] + colW[c - 1] + colGap;

  const row = new Map();
  let rows = 0;
  const visit = (id) => {
    const n = tree.nodes[id];
    if (n.children.length === 0) { row.set(id, rows++); return; }
    for (const c of n.children) visit(c);
    row.set(id, row.get(n.children[0]));
  };
  visit(0);

  const y = (id) => margin + headH + row.get(id) * rowH + rowH / 2;
  const placed = tree.nodes.map((n) => ({ ...n, x: colX[n.step + 1], y: y(n.id), w: width.get(n.id), h: boxH, row: row.get(n.id) }));
  const edges = [];
  for (const n of placed) {
    for (const c of n.children) {
      const k = placed[c];
      edges.push({ from: n.id, to: k.id, x1: n.x + n.w, y1: n.y, x2: k.x, y2: k.y, p: k.p, ranks: k.ranks });
    }
  }
  const leaves = placed.filter((n) => n.finals.length).sort((a, b) => a.row - b.row).map((n) => {
    const label = n.finals.map((r) => leafLabels[r] ?? '').join(' · ');
    return { ranks: n.finals, node: n.id, x: n.x + n.w + leafGap, y: n.y, w: Math.ceil(measure(label)), label };
  });
  const right = Math.max(...placed.map((n) => n.x + n.w), ...leaves.map((l) => l.x + l.w));
  const columns = colX.map((x, c) => ({ step: c - 1, x, w: colW[c] }));
  return { width: Math.ceil(right + margin), height: Math.ceil(2 * margin + headH + rows * rowH), nodes: placed, edges, leaves, rows, columns };
}

// ---- a hypothesis against the best ----------------------------------------

/** The first decoder step where two traces' tokens differ; -1 if they are the same tokens. */
export function partingStep(a, b) {
  const n = Math.min(a.T, b.T);
  for (let t = 0; t < n; t++) if (a.target[t].id !== b.target[t].id) return t;
  return a.T === b.T ? -1 : n;
}

/** True when two traces wrote the same tokens. */
export const sameTokens = (a, b) => partingStep(a, b) === -1;

/** ½ Σ |a − b| of two rows of weights: 0 the same, 1 no overlap. */
export function totalVariation(a, b) {
  let s = 0;
  for (let j = 0; j < a.length; j++) s += Math.abs(a[j] - b[j]);
  return s / 2;
}

const rowOf = (trace, t) => trace.alpha.subarray(t * trace.S, (t + 1) * trace.S);
const argmax = (row) => { let k = 0; for (let j = 1; j < row.length; j++) if (row[j] > row[k]) k = j; return k; };

/**
 * How hypothesis `hyp` differs from `best` (both traces of the same source):
 *   null when they wrote the same tokens; else
 *   { step: the decoder step where it parts, wrote, bestWrote (token labels, '' past an end),
 *     most: null, or (with attention, and a step after the parting in both) the step after it
 *       where their α differ most (step t of one against step t of the other)
 *       { step, col, a, bestCol, bestA (the source position each looks at most there, and its α), tv },
 *     meanTv: mean total variation of their α over the steps after the parting that both have (null without) }
 * At the parting step itself their α is the same (the same words came
 * before it); it can differ only from the step after.
 */
export function differenceFromBest(hyp, best) {
  const d = partingStep(hyp, best);
  if (d < 0) return null;
  const label = (tr, t) => (t < tr.T ? tokenLabel(tr, t) : '');
  const out = { step: d, wrote: label(hyp, d), bestWrote: label(best, d), most: null, meanTv: null };
  const n = Math.min(hyp.T, best.T);
  if (!hyp.alpha || !best.alpha || d + 1 >= n || hyp.S !== best.S) return out;
  let sum = 0;
  let top = { t: -1, tv: -1 };
  for (let t = d + 1; t < n; t++) {
    const tv = totalVariation(rowOf(hyp, t), rowOf(best, t));
    sum += tv;
    if (tv > top.tv) top = { t, tv };
  }
  const a = rowOf(hyp, top.t);
  const b = rowOf(best, top.t);
  const col = argmax(a);
  const bestCol = argmax(b);
  out.most = { step: top.t, col, a: a[col], bestCol, bestA: b[bestCol], tv: top.tv };
  out.meanTv = sum / (n - d - 1);
  return out;
}

/** A hypothesis's score for a log-probability and length: log p / T^λ (engine.beam ranks by it). */
export const lengthNormalised = (logProb, T, lengthPenalty) => logProb / T ** lengthPenalty;

/**
 * The greedy translation's log-probability and score, from its trace: greedy
 * emits the most probable token at every step, so its log p is the sum of
 * log topProbs[t][0]. -> { logProb, score }, or null without top-k numbers.
 */
export function greedyScore(trace, lengthPenalty) {
  if (!(trace?.topK > 0) || !trace.topProbs) return null;
  let logProb = 0;
  for (let t = 0; t < trace.T; t++) logProb += Math.log(trace.topProbs[t * trace.topK]);
  return { logProb, score: lengthNormalised(logProb, trace.T, lengthPenalty) };
}

// ---- what the beam changed, step by step -----------------------------------

/**
 * At step t of a translation decoded by beam search (trace.beamWidth > 1,
 * the page's default): what the beam wrote where it did not write that
 * step's most likely token, the one greedy decoding would take there (given
 * the same words before it). null where it wrote that token, and always
 * for a greedy trace. -> { chosen: { label, p }, top: { token, p }, rank }:
 * rank is the chosen token's place among the trace's topK candidates (-1
 * when it is not among them; p then comes from the hypothesis's own log p
 * of that step).
 */
export function beamChangeAt(trace, t) {
  const K = trace?.topK ?? 0;
  if (!(trace?.beamWidth > 1) || K < 1 || t < 0 || t >= trace.T) return null;
  const id = trace.target[t].id;
  if (trace.topIds[t * K] === id) return null;
  let rank = -1;
  for (let k = 1; k < K; k++) if (trace.topIds[t * K + k] === id) { rank = k; break; }
  const p = rank >= 0 ? trace.topProbs[t * K + rank] : Math.exp(trace.stepLogProbs?.[t] ?? NaN);
  return { chosen: { label: tokenLabel(trace, t), p }, top: { token: trace.topTokens[t][0], p: trace.topProbs[t * K] }, rank };
}

/**
 * differenceFromBest's result at the heatmap's level (the matrices of the two
 * hypotheses, lib/figure.js, words or pieces): the sentences the beam card
 * writes name words at word level, not the pieces the decoder steps write.
 *   -> { step (hyp's row where it parts), wrote, bestWrote (those rows' labels),
 *        most: null or { step (hyp's row), col, a, bestCol, bestA (labels of the
 *        columns each row weighs most, and their α) } }
 */
export function differenceAtLevel(diff, hypMatrix, bestMatrix) {
  if (!diff) return null;
  const label = (m, t) => (t < m.trace.T ? m.rowLabels[rowOfStep(m, t)] : '');
  const out = { step: rowOfStep(hypMatrix, diff.step), wrote: label(hypMatrix, diff.step), bestWrote: label(bestMatrix, diff.step), most: null };
  if (!diff.most || !hypMatrix.alpha || !bestMatrix.alpha) return out;
  const top = (m) => {
    const r = rowOfStep(m, diff.most.step);
    const row = m.alpha.subarray(r * m.S, (r + 1) * m.S);
    const j = argmax(row);
    return { r, col: m.colLabels[j], a: row[j] };
  };
  const a = top(hypMatrix);
  const b = top(bestMatrix);
  out.most = { step: a.r, col: a.col, a: a.a, bestCol: b.col, bestA: b.a };
  return out;
}
