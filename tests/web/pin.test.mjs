// "Pin the finger" without a browser: the `pin=` value of a link (lib/pin.js
// through state.js), the weights a slider sets, the size of a change, the
// word-level diff of two translations, and the controller
// (controllers/pin.js) driving a client: with the real engine in Node, with
// an engine error, with pins that do not fit the translation.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  parsePin, pinToString, samePin, pinWeights, forcedRow, checkPin, pinProblemText, roundWeights, setGroupWeight,
  groupRow, totalVariation, pinChange, diffWords, translationWords, translationSegments, MAX_PIN_WEIGHTS,
} from '../../web/lib/pin.js';
import { parseShareString, serializeShareState, defaultShareState, createStore } from '../../web/state.js';
import { createPin } from '../../web/controllers/pin.js';
import { createEngine } from '../../web/engine.js';
import { sourceWords } from '../../web/lib/words.js';
import { setUiLanguage } from '../../web/i18n/index.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
setUiLanguage('en');
const close = (x, y, tol = 1e-6) => assert.ok(Math.abs(x - y) <= tol, `${x} vs ${y}`);
const sum = (a) => a.reduce((s, x) => s + x, 0);

describe('the pin= value', () => {
  test('STEP:@INDEX and STEP:W,W,… parse; the numbers are those written', () => {
    assert.deepEqual(parsePin('3:@2'), { pin: { step: 3, at: 2 } });
    assert.deepEqual(parsePin('0:0,0.25,0.75'), { pin: { step: 0, weights: [0, 0.25, 0.75] } });
    assert.deepEqual(parsePin('12:1,1,2'), { pin: { step: 12, weights: [1, 1, 2] } }, 'weights need not sum to 1: the engine divides by their sum');
    assert.deepEqual(parsePin('1:.5,0.5').error?.reason, 'notNumber', 'a weight needs its leading digit');
  });

  test('malformed values are refused, each with its reason', () => {
    for (const bad of ['', '3', '3:', ':@1', 'a:@1', '3:@', '3:@x', '3:@-1', '-1:@0', '3.5:@0', '99999:@0', '3:@99999', ' 3:@1']) {
      assert.equal(parsePin(bad).error?.reason, bad === '3:' ? 'notNumber' : 'format', `“${bad}”`);
    }
    assert.deepEqual(parsePin('2:0.5,NaN,0.5').error, { reason: 'notNumber', text: '2:0.5,NaN,0.5', i: 2, w: 'NaN' });
    for (const w of ['Infinity', '1e3', 'abc', '', '0x1', '+1', '0.123456789', '1234567']) {
      assert.equal(parsePin(`2:0.5,${w},0.5`).error?.reason, 'notNumber', `weight “${w}”`);
    }
    assert.deepEqual(parsePin('2:0.5,-0.25,1').error, { reason: 'negative', text: '2:0.5,-0.25,1', i: 2, w: '-0.25' });
    assert.equal(parsePin('2:-0,1').error?.reason, 'notNumber', '-0 is not a weight either');
    assert.equal(parsePin('2:0,0,0.0').error?.reason, 'allZero');
    assert.equal(parsePin(`0:${Array(MAX_PIN_WEIGHTS + 1).fill(1).join(',')}`).error?.reason, 'tooMany');
    assert.ok(parsePin(`0:${Array(MAX_PIN_WEIGHTS).fill(1).join(',')}`).pin, 'exactly the most is fine');
    assert.equal(parsePin(null).error.reason, 'format');
  });

  test('each refusal is said in words, with the value and the numbers', () => {
    assert.match(pinProblemText(parsePin('2:0.5,NaN').error), /“2:0\.5,NaN” was not used: its weight 2 \(“NaN”\) is not a number/);
    assert.match(pinProblemText(parsePin('2:1,-3').error), /weight 2 \(-3\) is negative/);
    assert.match(pinProblemText(parsePin('2:0,0').error), /all its weights are 0/);
    assert.match(pinProblemText(parsePin('x').error), /STEP:@POSITION/);
    const trace = { T: 5, S: 3, alpha: new Float32Array(15) };
    assert.match(pinProblemText(checkPin({ step: 9, at: 0 }, trace), '9:@0'), /pins step 9 \(counted from 0\), but this translation has only 5 steps \(0 to 4\)/);
    assert.match(pinProblemText(checkPin({ step: 1, weights: [1, 1] }, trace), '1:1,1'), /gives 2 weights, but the model reads this sentence as 3 source positions/);
    assert.match(pinProblemText(checkPin({ step: 1, at: 3 }, trace), '1:@3'), /source position 3 .* has 3 source positions \(0 to 2\)/);
    assert.match(pinProblemText(checkPin({ step: 0, at: 0 }, { ...trace, alpha: null }), '0:@0'), /no attention/);
  });

  test('a pin fits a translation only with a step it reaches and one weight per source position', () => {
    const trace = { T: 4, S: 3, alpha: new Float32Array(12) };
    assert.equal(checkPin({ step: 3, at: 2 }, trace), null);
    assert.equal(checkPin({ step: 0, weights: [0, 1, 0] }, trace), null);
    assert.equal(checkPin({ step: 4, at: 0 }, trace).reason, 'step');
    assert.equal(checkPin({ step: 0, at: 3 }, trace).reason, 'index');
    assert.equal(checkPin({ step: 0, weights: [1, 0, 0, 0] }, trace).reason, 'length');
  });

  test('written back: one position as @, else the weights with at most 4 decimals; round trip through the link', () => {
    assert.equal(pinToString({ step: 3, at: 2 }), '3:@2');
    assert.equal(pinToString({ step: 3, weights: [0, 0, 1, 0] }), '3:@2', 'all the weight on one position is the short form');
    assert.equal(pinToString({ step: 1, weights: [0.25, 0.5, 0.25] }), '1:0.25,0.5,0.25');
    assert.equal(pinToString({ step: 1, weights: [1 / 3, 1 / 3, 1 / 3] }), '1:0.3333,0.3333,0.3333');
    assert.ok(samePin({ step: 3, at: 2 }, { step: 3, weights: [0, 0, 5] }));
    assert.ok(!samePin({ step: 3, at: 2 }, { step: 2, at: 2 }));
    assert.ok(samePin(null, undefined) && !samePin(null, { step: 0, at: 0 }));

    const st = { ...defaultShareState(), sentence: 'Open the file', model: 'en-fr-int8', pin: { step: 2, weights: roundWeights([0.1, 0.2, 0.7]) } };
    const hash = serializeShareState(st);
    assert.match(hash, /(^|&)pin=2%3A0\.1%2C0\.2%2C0\.7(&|$)/);
    assert.deepEqual(parseShareString(`#${hash}`).pin, { step: 2, weights: [0.1, 0.2, 0.7] });
    assert.deepEqual(parseShareString('#s=x&pin=4%3A%401').pin, { step: 4, at: 1 });
    assert.deepEqual(parseShareString('#s=x&pin=4:@1').pin, { step: 4, at: 1 }, 'unescaped, as typed');
    assert.doesNotMatch(serializeShareState(defaultShareState()), /pin=/, 'no pin, no key');
    const bad = parseShareString('#s=x&pin=4:1,NaN');
    assert.equal(bad.pin, undefined);
    assert.equal(bad.pinError.reason, 'notNumber');
    assert.equal(bad.sentence, 'x', 'the rest of the link still counts');
    assert.equal(parseShareString('#s=x').pinError, undefined);
  });

  test('the weights the engine gets, and the row it forces', () => {
    assert.deepEqual(pinWeights({ step: 0, at: 1 }, 3), [0, 1, 0]);
    assert.deepEqual(pinWeights({ step: 0, weights: [2, 2] }, 2), [2, 2]);
    assert.deepEqual(forcedRow({ step: 0, weights: [1, 3] }, 2), [0.25, 0.75]);
  });
});

describe('setting weights by hand', () => {
  test('one word set to v: its pieces share v evenly, the others keep their shares of the rest', () => {
    const row = [0.1, 0.2, 0.3, 0.4];
    const out = setGroupWeight(row, { first: 1, count: 2 }, 0.6);
    close(out[1], 0.3);
    close(out[2], 0.3);
    close(out[0] / out[3], 0.1 / 0.4);
    close(sum(out), 1);
    const all = setGroupWeight(row, { first: 3, count: 1 }, 1);
    assert.deepEqual(all, [0, 0, 0, 1]);
    const none = setGroupWeight([0, 0, 1], { first: 2, count: 1 }, 0.4);
    assert.deepEqual(none.map((x) => Number(x.toFixed(6))), [0.3, 0.3, 0.4], 'the others had nothing: the rest is shared evenly');
    assert.deepEqual(setGroupWeight([1], { first: 0, count: 1 }, 0.2), [1], 'a single position keeps everything');
    assert.deepEqual(setGroupWeight([0.5, 0.5], { first: 0, count: 1 }, 7), [1, 0], 'v is clamped to [0, 1]');
    assert.deepEqual(setGroupWeight([0.5, 0.5], { first: 0, count: 1 }, NaN), [0, 1]);
  });

  test('rounded as the link keeps them; total variation and what changed at a level', () => {
    assert.deepEqual(roundWeights([1 / 3, 2 / 3, -1e-9]), [0.3333, 0.6667, 0]);
    close(totalVariation([0.5, 0.5, 0], [0, 0, 1]), 1);
    close(totalVariation([0.2, 0.8], [0.2, 0.8]), 0);
    close(totalVariation([0.7, 0.3], [0.2, 0.8]), 0.5);
    const words = [{ text: 'The', first: 0, count: 1 }, { text: 'cat', first: 1, count: 2 }, { text: 'sat', first: 3, count: 1 }];
    assert.deepEqual(groupRow([0.1, 0.2, 0.3, 0.4], words).map((x) => Number(x.toFixed(6))), [0.1, 0.5, 0.4]);
    const ch = pinChange([0.1, 0.2, 0.3, 0.4], [0, 0, 0, 1], words);
    assert.equal(ch.from, 1, 'before: most on “cat” (0.5)');
    assert.equal(ch.to, 2);
    assert.equal(ch.oneHot, 2);
    close(ch.hadThere, 0.4);
    close(ch.tv, 0.6);
    assert.equal(pinChange([0.5, 0.5, 0, 0], [0.25, 0.25, 0.25, 0.25], words).oneHot, -1);
  });
});

describe('the word-level diff', () => {
  // The edit distance by plain recursion, to check the table against.
  const naive = (a, b) => (a.length === 0 ? b.length : b.length === 0 ? a.length
    : a[0] === b[0] ? naive(a.slice(1), b.slice(1))
      : 1 + Math.min(naive(a.slice(1), b.slice(1)), naive(a.slice(1), b), naive(a, b.slice(1))));

  test('same, replaced, dropped, added', () => {
    const same = diffWords(['le', 'chat'], ['le', 'chat']);
    assert.equal(same.distance, 0);
    assert.deepEqual(same.changedB, [false, false]);
    const sub = diffWords(['Fermez', 'le', 'fichier', 'et', 'ouvrez', 'la', 'fenêtre'], ['Fermez', 'le', 'fichier', 'et', 'fermer', 'la', 'fenêtre']);
    assert.equal(sub.distance, 1);
    assert.deepEqual(sub.changedA, [false, false, false, false, true, false, false]);
    assert.deepEqual(sub.changedB, [false, false, false, false, true, false, false]);
    assert.deepEqual(sub.ops.map((o) => o.op), ['same', 'same', 'same', 'same', 'sub', 'same', 'same']);
    const del = diffWords(['a', 'b', 'c'], ['a', 'c']);
    assert.equal(del.distance, 1);
    assert.deepEqual(del.changedA, [false, true, false]);
    assert.deepEqual(del.changedB, [false, false]);
    const ins = diffWords(['a', 'c'], ['a', 'b', 'c']);
    assert.equal(ins.distance, 1);
    assert.deepEqual(ins.changedB, [false, true, false]);
    assert.equal(diffWords([], ['x', 'y']).distance, 2);
    assert.equal(diffWords(['x'], []).distance, 1);
    assert.equal(diffWords([], []).distance, 0);
  });

  test('the distance is the edit distance, and the ops account for every word once', () => {
    let seed = 7;
    const rand = (n) => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed % n; };
    for (let k = 0; k < 300; k++) {
      const a = Array.from({ length: rand(7) }, () => 'abc'[rand(3)]);
      const b = Array.from({ length: rand(7) }, () => 'abc'[rand(3)]);
      const d = diffWords(a, b);
      assert.equal(d.distance, naive(a, b), `${a} / ${b}`);
      assert.deepEqual(d.ops.filter((o) => o.a != null).map((o) => o.a), a.map((_, i) => i));
      assert.deepEqual(d.ops.filter((o) => o.b != null).map((o) => o.b), b.map((_, i) => i));
      assert.equal(d.ops.filter((o) => o.op !== 'same').length, d.distance);
      for (const o of d.ops) if (o.op === 'same') assert.equal(a[o.a], b[o.b]);
    }
  });

  test('a translation’s words and its text cut around them', () => {
    const enc = new TextEncoder();
    const text = "l'icône fenêtre.";
    const span = (s) => { const i = text.indexOf(s); return [enc.encode(text.slice(0, i)).length, enc.encode(text.slice(0, i + s.length)).length]; };
    const pieces = ['l', "'", 'ic', 'ône', 'fenêtre', '.'];
    let from = 0;
    const target = pieces.map((p, t) => {
      const i = text.indexOf(p, from); from = i + p.length;
      const [byteStart, byteEnd] = [enc.encode(text.slice(0, i)).length, enc.encode(text.slice(0, i + p.length)).length];
      return { text: p, isEnd: false, byteStart, byteEnd, word: [0, 1, 2, 2, 3, 4][t] };
    });
    target.push({ text: '', isEnd: true, byteStart: enc.encode(text).length, byteEnd: enc.encode(text).length });
    const trace = {
      translation: text, target,
      targetWords: [{ text: 'l', first: 0, count: 1 }, { text: "'", first: 1, count: 1 }, { text: 'icône', first: 2, count: 2 }, { text: 'fenêtre', first: 4, count: 1 }, { text: '.', first: 5, count: 1 }, { text: '</s>', isEnd: true, first: 6, count: 1 }],
    };
    assert.deepEqual(span('fenêtre'), [target[4].byteStart, target[4].byteEnd]);
    assert.deepEqual(translationWords(trace), ['l', "'", 'icône', 'fenêtre', '.']);
    const seg = translationSegments(trace);
    assert.equal(seg.map((s) => s.text).join(''), text, 'the text as it was, spaces and all');
    assert.deepEqual(seg.filter((s) => s.word != null).map((s) => [s.word, s.text]), [[0, 'l'], [1, "'"], [2, 'icône'], [3, 'fenêtre'], [4, '.']]);
    const noSpans = { ...trace, target: trace.target.map(({ byteStart, byteEnd, ...p }) => p) };
    assert.equal(translationSegments(noSpans).map((s) => s.text).join(''), "l ' icône fenêtre .");
  });
});

describe('the controller', () => {
  // A store as ui.js has it, as far as controllers/pin.js reads it.
  const storeWith = (extra) => createStore({ ...defaultShareState(), sentence: SENTENCE, notices: {}, trace: null, info: null, translated: null, pinned: null, ...extra });
  // What a result of the main translation puts in the store (controllers/translation.js).
  const result = (trace) => ({ trace, translated: { sentence: trace.text, part: null } });
  const settle = () => new Promise((r) => setTimeout(r, 0));
  async function until(fn, what) {
    for (let i = 0; i < 200; i++) { if (fn()) return; await settle(); }
    assert.fail(`timed out waiting for ${what}`);
  }

  let engine = null;
  let info = null;
  const SENTENCE = 'Close the selected file and open the window.';
  async function real() {
    if (!engine) {
      engine = await createEngine({ variant: 'scalar' });
      const catalog = JSON.parse(fs.readFileSync(path.join(REPO, 'models', 'index.json'), 'utf8'));
      const entry = catalog.models.find((m) => m.id === catalog.default);
      info = engine.load(new Uint8Array(fs.readFileSync(path.join(REPO, 'models', entry.file))));
    }
    return { engine, info, trace: engine.translate(SENTENCE, { scoreScale: info.trainedScoreScale, topK: 5 }) };
  }
  // A client whose decode() is the engine in this process (what the worker does).
  const engineClient = (calls) => ({
    decode(params) { calls.push(params); return Promise.resolve({ trace: engine.translate(params.text, params), workerMs: 0 }); },
  });

  test('a pin re-decodes the same text at the same scale; the pinned step’s α is the forced row, the steps before it are the same', async () => {
    const { trace } = await real();
    const calls = [];
    const store = storeWith({ trace, info });
    const ctl = createPin(store, { client: engineClient(calls) });
    const words = sourceWords(trace);
    const step = 4;
    const row = Array.from(trace.alpha.subarray(step * trace.S, (step + 1) * trace.S));
    const weights = roundWeights(setGroupWeight(row, words[0], 1));
    ctl.set({ step, weights });
    await until(() => store.get().pinned?.result, 'the pinned result');
    assert.equal(calls.length, 1);
    assert.equal(calls[0].text, trace.text);
    assert.equal(calls[0].scoreScale, trace.scoreScale, 'the main trace’s own multiplier');
    assert.deepEqual(calls[0].overrides, [{ step, weights }]);
    const r = store.get().pinned.result;
    const forced = forcedRow({ step, weights }, trace.S);
    for (let j = 0; j < trace.S; j++) close(r.alpha[step * trace.S + j], forced[j], 1e-6);
    for (let t = 0; t < step; t++) assert.equal(r.target[t].id, trace.target[t].id, `step ${t} is before the pin: unchanged`);
    for (let k = 0; k < step * trace.S; k++) assert.equal(r.alpha[k], trace.alpha[k]);
    assert.equal(store.get().pinned.busy, false);
    assert.equal(store.get().pinned.error, null);

    // The same pin again asks nothing; another pin asks once more; no pin clears the result.
    ctl.set({ step, weights: weights.slice() });
    await settle();
    assert.equal(calls.length, 1);
    ctl.set({ step: 0, at: 1 });
    await until(() => samePin(store.get().pinned?.resultPin, { step: 0, at: 1 }), 'the second pin');
    assert.equal(calls.length, 2);
    ctl.clear();
    await settle();
    assert.equal(store.get().pinned, null);
    ctl.destroy();
  });

  test('requests while one is in flight: only the latest pin is decoded next', async () => {
    const { trace } = await real();
    const calls = [];
    let release = null;
    const client = { decode(params) { calls.push(params); return new Promise((r) => { release = () => r({ trace: engine.translate(params.text, params) }); }); } };
    const store = storeWith({ trace, info });
    const ctl = createPin(store, { client });
    ctl.set({ step: 1, at: 0 });
    await until(() => calls.length === 1, 'the first request');
    ctl.set({ step: 1, at: 1 });
    ctl.set({ step: 1, at: 2 });
    ctl.set({ step: 1, at: 3 });
    await settle();
    assert.equal(calls.length, 1, 'nothing more while one is in flight');
    assert.equal(store.get().pinned.busy, true);
    release();
    await until(() => calls.length === 2, 'the latest request');
    assert.equal(calls[1].overrides[0].weights[3], 1, 'the latest pin, not the ones between');
    release();
    await until(() => store.get().pinned?.busy === false, 'the result');
    assert.ok(samePin(store.get().pinned.resultPin, { step: 1, at: 3 }));
    ctl.destroy();
  });

  test('an engine error is said and the previous result is kept', async () => {
    const { trace } = await real();
    let fail = false;
    const client = {
      decode(params) {
        if (fail) return Promise.reject(Object.assign(new Error('alignscope: forced attention weights must be finite'), { code: 'AS_ERR_BAD_ATTENTION_OVERRIDE' }));
        return Promise.resolve({ trace: engine.translate(params.text, params) });
      },
    };
    const store = storeWith({ trace, info });
    const ctl = createPin(store, { client });
    ctl.set({ step: 2, at: 0 });
    await until(() => store.get().pinned?.result, 'the first result');
    const first = store.get().pinned.result;
    fail = true;
    ctl.set({ step: 2, at: 1 });
    await until(() => store.get().pinned?.error, 'the error');
    const p = store.get().pinned;
    assert.match(p.error, /The engine refused this pin: alignscope: forced attention weights must be finite\. The result shown is the previous one\./);
    assert.equal(p.result, first, 'the previous result stays');
    assert.ok(samePin(p.resultPin, { step: 2, at: 0 }));
    assert.ok(samePin(p.errorPin, { step: 2, at: 1 }));
    ctl.destroy();
  });

  test('a pin that does not fit the translation is removed with a notice; one for another sentence quietly', async () => {
    const { trace } = await real();
    const calls = [];
    for (const [pin, why] of [
      [{ step: trace.T, at: 0 }, /pins step \d+ \(counted from 0\), but this translation has only \d+ steps/],
      [{ step: 0, weights: [1, 1] }, new RegExp(`gives 2 weights, but the model reads this sentence as ${trace.S} source positions`)],
      [{ step: 0, at: trace.S }, /puts all the weight on source position/],
    ]) {
      // As a link gives it: in the store before the translation arrives.
      const store = storeWith({ pin, info });
      const ctl = createPin(store, { client: engineClient(calls) });
      await settle();
      assert.deepEqual(store.get().pin, pin, 'kept while there is no translation to check it against');
      // A translation of another sentence (the one shown before the link's) is not the one to check it against.
      store.set(result(engine.translate('Open the file', { scoreScale: info.trainedScoreScale })));
      await settle();
      assert.deepEqual(store.get().pin, pin, 'still waiting for its own sentence');
      store.set(result(trace));
      await until(() => store.get().pin === null, 'the pin removed');
      assert.match(store.get().notices.pin, why);
      assert.equal(store.get().pinned, null);
      ctl.destroy();
    }
    assert.equal(calls.length, 0, 'nothing was sent to the engine');

    const store = storeWith({ trace, info });
    const ctl = createPin(store, { client: engineClient(calls) });
    ctl.set({ step: 1, at: 0 });
    await until(() => store.get().pinned?.result, 'the result');
    assert.equal(store.get().notices.pin, undefined);
    store.set({ sentence: 'Open the file', ...result(engine.translate('Open the file', { scoreScale: info.trainedScoreScale })) });
    await until(() => store.get().pin === null, 'the pin removed with its sentence');
    assert.equal(store.get().notices.pin, undefined, 'quietly');
    assert.equal(store.get().pinned, null);
    ctl.destroy();
  });

  test('a link’s pin waits for its sentence’s translation, then is decoded beside it', async () => {
    const { trace } = await real();
    const calls = [];
    const store = storeWith({ pin: { step: 6, at: 0 }, info });
    const ctl = createPin(store, { client: engineClient(calls) });
    store.set(result(trace));
    await until(() => store.get().pinned?.result, 'the pinned result');
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0].overrides, [{ step: 6, weights: pinWeights({ step: 6, at: 0 }, trace.S) }]);
    assert.equal(store.get().notices.pin, undefined);
    ctl.destroy();
  });

  test('a new translation of the same sentence (another scale) decodes the pin again', async () => {
    const { trace } = await real();
    const calls = [];
    const store = storeWith({ trace, info });
    const ctl = createPin(store, { client: engineClient(calls) });
    ctl.set({ step: 1, at: 0 });
    await until(() => store.get().pinned?.result, 'the result');
    const again = engine.translate(SENTENCE, { scoreScale: info.trainedScoreScale * 2, topK: 5 });
    store.set({ trace: again });
    await until(() => store.get().pinned?.for === again && !store.get().pinned.busy, 'the result beside the new trace');
    assert.equal(calls.length, 2);
    assert.equal(calls[1].scoreScale, again.scoreScale);
    ctl.destroy();
  });

  test('a load that overtakes a request is not an error', async () => {
    const { trace } = await real();
    const client = { decode() { return Promise.reject(Object.assign(new Error('superseded by a model load'), { superseded: true })); } };
    const store = storeWith({ trace, info });
    const ctl = createPin(store, { client });
    ctl.set({ step: 1, at: 0 });
    await until(() => store.get().pinned?.busy === false, 'settled');
    assert.equal(store.get().pinned.error, null);
    ctl.destroy();
  });
});
