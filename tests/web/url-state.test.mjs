// The link format (web/state.js) under hostile input: a seeded property test
// over every key, and the regressions of issue 34 (ids that are inherited
// object keys, a sentence cut inside a character, values dropped without a word).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseShareString, parseShareParams, serializeShareState, defaultShareState, linkProblemText, linkNoticesPatch, beamNotices } from '../../web/state.js';
import { parseCompareList } from '../../web/lib/compare.js';
import { pinProblemText, pinToString } from '../../web/lib/pin.js';
import { cutText } from '../../web/lib/sentences.js';
import { own } from '../../web/lib/own.js';
import { attentionName, weightsName } from '../../web/lib/catalog.js';
import { t } from '../../web/i18n/index.js';
import { CONFIG } from '../../web/config.js';
import { seeded, hostileValue } from '../support/seeded.mjs';

const SEED = 34;
const CASES = 1500;
// Every key of the link format, with values it takes (state.js), and keys it does not know.
const KEYS = {
  s: ['Open the file', 'Show the new window', ''],
  m: ['en-fr', 'en-fr-dot', 'file:my.alsc', 'file:'],
  scale: ['1', '0.0625', '64', '2.5', '1e1'],
  step: ['0', '3', '1024'],
  view: ['full', 'heatmap', 'steps'],
  pieces: ['0', '1'],
  colour: ['absolute', 'row'],
  vs: ['en-fr-dot', 'en-fr-dot,en-fr-none', 'a,b,c,d', 'constructor,__proto__', 'x,,y,'],
  uilang: ['en', 'fr', 'de-CH', 'es_MX'],
  pin: ['1:@2', '0:0.2,0.8', '3:0,0,1'],
  beam: ['1', '4', '8'],
  lp: ['0', '0.6', '4'],
  quiz: ['1', 'source+word', '0'],
  d: ['1', '256', '1024', '100', '0', '-3', '2048', '1e9'],
  keys: ['2', '10', '50', '1', '51', '7.5'],
  seed: ['0', '7', '4294967295', '4294967296', '-1', '0.5'],
};
const UNKNOWN = ['evil', '__proto__', 'constructor', 'S', ''];
// The state keys each link key sets, and the reports that say it was not taken.
const SETS = { s: ['sentence'], m: ['model'], scale: ['scale'], step: ['step'], view: ['view'], pieces: ['pieces'], colour: ['colour'], vs: ['compare'], uilang: ['uiLang'], pin: ['pin'], beam: ['beam'], lp: ['beamLp'], quiz: ['quiz'], d: ['mathD'], keys: ['mathKeys'], seed: ['mathSeed'] };
const SAID = { m: ['rejectedModel', 'fileModel'], pin: ['pinError'], beam: ['rejectedBeam'], lp: ['rejectedLp'], quiz: ['rejectedQuiz'] };
const STATE_KEYS = Object.values(SETS).flat();

const enc = (r, s) => (r.chance(0.7) ? encodeURIComponent(s.toWellFormed()) : s);
function randomLink(r) {
  const parts = [];
  for (let i = 0, n = 1 + r.int(6); i < n; i++) {
    const key = r.chance(0.9) ? r.pick(Object.keys(KEYS)) : r.pick(UNKNOWN);
    parts.push(`${key}=${enc(r, hostileValue(r, own(KEYS, key) ?? []))}`);
  }
  return `${r.pick(['#', '?', ''])}${parts.join('&')}`;
}

// A pin is compared as the link writes it (samePin: one-hot weights are `@j`, weights rounded).
const stateOf = (p) => Object.fromEntries(STATE_KEYS.filter((k) => p[k] !== undefined).map((k) => [k, k === 'pin' && p.pin ? pinToString(p.pin) : p[k]]));
// Every notice a parse leads to, as the page words it.
function noticesOf(p) {
  const out = (p.problems ?? []).map(linkProblemText);
  const beam = beamNotices(p, { width: 4, lengthPenalty: 1 });
  for (const v of [beam.beam, beam.beamLp]) if (v) out.push(v);
  if (p.pinError) out.push(pinProblemText(p.pinError));
  if (p.rejectedQuiz !== undefined) out.push(t('quiz.badLink', { value: p.rejectedQuiz }));
  if (p.rejectedModel !== undefined) out.push(t('model.rejected', { asked: p.rejectedModel, shown: 'en-fr' }));
  if (p.fileModel !== undefined) out.push(t('model.fromFile', { file: p.fileModel, shown: 'en-fr' }));
  return out;
}
const wellFormed = (s) => s.isWellFormed();

test(`URL state: ${CASES} seeded hostile links each round-trip or give a notice, never throw (seed ${SEED})`, () => {
  const r = seeded(SEED);
  for (let i = 0; i < CASES; i++) {
    const link = randomLink(r);
    const where = `case ${i}: ${JSON.stringify(link.slice(0, 200))}`;
    let p;
    assert.doesNotThrow(() => { p = parseShareString(link); }, where);
    const notices = noticesOf(p);
    for (const n of notices) assert.ok(typeof n === 'string' && n && !/\{\w+\}/.test(n), `${where}: notice ${JSON.stringify(n)}`);
    // Nothing dropped without a word: each known key the link has (its first
    // value, as URLSearchParams reads it) is in the state or is said.
    const params = new URLSearchParams(link.replace(/^[#?]/, ''));
    for (const key of Object.keys(KEYS)) {
      const v = params.get(key);
      if (v === null || (key === 'm' && v === '')) continue; // m= says "no model asked"
      const taken = SETS[key].some((k) => p[k] !== undefined);
      const said = (SAID[key] ?? []).some((k) => p[k] !== undefined) || (p.problems ?? []).some((q) => q.key === key);
      assert.ok(taken || said, `${where}: ${key}=${JSON.stringify(v.slice(0, 40))} neither taken nor said`);
    }
    if (p.sentence !== undefined) {
      assert.ok(p.sentence.length <= CONFIG.maxSentenceChars && wellFormed(p.sentence), `${where}: sentence within the cap and whole characters`);
      if (p.sentence !== params.get('s')) assert.ok(p.problems?.some((q) => q.key === 's'), `${where}: a sentence cut is said`);
    }
    // The state round-trips: parse → serialise → parse.
    const st = { ...defaultShareState(), ...stateOf(p) };
    const back = parseShareString(`#${serializeShareState({ ...st, pin: p.pin ?? null })}`);
    assert.deepEqual({ ...defaultShareState(), ...stateOf(back) }, st, `${where}: round trip`);
    assert.equal(back.problems, undefined, `${where}: a serialised state needs no notice`);
    // The notices patch replaces the last link's and never throws on inherited names.
    assert.doesNotThrow(() => linkNoticesPatch({ notices: { 'link.s': 'old', cut: 'kept' } }, p.problems ?? []), where);
  }
});

test('the same values as attributes (parseShareParams on a Map): no string cap, notices name the attribute', () => {
  const huge = 'x'.repeat(100_000);
  const p = parseShareParams(new Map([['s', huge], ['view', 'steps']]), { names: { s: 'sentence' } });
  assert.equal(p.view, 'steps', 'the valid view is kept beside a huge sentence');
  assert.equal(p.sentence.length, CONFIG.maxSentenceChars);
  assert.match(linkProblemText(p.problems[0]), /sentence/);
});

test('issue 34 case 4: a 100 KB link sentence is cut and said, the rest of the link still applies', () => {
  const p = parseShareString(`#s=${'a'.repeat(100_000)}&view=steps&scale=2`);
  assert.equal(p.sentence.length, CONFIG.maxSentenceChars);
  assert.equal(p.view, 'steps');
  assert.equal(p.scale, 2);
  assert.deepEqual(p.problems.map((q) => q.reason), ['sentenceCut']);
  const patch = linkNoticesPatch({ notices: { cut: 'kept', 'link.vs': 'from the last link' } }, p.problems);
  assert.deepEqual(Object.keys(patch.notices), ['cut', 'link.s'], 'the last link’s notices are replaced, the others kept');
});

test('issue 34 case 3: a cut never splits a code point or a grapheme, and the link reproduces the text', () => {
  const text = `a${'😀'.repeat(1000)}`;
  const p = parseShareString(`#s=${encodeURIComponent(text)}`);
  assert.ok(p.sentence.isWellFormed(), 'no lone surrogate');
  assert.equal(p.sentence, `a${'😀'.repeat(999)}`);
  assert.equal(parseShareString(`#${serializeShareState({ ...defaultShareState(), sentence: p.sentence })}`).sentence, p.sentence, 'the link gives the same text back');
  assert.equal(serializeShareState({ ...defaultShareState(), sentence: text }).includes('%EF%BF%BD'), false, 'no U+FFFD in the link');
  assert.equal(cutText('e\u0301e\u0301', 3), 'e\u0301', 'not between a letter and its accent');
  assert.equal(cutText('🇫🇷🇩🇪', 6), '🇫🇷', 'not inside a flag');
  assert.equal(cutText('👍🏽👍🏽', 5), '👍🏽');
  assert.equal(cutText('abc', 3), 'abc');
  assert.equal(cutText('x\u0301\u0301\u0301\u0301', 3), 'x\u0301\u0301', 'a grapheme longer than the cap: cut at a code point');
});

test('issue 34 case 1: lookups by an id from outside find only own keys', () => {
  for (const id of ['constructor', 'hasOwnProperty', '__proto__', 'toString']) {
    assert.equal(own({}, id), undefined, id);
    assert.equal(own({ [id]: 1 }, id), 1, `${id} as an own key is found`);
    assert.equal(t(id), id, `t(${id}) is the key, not Object.prototype's ${id}`);
    assert.equal(attentionName(id), t('attention.unknown', { kind: id }), id);
    assert.equal(weightsName(id), t('weights.short', { weights: id }), id);
  }
  const list = parseCompareList('constructor,__proto__,nosuch,,a,b', { report: true });
  assert.deepEqual(list, { ids: ['constructor', 'nosuch', 'a'], bad: ['__proto__'], extra: true });
  assert.deepEqual(parseShareString('#vs=__proto__').problems.map((q) => q.reason), ['compareBad']);
});

test('the math check: d, keys and seed in range are taken, out of range the nearest valid value with a notice', () => {
  const p = parseShareString('#d=256&keys=10&seed=7');
  assert.deepEqual([p.mathD, p.mathKeys, p.mathSeed, p.problems], [256, 10, 7, undefined]);
  const q = parseShareString('#d=3000&keys=1&seed=-5');
  assert.deepEqual([q.mathD, q.mathKeys, q.mathSeed], [1024, 2, 0]);
  assert.deepEqual(q.problems.map((x) => [x.key, x.reason, x.shown]), [['d', 'nearest', 1024], ['keys', 'nearest', 2], ['seed', 'nearest', 0]]);
  assert.equal(linkProblemText(q.problems[0]), 'd=“3000” is not a value it takes (a power of two from 1 to 1,024): the nearest, d=1024, is shown.');
  assert.equal(linkProblemText(q.problems[1]), 'keys=“1” is not a value it takes (a whole number from 2 to 50): the nearest, keys=2, is shown.');
  // Between powers of two: the nearest on the log scale (100 is nearer 128 than 64); a fraction of keys rounds.
  assert.equal(parseShareString('#d=100').mathD, 128);
  assert.equal(parseShareString('#d=90').mathD, 64);
  assert.equal(parseShareString('#keys=7.4').mathKeys, 7);
  assert.equal(parseShareString('#seed=99999999999').mathSeed, 4294967295);
  // Text that is no number is left out, and said.
  const r = parseShareString('#d=big&seed=0x10');
  assert.equal(r.mathD, undefined);
  assert.equal(r.mathSeed, undefined);
  assert.deepEqual(r.problems.map((x) => [x.key, x.reason]), [['d', 'badValue'], ['seed', 'badValue']]);
  // Written only once chosen, and read back the same.
  assert.doesNotMatch(serializeShareState(defaultShareState()), /(^|&)(d|keys|seed)=/);
  const st = { ...defaultShareState(), mathD: 512, mathKeys: 50, mathSeed: 4294967295 };
  const back = parseShareString(serializeShareState(st));
  assert.deepEqual([back.mathD, back.mathKeys, back.mathSeed, back.problems], [512, 50, 4294967295, undefined]);
});
