// The exercise card's numbers (web/lib/exercise.js): that what the page reads
// from models/index.json is the model report's own (the metrics files
// REPORT.md's tables are made of, models/report/longest-tenth.json, and the
// rows of REPORT.md itself), and the card's logic: which buckets the longest
// 10% covers, what a difference's interval says, the comparison's selection,
// the axis, and catalogues that do not hold together.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { exerciseReport, bucketRange, longestPart, verdictOf, sideBySide, sideBySideShown, yAxis, EXERCISE_KINDS } from '../../web/lib/exercise.js';
import { COMPARE_MAX } from '../../web/lib/compare.js';

const MODELS = new URL('../../models/', import.meta.url);
const read = (rel) => JSON.parse(fs.readFileSync(new URL(rel, MODELS), 'utf8'));
const CATALOG = read('index.json');
// report.py's choice: every line is the zoo's (one recipe and budget), the additive one too.
const metricsOf = (kind, id) => read(`report/${id}.metrics.json`);
const LABELS = { additive: 'Bahdanau additive', dot: 'Luong dot', none: 'no attention (baseline)' };

test('the page’s BLEU by length is the report’s: every bucket, interval, count and overall BLEU of the metrics files', () => {
  const r = exerciseReport(CATALOG);
  assert.ok(r, 'models/index.json has report.byLength (models/train/catalogue.py)');
  assert.deepEqual(r.kinds, ['none', 'additive', 'dot']);
  assert.equal(r.testSet, 'ui_test');
  assert.equal(r.measure, 'cased13a');
  for (const kind of r.kinds) {
    const m = metricsOf(kind, r.models[kind].id);
    const rows = m.tests.ui_test.bleu_cased_13a_by_source_length;
    assert.deepEqual(r.buckets.map((b) => b.words), Object.keys(rows), `${kind}: the same buckets, in order`);
    for (const b of r.buckets) {
      assert.equal(b.bleu[kind].bleu, rows[b.words].bleu, `${kind} ${b.words}`);
      assert.deepEqual(b.bleu[kind].ci90, rows[b.words].ci90, `${kind} ${b.words} interval`);
      assert.equal(b.sentences, rows[b.words].sentences, `${b.words} count`);
    }
    assert.equal(r.models[kind].bleu, m.tests.ui_test.bleu_cased_13a, `${kind} overall`);
    assert.equal(r.models[kind].devBleu, Math.round(m.best.dev_bleu * 100) / 100, `${kind} validation`);
    assert.equal(r.models[kind].devSentences, m.args.dev_sentences);
  }
  assert.equal(r.models.additive.id, 'en-fr-additive', 'the additive line is the zoo’s additive model, not the longer-trained default');
  assert.notEqual(r.models.additive.id, CATALOG.default);
});

test('the page’s longest 10% is report/longest-tenth.json’s, and those are the sentences of the same test set', () => {
  const r = exerciseReport(CATALOG);
  const l = read('report/longest-tenth.json');
  assert.equal(l.test_set, 'ui_test');
  assert.equal(r.longest.minWords, l.min_words);
  assert.equal(r.longest.sentences, l.sentences);
  assert.equal(r.longest.sentencesInSet, l.sentences_in_set);
  assert.equal(r.longest.sentencesInSet, r.buckets.reduce((s, b) => s + b.sentences, 0), 'the buckets count the same set');
  for (const kind of r.kinds) {
    assert.equal(r.longest.bleu[kind].bleu, l.models[kind].bleu, kind);
    assert.deepEqual(r.longest.bleu[kind].ci90, l.models[kind].ci90, `${kind} interval`);
    assert.equal(l.models[kind].id, r.models[kind].id, `${kind}: the same file as the buckets`);
    if (kind !== 'none') assert.deepEqual(r.longest.bleu[kind].minusNone, l.models[kind].minus_none, `${kind} − none`);
  }
  // "The longest 10%": at least 10% of the set, and the sentences of one word fewer would not be.
  const share = r.longest.sentences / r.longest.sentencesInSet;
  assert.ok(share >= 0.1 && share < 0.12, `${share}`);
});

test('REPORT.md prints the same numbers (its UI test table and the longest-10% table)', () => {
  const md = fs.readFileSync(new URL('REPORT.md', MODELS), 'utf8');
  const r = exerciseReport(CATALOG);
  const section = md.slice(md.indexOf('## BLEU by source length: UI test'), md.indexOf('## BLEU by source length: general test'));
  const header = section.split('\n').find((line) => line.startsWith('| source words |')).split('|').map((c) => c.trim());
  const f1 = (c) => `${c.bleu.toFixed(1)} (${c.ci90[0].toFixed(1)}–${c.ci90[1].toFixed(1)})`;
  for (const b of r.buckets) {
    const cells = section.split('\n').find((line) => line.startsWith(`| ${b.words} |`)).split('|').map((c) => c.trim());
    assert.equal(cells[2], String(b.sentences));
    for (const kind of r.kinds) assert.equal(cells[header.indexOf(LABELS[kind])], f1(b.bleu[kind]), `${b.words} ${kind}`);
  }
  const longest = md.slice(md.indexOf('## The longest 10% of the UI test'));
  assert.match(longest, new RegExp(`every source of ${r.longest.minWords} words or more: ${r.longest.sentences} sentences`));
  for (const kind of r.kinds) assert.ok(longest.includes(`| ${LABELS[kind]} | ${f1(r.longest.bleu[kind])} |`), kind);
});

test('bucket labels, and how much of each the longest share covers', () => {
  assert.deepEqual(bucketRange('11-20'), { lo: 11, hi: 20 });
  assert.deepEqual(bucketRange('>50'), { lo: 51, hi: Infinity });
  for (const bad of ['20-11', '0-5x', '', null, '>', '1 - 10']) assert.equal(bucketRange(bad), null, String(bad));
  const b = (w) => ({ words: w, ...bucketRange(w) });
  assert.equal(longestPart(b('1-10'), 14), null);
  assert.equal(longestPart(b('11-20'), 14), 'part', 'the threshold falls inside it');
  assert.equal(longestPart(b('11-20'), 11), 'all', 'it starts at the threshold');
  assert.equal(longestPart(b('21-30'), 14), 'all');
  assert.equal(longestPart(b('>50'), 14), 'all');
  assert.equal(longestPart(b('11-20'), 21), null);
});

test('a difference from no attention: ahead, behind or not told apart, by its interval', () => {
  assert.equal(verdictOf({ bleu: 12, ci90: [10.8, 13.2] }), 'ahead');
  assert.equal(verdictOf({ bleu: 0.55, ci90: [-0.1, 1.22] }), 'tied', 'the interval holds 0');
  assert.equal(verdictOf({ bleu: -3, ci90: [-4, -1] }), 'behind');
  assert.equal(verdictOf({ bleu: 0.5, ci90: [0, 1] }), 'tied', 'an interval that touches 0');
  assert.equal(verdictOf(null), null);
});

test('side by side: the exercise’s models beside the main one, never the main one twice, only listed ones', () => {
  const r = exerciseReport(CATALOG);
  const ids = r.kinds.map((k) => r.models[k].id);
  const main = sideBySide(r, CATALOG, r.models.additive.id);
  assert.deepEqual(main.compare, ids.filter((id) => id !== r.models.additive.id), 'the additive model is the main column');
  assert.deepEqual(main.shown, [r.models.additive.id, ...main.compare]);
  assert.deepEqual(main.missing, []);
  const other = sideBySide(r, CATALOG, 'en-de');
  assert.deepEqual(other.compare, ids, 'another main model: all three beside it');
  assert.ok(other.compare.length <= COMPARE_MAX);
  const fewer = sideBySide(r, { models: CATALOG.models.filter((m) => m.id !== r.models.dot.id) }, 'en-de');
  assert.deepEqual(fewer.missing, [r.models.dot.id]);
  assert.ok(!fewer.compare.includes(r.models.dot.id));
  assert.equal(sideBySideShown(r, CATALOG, r.models.additive.id, main.compare), true);
  assert.equal(sideBySideShown(r, CATALOG, r.models.additive.id, [r.models.none.id]), false);
  assert.equal(sideBySideShown(r, CATALOG, r.models.additive.id, [...main.compare, 'en-fr-general']), true, 'more columns still show them');
});

test('the axis reaches the largest number drawn, intervals included, in steps of 5', () => {
  const r = exerciseReport(CATALOG);
  const axis = yAxis(r);
  const top = Math.max(...r.buckets.flatMap((b) => r.kinds.map((k) => b.bleu[k].ci90[1])));
  assert.ok(axis.hi >= top && axis.hi - 5 < top, `${axis.hi} for ${top}`);
  assert.deepEqual(axis.ticks, Array.from({ length: axis.hi / 5 + 1 }, (_, i) => i * 5));
  const flat = exerciseReport({ report: { byLength: { ...CATALOG.report.byLength, longest: null, buckets: CATALOG.report.byLength.buckets.map((b) => ({ ...b, bleu: Object.fromEntries(EXERCISE_KINDS.map((k) => [k, { bleu: 0, ci90: [0, 0] }])) })) } } });
  assert.deepEqual(yAxis(flat).ticks, [0, 5], 'all zero: still an axis');
});

test('a catalogue whose report does not hold together shows no figure rather than wrong numbers', () => {
  const good = CATALOG.report.byLength;
  const with_ = (patch) => exerciseReport({ report: { byLength: { ...good, ...patch } } });
  assert.equal(exerciseReport({}), null);
  assert.equal(exerciseReport({ report: {} }), null);
  assert.equal(with_({ measure: 'chrF' }), null, 'a measure the page cannot name');
  assert.equal(with_({ models: { ...good.models, none: undefined } }), null, 'no baseline');
  assert.equal(with_({ models: { ...good.models, dot: { ...good.models.dot, id: '../x' } } }), null, 'an id that is no id');
  assert.equal(with_({ buckets: [good.buckets[1], good.buckets[0]] }), null, 'buckets out of order');
  assert.equal(with_({ buckets: [{ ...good.buckets[0], bleu: { ...good.buckets[0].bleu, dot: { bleu: 'x' } } }] }), null, 'a bucket without a BLEU');
  assert.equal(with_({ buckets: [{ ...good.buckets[0], bleu: { ...good.buckets[0].bleu, dot: { bleu: 101 } } }] }), null, 'a BLEU over 100');
  const noDot = with_({ models: { none: good.models.none, additive: good.models.additive } });
  assert.deepEqual(noDot.kinds, ['none', 'additive'], 'two of the three are enough');
  assert.equal(with_({ longest: { ...good.longest, sentences: good.longest.sentencesInSet + 1 } }).longest, null, 'more sentences than the set: no longest row');
  const badCi = with_({ buckets: [{ ...good.buckets[0], bleu: { ...good.buckets[0].bleu, dot: { bleu: 5, ci90: [6, 4] } } }] });
  assert.equal(badCi.buckets[0].bleu.dot.ci90, null, 'an interval upside down is not drawn');
});
