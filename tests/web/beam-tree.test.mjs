// The beam search figure's pure parts (web/lib/beam.js) and its URL keys
// (web/state.js): the prefix tree built from hypotheses (made-up ones, then
// engine.beam's own on the test model), its layout (rows, columns, edges
// that never cross, #1 on the top row), how a hypothesis differs from the
// best, greedy's score from its trace, and beam= / lp= parsed strictly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildBeamTree, layoutBeamTree, partingStep, differenceFromBest, totalVariation, greedyScore, lengthNormalised,
  parseBeamWidth, parseLengthPenalty, formatLengthPenalty, tokenLabel, DEFAULT_BEAM_WIDTH, BEAM_MAX_WIDTH, MAX_LENGTH_PENALTY,
  beamChangeAt,
} from '../../web/lib/beam.js';
import { parseShareString, serializeShareState, defaultShareState, beamNotices } from '../../web/state.js';
import { createEngine } from '../../web/engine.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A made-up hypothesis: words (one token each, '</s>' last), their step log-probabilities, α rows (S = 3). */
const VOCAB = new Map([['</s>', 3]]);
const idOf = (w) => { if (!VOCAB.has(w)) VOCAB.set(w, 100 + VOCAB.size); return VOCAB.get(w); };
function hyp(words, stepLogProbs, alphaRows = null) {
  const T = words.length;
  const target = words.map((w, t) => ({ id: idOf(w), text: w === '</s>' ? '' : w, token: w, isEnd: w === '</s>', word: t }));
  const logProb = stepLogProbs.reduce((a, b) => a + b, 0);
  return {
    T, S: 3, target, source: [{ text: 'a' }, { text: 'b' }, { text: 'c' }], translation: words.filter((w) => w !== '</s>').join(' '),
    stepLogProbs: Float32Array.from(stepLogProbs), logProb, score: logProb / T,
    alpha: alphaRows ? Float32Array.from(alphaRows.flat()) : null,
  };
}

const BEST = hyp(['le', 'fichier', 'ouvert', '</s>'], [-0.1, -0.2, -0.3, -0.05], [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0.2, 0.3, 0.5]]);
const SECOND = hyp(['la', 'fenêtre', '</s>'], [-1.5, -0.2, -0.1], [[1, 0, 0], [0.5, 0.5, 0], [0, 0, 1]]);
const THIRD = hyp(['le', 'fichier', 'fermé', '</s>'], [-0.1, -0.2, -1.9, -0.05], [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0.6, 0.4, 0]]);
const HYPS = [BEST, SECOND, THIRD];
const charWidth = (s) => 7 * Array.from(s).length;

test('the prefix tree: shared prefixes are shared nodes; each path is its hypothesis; finals at the leaves', () => {
  const tree = buildBeamTree(HYPS);
  // root, le, fichier, ouvert, </s>, la, fenêtre, </s>, fermé, </s>
  assert.equal(tree.nodes.length, 10);
  assert.equal(tree.nodes[0].label, '<s>');
  assert.deepEqual(tree.nodes[0].ranks, [0, 1, 2]);
  assert.equal(tree.steps, 4);
  assert.equal(tree.shared, 0, 'la and le part at the first token');
  HYPS.forEach((h, r) => {
    const path = tree.paths[r];
    assert.equal(path.length, h.T);
    path.forEach((id, t) => {
      const n = tree.nodes[id];
      assert.equal(n.step, t);
      assert.equal(n.tokenId, h.target[t].id);
      assert.equal(n.label, tokenLabel(h, t));
      assert.ok(n.ranks.includes(r));
      assert.equal(n.parent, t === 0 ? 0 : path[t - 1]);
    });
    const last = tree.nodes[path.at(-1)];
    assert.deepEqual(last.finals, [r]);
    assert.equal(last.children.length, 0);
    // the cumulative log p at the leaf is the hypothesis's
    assert.ok(Math.abs(last.logProb - h.logProb) < 1e-6);
  });
  // "le fichier" is one pair of nodes for #1 and #3
  assert.equal(tree.paths[0][1], tree.paths[2][1]);
  assert.deepEqual(tree.nodes[tree.paths[0][1]].ranks, [0, 2]);
  assert.notEqual(tree.paths[0][2], tree.paths[2][2]);
  assert.equal(tree.nodes[tree.paths[0][0]].label, 'le');
  assert.ok(Math.abs(tree.nodes[tree.paths[1][0]].p - Math.exp(-1.5)) < 1e-6, 'a node keeps its token’s probability');
  assert.equal(tree.nodes[tree.paths[0][3]].label, '</s>');
  // children in the order of their best hypothesis: le (#1) before la (#2)
  assert.deepEqual(tree.nodes[0].children.map((c) => tree.nodes[c].label), ['le', 'la']);
  // one hypothesis alone shares everything; none: an empty tree
  assert.equal(buildBeamTree([BEST]).shared, 4);
  assert.deepEqual(buildBeamTree([]).nodes.length, 1);
  assert.equal(buildBeamTree([BEST, THIRD]).shared, 2, 'le fichier, then they part');
});

test('the layout: #1 on the top row, one row per leaf, no crossing edges, columns by step, everything inside the box', () => {
  const tree = buildBeamTree(HYPS);
  const labels = ['#1 a', '#2 bb', '#3 ccc'];
  const L = layoutBeamTree(tree, charWidth, labels, { padX: 6, boxH: 22, rowH: 32, colGap: 18, leafGap: 10, margin: 6 });
  assert.equal(L.rows, 3, 'three leaves, three rows');
  const row = (id) => L.nodes[id].row;
  assert.ok(tree.paths[0].every((id) => row(id) === 0), '#1 runs straight along the top row');
  assert.equal(row(0), 0);
  // depth-first rows: le's subtree (#1, #3) takes rows 0 and 1, la (#2) row 2 — so no edge crosses another
  assert.equal(row(tree.paths[2].at(-1)), 1);
  assert.equal(row(tree.paths[1].at(-1)), 2);
  for (const e of L.edges) {
    for (const f of L.edges) {
      if (e === f || e.x1 !== f.x1 || e.x2 !== f.x2) continue;
      // edges between the same two columns keep their order at both ends
      assert.ok(Math.sign(e.y1 - f.y1) * Math.sign(e.y2 - f.y2) >= 0, `edges ${e.from}→${e.to} and ${f.from}→${f.to} cross`);
    }
  }
  // columns: every node of a step starts at the same x, later steps further right
  const xs = new Map();
  for (const n of L.nodes) {
    if (xs.has(n.step)) assert.equal(n.x, xs.get(n.step)); else xs.set(n.step, n.x);
    assert.equal(n.w, charWidth(n.label) + 12);
  }
  for (let s = 0; s < tree.steps; s++) assert.ok(xs.get(s) > xs.get(s - 1) + 0, `step ${s} right of step ${s - 1}`);
  // an edge runs from its parent's right edge to its child's left edge
  for (const e of L.edges) {
    assert.equal(e.x1, L.nodes[e.from].x + L.nodes[e.from].w);
    assert.equal(e.x2, L.nodes[e.to].x);
    assert.deepEqual(e.ranks, tree.nodes[e.to].ranks);
  }
  assert.equal(L.edges.length, tree.nodes.length - 1, 'a tree: one edge into every node but the root');
  // the leaves carry their hypothesis's label, after its last box
  assert.deepEqual(L.leaves.map((l) => [l.ranks, l.label]), [[[0], '#1 a'], [[2], '#3 ccc'], [[1], '#2 bb']]);
  for (const l of L.leaves) {
    assert.ok(l.x > L.nodes[l.node].x + L.nodes[l.node].w);
    assert.ok(l.x + l.w <= L.width);
  }
  for (const n of L.nodes) assert.ok(n.x >= 0 && n.x + n.w <= L.width && n.y - n.h / 2 >= 0 && n.y + n.h / 2 <= L.height);
});

test('a hypothesis against the best: where it parts, where it then looks, and by how much its weights differ', () => {
  assert.equal(partingStep(BEST, BEST), -1);
  assert.equal(partingStep(SECOND, BEST), 0);
  assert.equal(partingStep(THIRD, BEST), 2);
  assert.equal(differenceFromBest(BEST, BEST), null);
  const d = differenceFromBest(THIRD, BEST);
  assert.equal(d.step, 2);
  assert.equal(d.wrote, 'fermé');
  assert.equal(d.bestWrote, 'ouvert');
  // step 3, the one step after the parting: THIRD looks most at a (0.6), BEST at c (0.5); TV = ½(0.4 + 0.1 + 0.5)
  assert.equal(d.most.step, 3);
  assert.equal(d.most.col, 0);
  assert.ok(Math.abs(d.most.a - 0.6) < 1e-6);
  assert.equal(d.most.bestCol, 2);
  assert.ok(Math.abs(d.most.bestA - 0.5) < 1e-6);
  assert.ok(Math.abs(d.most.tv - 0.5) < 1e-6);
  assert.ok(Math.abs(d.meanTv - 0.5) < 1e-6, 'one step after the parting');
  // SECOND parts at step 0; of steps 1 and 2 (the ones both have), its α differs most at step 1
  const s = differenceFromBest(SECOND, BEST);
  assert.equal(s.wrote, 'la');
  assert.equal(s.most.step, 1);
  assert.ok(Math.abs(s.most.tv - 0.5) < 1e-6);
  assert.equal(s.most.col, 0, 'the first of two equal weights');
  assert.ok(Math.abs(s.meanTv - (totalVariation([0.5, 0.5, 0], [0, 1, 0]) + totalVariation([0, 0, 1], [0, 0, 1])) / 2) < 1e-6);
  // without attention: where it parts, nothing about looking
  const noAlpha = differenceFromBest({ ...THIRD, alpha: null }, BEST);
  assert.equal(noAlpha.most, null);
  assert.equal(noAlpha.meanTv, null);
  assert.equal(totalVariation([1, 0], [0, 1]), 1);
  assert.equal(totalVariation([0.5, 0.5], [0.5, 0.5]), 0);
});

test('on the test model: engine.beam’s hypotheses make a tree whose paths spell them, and greedy’s score is width 1’s', async () => {
  const engine = await createEngine({ variant: 'scalar' });
  engine.load(new Uint8Array(fs.readFileSync(path.join(REPO, 'build', 'test-models', 'additive.alsc'))));
  const text = fs.readFileSync(path.join(REPO, 'build', 'test-models', 'sentences.txt'), 'utf8').split('\n').find((l) => l.trim().split(/\s+/).length >= 4);
  for (const lengthPenalty of [0, 1, 2]) {
    const { hypotheses } = engine.beam(text, { beamWidth: 4, lengthPenalty, topK: 5 });
    assert.ok(hypotheses.length >= 2, 'a beam of several hypotheses');
    const tree = buildBeamTree(hypotheses);
    hypotheses.forEach((h, r) => {
      assert.deepEqual(tree.paths[r].map((id) => tree.nodes[id].tokenId), h.target.map((x) => x.id));
      assert.ok(Math.abs(tree.nodes[tree.paths[r].at(-1)].logProb - h.logProb) < 1e-3 * h.T, `#${r + 1}: the leaf’s log p is the hypothesis’s`);
      assert.ok(Math.abs(lengthNormalised(h.logProb, h.T, lengthPenalty) - h.score) < 1e-4 * Math.max(1, Math.abs(h.score)), 'the score is log p / T^λ');
      if (r > 0) assert.ok(h.score <= hypotheses[r - 1].score + 1e-6, 'best first');
    });
    // No node has two children with the same token: the tree is a real prefix tree.
    for (const n of tree.nodes) assert.equal(new Set(n.children.map((c) => tree.nodes[c].tokenId)).size, n.children.length);
    const L = layoutBeamTree(tree, charWidth, hypotheses.map((_, r) => `#${r + 1}`));
    assert.equal(L.rows, hypotheses.length, 'distinct hypotheses: one row each');
    // greedy: translate()'s trace gives width 1's log p and score
    const greedy = engine.translate(text, { topK: 5 });
    const one = engine.beam(text, { beamWidth: 1, lengthPenalty, topK: 5 }).hypotheses[0];
    const g = greedyScore(greedy, lengthPenalty);
    assert.ok(Math.abs(g.logProb - one.logProb) < 1e-4 * one.T, `greedy log p ${g.logProb} vs width 1 ${one.logProb}`);
    assert.ok(Math.abs(g.score - one.score) < 1e-4 * Math.max(1, Math.abs(one.score)));
  }
  assert.equal(greedyScore({ T: 2, topK: 0, topProbs: new Float32Array(0) }, 1), null, 'no top-k numbers: no score');
  engine.dispose();
});

test('URL keys: beam=1..8 and lp=0..4 are taken; 0, 9, 1000 and the like are refused and reported; they round-trip', () => {
  assert.equal(DEFAULT_BEAM_WIDTH, 5); // the page's decoding default (AS_DEFAULT_BEAM_WIDTH), the card's too
  for (let k = 1; k <= BEAM_MAX_WIDTH; k++) assert.equal(parseBeamWidth(String(k)), k);
  for (const bad of ['0', '9', '1000', '-1', '2.5', '4x', '', ' ', 'NaN', '0x4', '1e0', null, undefined]) assert.equal(parseBeamWidth(bad), null, `beam=${bad}`);
  for (const [text, x] of [['0', 0], ['1', 1], ['0.6', 0.6], ['1.25', 1.25], ['4', 4], ['4.0', 4]]) assert.equal(parseLengthPenalty(text), x);
  for (const bad of ['4.5', '5', '-0.5', '1.234', 'NaN', 'Infinity', '1e0', '.5', '', null]) assert.equal(parseLengthPenalty(bad), null, `lp=${bad}`);
  assert.equal(MAX_LENGTH_PENALTY, 4);
  assert.equal(formatLengthPenalty(0.6000000001), '0.6');

  assert.deepEqual(parseShareString('#beam=3&lp=0.5'), { beam: 3, beamLp: 0.5 });
  for (const bad of ['0', '9', '1000']) {
    const p = parseShareString(`#s=Open&beam=${bad}`);
    assert.equal(p.beam, undefined, `beam=${bad} is not used`);
    assert.equal(p.rejectedBeam, bad, `beam=${bad} is reported`);
  }
  assert.equal(parseShareString('#lp=9').rejectedLp, '9');
  assert.equal(parseShareString('#beam=' + 'x'.repeat(300)).rejectedBeam.length, 80, 'a long refused value is clipped for the notice');

  // Written only once chosen; round trip.
  assert.doesNotMatch(serializeShareState(defaultShareState()), /beam=|lp=/);
  const st = { ...defaultShareState(), beam: 6, beamLp: 0.3 };
  assert.match(serializeShareState(st), /(^|&)beam=6(&|$)/);
  assert.match(serializeShareState(st), /(^|&)lp=0\.3(&|$)/);
  const back = parseShareString(serializeShareState(st));
  assert.equal(back.beam, 6);
  assert.equal(back.beamLp, 0.3);
  assert.equal(parseShareString(serializeShareState({ ...defaultShareState(), beamLp: 0 })).beamLp, 0, 'λ = 0 is a choice, written as lp=0');

  // The notices say what was asked, what is allowed and what the page decodes with instead.
  const n = beamNotices({ rejectedBeam: '1000', rejectedLp: '9' }, { width: 4, lengthPenalty: 1 });
  assert.match(n.beam, /beam width “1000”.*from 1 to 8.*decodes with width 4/);
  assert.match(n.beamLp, /length penalty “9”.*from 0 to 4.*λ = 1/);
  assert.deepEqual(beamNotices({}, { width: 4, lengthPenalty: 1 }), { beam: null, beamLp: null });
});

test('beamChangeAt: what the beam wrote instead of a step\'s top candidate, and nothing for greedy', async () => {
  // made up: topK 2; step 0 writes the top candidate, step 1 the second, step 2 one outside the list
  const tr = {
    T: 3, topK: 2, beamWidth: 5,
    target: [{ id: 10, text: 'le', token: 'le', isEnd: false, word: 0 }, { id: 11, text: 'chat', token: 'chat', isEnd: false, word: 1 }, { id: 3, text: '', token: '</s>', isEnd: true, word: 2 }],
    topIds: Int32Array.from([10, 12, 13, 11, 14, 15]), topProbs: Float32Array.from([0.6, 0.3, 0.5, 0.4, 0.7, 0.2]),
    topTokens: [['le', 'la'], ['chien', 'chat'], ['.', '!']], stepLogProbs: Float32Array.from([Math.log(0.6), Math.log(0.4), Math.log(0.05)]),
  };
  assert.equal(beamChangeAt(tr, 0), null);
  const one = beamChangeAt(tr, 1);
  assert.deepEqual([one.chosen.label, one.top.token, one.rank], ['chat', 'chien', 1]);
  assert.ok(Math.abs(one.chosen.p - 0.4) < 1e-6 && Math.abs(one.top.p - 0.5) < 1e-6);
  const two = beamChangeAt(tr, 2);
  assert.deepEqual([two.chosen.label, two.top.token, two.rank], ['</s>', '.', -1]);
  assert.ok(Math.abs(two.chosen.p - 0.05) < 1e-6, 'outside the list: p from the step\'s own log p');
  assert.equal(beamChangeAt({ ...tr, beamWidth: 1 }, 1), null, 'greedy changes nothing');
  assert.equal(beamChangeAt(tr, 3), null, 'past the end');
  // the engine: a beam's best hypothesis has such steps exactly where its token is not the top candidate
  const engine = await createEngine({ variant: 'simd' });
  engine.load(new Uint8Array(fs.readFileSync(path.join(REPO, 'models', 'en-fr-int8.alsc'))));
  const best = { ...engine.beam('The cat sat on the mat.', { topK: 5, beamWidth: 5 }).hypotheses[0], beamWidth: 5 };
  const changed = [];
  for (let t = 0; t < best.T; t++) {
    const c = beamChangeAt(best, t);
    assert.equal(c !== null, best.topIds[t * 5] !== best.target[t].id, `step ${t}`);
    if (c) { changed.push(t); assert.ok(c.chosen.p < c.top.p, 'the beam kept a less likely token at that step'); }
  }
  assert.ok(changed.length > 0, 'the default model\'s beam changes a word of the lesson\'s first sentence');
  engine.dispose();
});
