// The native command line's numeric flags (src/cli.c parse_number): every
// value is decimal, whole where the flag counts, and inside the flag's range,
// or the run stops with exit 2, nothing on stdout and a message naming the
// flag and its range. Before, strtof/strtol read "" as 0 (--length-penalty ""
// ranked by plain log p, --top-k "" listed nothing, --scale "" fell back to
// the trained scale), --scale -1 ran at the trained scale with exit 0, and
// --scale 0x10 was read as hex 16.
//
// Then a property test: a seeded generator throws random and hostile values
// at every flag, and an oracle written from the rules above (not from the C
// code) says whether the run must succeed; a run that succeeds must show the
// values it was given in its JSON output.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { ROOT, TEST_MODELS, requireBuilt, runNative } from './support/alsc.mjs';
import { DEFAULT_BEAM_WIDTH, DEFAULT_LENGTH_PENALTY } from '../web/engine.js';
import { mulberry32 } from '../web/lib/random.js';

requireBuilt();
const MODEL = join(TEST_MODELS, 'additive.alsc');
const SENTENCE = 'open the file';
const base = ['--model', MODEL, '--json', '--no-context'];

// The flags' ranges, from the C headers they come from (so the oracle follows
// a change of limit without a copy of its own).
const header = readFileSync(join(ROOT, 'src', 'alignscope.h'), 'utf8') + readFileSync(join(ROOT, 'src', 'alignscope_format.h'), 'utf8');
const define = (name) => Number(header.match(new RegExp(`#define ${name} ([0-9.e]+)[uf]?\\b`))[1]);
const FLT_MAX = 3.4028234663852886e38;
const FLT_MIN = 2 ** -126;
const RULES = {
  '--scale': { whole: false, lo: 0, hi: define('AS_MAX_SCORE_SCALE'), loOpen: true, range: /a number greater than 0 and at most 1000000/ },
  '--top-k': { whole: true, lo: 0, hi: define('AS_TOP_K_MAX'), range: /a whole number from 0 to 16/ },
  '--beam': { whole: true, lo: 1, hi: define('AS_BEAM_MAX_WIDTH'), range: /a whole number from 1 to 8/ },
  '--length-penalty': { whole: false, lo: 0, hi: define('AS_MAX_LENGTH_PENALTY'), range: /a number from 0 to 4/ },
};
const STEP = { whole: true, lo: 0, hi: define('AS_MAX_TOKENS_LIMIT') - 1 };
const PIN_TOKEN = { whole: true, lo: 0, hi: define('AS_MAX_TOKENS_LIMIT') };
const WEIGHT = { whole: false, lo: 0, hi: FLT_MAX };

/** The value a flag takes from text (for a real: the f32 the library sees), or null if it must be refused. */
function accepted(text, rule) {
  const grammar = rule.whole ? /^[+-]?[0-9]+$/ : /^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$/;
  if (!grammar.test(text)) return null;
  let v = Number(text);
  if (!rule.whole) {
    v = Math.fround(v);
    if (!Number.isFinite(v) || (v !== 0 && Math.abs(v) < FLT_MIN)) return null;
  }
  if (v === 0) v = 0;
  if (!(rule.loOpen ? v > rule.lo : v >= rule.lo) || !(v <= rule.hi)) return null;
  return v;
}

// ---- case 5 of issue 34: the regressions -------------------------------------------

test('an empty, negative, hex or trailing-junk value: exit 2, the flag and its range, nothing on stdout', () => {
  const cases = [
    ['--length-penalty', ''], ['--top-k', ''], ['--scale', ''], ['--beam', ''],
    ['--scale', '-1'], ['--scale', '0'], ['--scale', '0x10'], ['--scale', '2x'], ['--scale', ' 2'], ['--scale', '2 '],
    ['--scale', 'inf'], ['--scale', 'nan'], ['--scale', '1e999'], ['--scale', '1e-50'], ['--scale', '1000001'],
    ['--top-k', '3abc'], ['--top-k', '1.5'], ['--top-k', '-1'], ['--top-k', '17'], ['--top-k', '0x3'],
    ['--beam', '2.0'], ['--beam', '0'], ['--beam', '9'],
    ['--length-penalty', '1.5.2'], ['--length-penalty', '-0.5'], ['--length-penalty', '4.5'], ['--length-penalty', '0x1'],
  ];
  for (const [flag, value] of cases) {
    const r = runNative([...base, flag, value, '--beam', '2', '--', SENTENCE]);
    const label = `${flag} ${JSON.stringify(value)}`;
    assert.equal(r.status, 2, `${label}: exit ${r.status} (${r.stderr})`);
    assert.equal(r.stdout, '', `${label}: printed output`);
    assert.ok(r.stderr.startsWith(`alignscope: ${flag} needs `), `${label}: ${r.stderr}`);
    assert.match(r.stderr, RULES[flag].range, label);
    assert.ok(r.stderr.includes(`(got ${JSON.stringify(value)})`), `${label}: ${r.stderr}`);
  }
  const last = runNative([...base, '--scale']);
  assert.equal(last.status, 2);
  assert.match(last.stderr, /--scale needs a number greater than 0 and at most 1000000 \(no value given\)/);
});

test('values in range are used exactly as given', () => {
  const r = runNative([...base, '--scale', '2.5e-1', '--top-k', '+3', '--beam', '3', '--length-penalty', '0', '--', SENTENCE]);
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.beam_width, 3);
  assert.equal(out.length_penalty, 0);
  for (const h of out.hypotheses) {
    assert.equal(h.score_scale, 0.25);
    assert.ok(h.top.every((s) => s.ids.length === 3));
    assert.equal(h.score, h.log_prob); // length penalty 0: the raw log p, not log p / T
  }
  const greedy = JSON.parse(runNative([...base, '--top-k', '0', '--scale', '1e6', '--', SENTENCE]).stdout);
  assert.equal(greedy.score_scale, 1e6);
  assert.ok(greedy.top.every((s) => s.ids.length === 0));
});

// ---- the property test ------------------------------------------------------------

// mulberry32 (web/lib/random.js, the page's one seeded generator): every run throws the same values.
const rng = mulberry32;

const HOSTILE = ['', ' ', ' 1', '1 ', '\t2', '0x10', '0X1A', '0b1', '1e999', '-1e999', '1e-50', '1e-40', 'nan', 'NaN', 'inf',
  '-inf', 'Infinity', '-0', '+0', '+1', '-1', '1e', '1e+', 'e5', '.', '.5', '5.', '1,5', '1_000', '1..2', '1e5.5', '１', '٣',
  '--json', '-', '+', '00000000000000000000001', '9'.repeat(400), `1${'0'.repeat(40)}`, `0.${'0'.repeat(500)}1`,
  '2147483648', '4294967297', '-2147483649', '0.1e1', '1E0', '3e0', '16', '17', '8', '9', '4', '4.0000001', '1000000', '1000000.1',
  '1:2', '0:', ':0', '1,', ',1', 'ünïcödé', '😀', '<script>', '%n%n', '\\0'];

function pick(r, list) { return list[Math.floor(r() * list.length)]; }

/** A value for a rule: in range (in several spellings), just outside, or hostile. */
function numberText(r, rule) {
  const roll = r();
  if (roll < 0.35) return pick(r, HOSTILE);
  const hi = Math.min(rule.hi, 1e6);
  if (roll < 0.45) return String(pick(r, [rule.lo, hi, rule.lo - 1, hi + 1, hi * 10, -hi]));
  const v = rule.lo + r() * (hi - rule.lo);
  if (rule.whole) return String(Math.round(v));
  return pick(r, [String(v), v.toExponential(3), v.toFixed(2), v.toPrecision(2), `${Math.round(v)}`]);
}

function flagValue(r, flag) {
  if (flag === '--force') {
    const step = r() < 0.2 ? pick(r, HOSTILE) : String(Math.floor(r() * 6));
    const n = 1 + Math.floor(r() * 4);
    const weights = Array.from({ length: n }, () => (r() < 0.15 ? pick(r, HOSTILE) : (r() * 3).toFixed(Math.floor(r() * 3))));
    return r() < 0.05 ? pick(r, HOSTILE) : `${step}:${weights.join(',')}`;
  }
  if (flag === '--pin') {
    const step = r() < 0.2 ? pick(r, HOSTILE) : String(Math.floor(r() * 6));
    const j = r() < 0.2 ? pick(r, HOSTILE) : String(Math.floor(r() * 5));
    return r() < 0.05 ? pick(r, HOSTILE) : `${step}:${j}`;
  }
  return numberText(r, RULES[flag]);
}

/** What the oracle makes of --force / --pin text: {step, weights | pin} or null. */
function override(flag, text) {
  const colon = text.indexOf(':');
  if (colon < 0) return null;
  const step = accepted(text.slice(0, colon), STEP);
  if (step === null) return null;
  const rest = text.slice(colon + 1);
  if (flag === '--pin') {
    const j = accepted(rest, PIN_TOKEN);
    return j === null ? null : { step, pin: j };
  }
  const weights = rest.split(',').map((w) => accepted(w, WEIGHT));
  return weights.includes(null) ? null : { step, weights };
}

const FLAGS = ['--scale', '--top-k', '--beam', '--length-penalty', '--force', '--pin'];
const RUNS = 600;
const SEED = 34;

test(`property: ${RUNS} seeded runs of random and hostile flag values (seed ${SEED})`, () => {
  const r = rng(SEED);
  const trained = JSON.parse(runNative([...base, '--', SENTENCE]).stdout);
  const S = trained.source.length;
  const tally = { ok: 0, refused: 0, library: 0 };
  for (let run = 0; run < RUNS; run++) {
    const chosen = FLAGS.filter(() => r() < 0.35);
    if (chosen.length === 0) chosen.push(pick(r, FLAGS));
    if (chosen.includes('--force') && chosen.includes('--pin')) chosen.splice(chosen.indexOf('--pin'), 1);
    const args = [];
    const given = {};
    let firstBad = null;
    for (const flag of chosen) {
      const text = flagValue(r, flag);
      args.push(flag, text);
      const value = flag in RULES ? accepted(text, RULES[flag]) : override(flag, text);
      if (value === null && firstBad === null) firstBad = flag;
      given[flag] = value;
    }
    const missing = r() < 0.03; // the last flag without its value
    const argv = missing ? [...base, ...args.slice(0, -1)] : [...base, ...args, '--', SENTENCE];
    if (missing && firstBad === null) firstBad = chosen.at(-1);
    const label = `run ${run}: ${JSON.stringify(argv.slice(base.length))}`;
    const res = runNative(argv, '');
    assert.notEqual(res.status, null, `${label}: killed by a signal (${res.stderr})`);
    if (firstBad !== null) {
      assert.equal(res.status, 2, `${label}: exit ${res.status}, expected 2 for ${firstBad} (${res.stderr})`);
      assert.equal(res.stdout, '', `${label}: printed output`);
      assert.ok(res.stderr.startsWith(`alignscope: ${firstBad} needs `), `${label}: ${res.stderr}`);
      tally.refused++;
      continue;
    }
    const forced = given['--force'] ?? given['--pin'];
    if (res.status === 1) {
      // only the library's judgement of an override can still refuse a run
      assert.ok(forced, `${label}: exit 1 without --force / --pin: ${res.stderr}`);
      assert.match(res.stderr, /\(--force \/ --pin\)|--pin \d+:\d+: the sentence has source tokens/, label);
      tally.library++;
      continue;
    }
    assert.equal(res.status, 0, `${label}: exit ${res.status} (${res.stderr})`);
    const out = JSON.parse(res.stdout);
    // Beam search unless --beam 1: --beam K prints its K hypotheses, the default its best one.
    const width = given['--beam'] ?? DEFAULT_BEAM_WIDTH;
    const traces = '--beam' in given && width > 1 ? out.hypotheses : [out];
    if (width > 1) {
      assert.equal(out.beam_width, width, label);
      assert.equal(Math.fround(out.length_penalty), given['--length-penalty'] ?? DEFAULT_LENGTH_PENALTY, label);
    } else {
      assert.equal(out.beam_width, undefined, `${label}: --beam 1 is greedy`);
    }
    for (const tr of traces) {
      assert.equal(Math.fround(tr.score_scale), given['--scale'] ?? Math.fround(trained.score_scale), `${label}: score scale`);
      const k = given['--top-k'] ?? 5;
      assert.ok(tr.top.every((step) => step.ids.length === k), `${label}: top-k`);
      if (forced) {
        const row = tr.alpha[forced.step];
        if (width > 1 && row === undefined) continue; // this hypothesis ended before the step (another reached it)
        const want = forced.pin !== undefined ? Array.from({ length: S }, (_, j) => (j === forced.pin ? 1 : 0))
          : forced.weights.map((w) => w / forced.weights.reduce((a, b) => a + b, 0));
        assert.equal(row.length, want.length, label);
        row.forEach((a, j) => assert.ok(Math.abs(a - want[j]) <= 1e-6, `${label}: alpha[${forced.step}][${j}] ${a}, forced ${want[j]}`));
      }
    }
    tally.ok++;
  }
  console.log(`# ${RUNS} runs: ${tally.ok} succeeded with the values given, ${tally.refused} refused naming the flag, ` +
    `${tally.library} refused by the library's override rules`);
  assert.ok(tally.ok > RUNS / 10 && tally.refused > RUNS / 10, 'the generator reaches both outcomes');
});

// ---- --window (issue 32 part 3): the local-m window, T from the same decoding without it ----

test('--window D: the engine\'s windowed decode, its centre scaled with the global T; bad values and --force refused', async () => {
  const { createEngine } = await import('../web/engine.js');
  const engine = await createEngine({ variant: 'scalar' });
  engine.load(new Uint8Array(readFileSync(MODEL)));
  for (const sentence of [SENTENCE, 'Show the new window', 'Delete the selected document!']) {
    for (const d of [0, 1, 3]) {
      for (const beam of ['1', '3']) {
        const r = runNative([...base, '--window', String(d), '--beam', beam, '--', sentence]);
        assert.equal(r.status, 0, r.stderr);
        const out = JSON.parse(r.stdout);
        const got = beam === '1' ? out : out.hypotheses[0];
        const global = beam === '1' ? engine.translate(sentence) : engine.beam(sentence, { beamWidth: 3 }).hypotheses[0];
        const want = beam === '1' ? engine.translate(sentence, { window: d, windowSteps: global.T })
          : engine.beam(sentence, { beamWidth: 3, window: d, windowSteps: global.T }).hypotheses[0];
        const label = `${sentence} --window ${d} --beam ${beam}`;
        assert.equal(got.translation, want.translation, label);
        got.alpha.forEach((row, t) => row.forEach((a, j) => assert.ok(Math.abs(a - want.alpha[t * want.S + j]) < 1e-6, `${label}: alpha[${t}][${j}]`)));
      }
    }
  }
  engine.dispose();
  for (const value of ['-1', '1.5', '', '4097', 'x']) {
    const r = runNative([...base, '--window', value, '--', SENTENCE]);
    assert.equal(r.status, 2, value);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /--window needs a whole number from 0 to 4096/);
  }
  const both = runNative([...base, '--window', '1', '--pin', '0:0', '--', SENTENCE]);
  assert.equal(both.status, 2);
  assert.match(both.stderr, /--window cannot be used with --force \/ --pin/);
});
