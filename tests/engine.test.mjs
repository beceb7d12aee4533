// The JS API: encoder reuse, copies, alpha rows, errors, <unk> copying,
// display text, memory stability and dispose, on both wasm builds.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';

import {
  AlignscopeError, KINDS, VARIANTS, createEngine, fixCrc, modelBytes, simdSupported, requireBuilt, runNative,
} from './support/alsc.mjs';

requireBuilt();

const SENTENCES = ['Open the file', 'Show the new window', 'Print the Zorglub page', 'Delete the selected document!', 'save   the LAST   menu'];

function expectError(fn, code) {
  assert.throws(fn, (err) => {
    assert.ok(err instanceof AlignscopeError, String(err));
    assert.equal(err.code, code, err.message);
    assert.equal(typeof err.status, 'number');
    assert.ok(err.message.length > 5);
    return true;
  });
}

// The test model with proj_b[id] raised to the f16 maximum: every step then
// emits that token. id 1: <unk>, which the engine must replace by the
// attended source word; id 4 in a subword model: the byte token <0x00>.
function unkModel(kind, id = 1) {
  const bytes = modelBytes(kind).slice();
  const view = new DataView(bytes.buffer);
  const vt = view.getUint32(28, true);
  const projB = bytes.length - 2 * vt; // proj_b is the last tensor
  view.setUint16(projB + 2 * id, 0x7bff, true);
  return fixCrc(bytes);
}

// A model that emits only <0x00>: the display text is NUL-terminated, so a
// NUL inside it cut the translation short (strlen) and left the spans past
// its end, in the wasm API and the CLI's JSON alike (found by
// fuzz_model_load). It shows as U+FFFD, one per step.
const NUL_BYTE_TOKEN = 4; // AS_FIRST_BYTE_TOKEN + 0x00
test('the byte token <0x00> shows as U+FFFD in the CLI\'s JSON, never as a NUL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'alignscope-nul-'));
  try {
    const file = join(dir, 'nul.alsc');
    writeFileSync(file, unkModel('subwords', NUL_BYTE_TOKEN));
    const r = runNative(['--model', file, '--json', '--no-context', 'open the file']);
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.ok(out.target.length > 1);
    assert.ok(out.target.every((t) => t.id === NUL_BYTE_TOKEN && t.token === '<0x00>' && t.text === '\ufffd'));
    assert.equal(out.translation, '\ufffd'.repeat(out.target.length));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('simdSupported() is a boolean and true on Node 20', () => {
  assert.equal(simdSupported(), true);
});

for (const variant of VARIANTS) {
  describe(`engine (${variant})`, () => {
    test('isa matches the variant', async () => {
      const engine = await createEngine({ variant });
      assert.equal(engine.variant, variant);
      assert.equal(engine.isa, variant === 'simd' ? 'wasmsimd' : 'scalar');
    });

    test('encoder is reused when only the score scale changes, with identical results', async () => {
      const a = await createEngine({ variant });
      const b = await createEngine({ variant });
      a.load(modelBytes('additive'));
      b.load(modelBytes('additive'));
      const first = a.translate('Show the new window', { scoreScale: 1 });
      assert.equal(first.encoderReused, false);
      const sharp = a.translate('Show the new window', { scoreScale: 4 });
      assert.equal(sharp.encoderReused, true);
      assert.equal(sharp.scoreScale, 4);
      const again = a.translate('show  the NEW window', { scoreScale: 4 }); // same tokens, other text
      assert.equal(again.encoderReused, true);
      assert.equal(again.source[0].text, 'show');
      const fresh = b.translate('Show the new window', { scoreScale: 4 });
      assert.equal(fresh.encoderReused, false);
      for (const key of ['alpha', 'scores', 'context', 'state', 'topIds', 'topProbs']) {
        assert.deepEqual(sharp[key], fresh[key], key);
      }
      assert.equal(a.translate('Open the file', { scoreScale: 4 }).encoderReused, false);
    });

    test('typed arrays are copies', async () => {
      const engine = await engineFor(variant, 'additive');
      const r1 = engine.translate('Open the file');
      const saved = r1.alpha.slice();
      r1.alpha.fill(7);
      r1.context.fill(7);
      const r2 = engine.translate('Open the file');
      assert.deepEqual(r2.alpha, saved, 'mutating a result does not reach the engine');
      engine.translate('Delete the selected document!', { scoreScale: 0.25 });
      assert.deepEqual(r2.alpha, saved, 'a later call does not change an earlier result');
      for (const key of ['alpha', 'scores', 'context', 'state', 'topIds', 'topProbs']) {
        assert.notEqual(r2[key].buffer, r1[key].buffer);
        assert.ok(r2[key].buffer.byteLength < 1 << 20, `${key} is not a view of wasm memory`);
      }
    });

    test('shapes, alpha rows sum to 1, kind none has no alpha and a constant context', async () => {
      for (const kind of KINDS) {
        const engine = await engineFor(variant, kind);
        for (const text of SENTENCES) {
          const r = engine.translate(text, { topK: 3 });
          assert.equal(r.source.length, r.S);
          assert.equal(r.target.length, r.T);
          assert.equal(r.scores.length, r.T * r.S);
          assert.equal(r.context.length, r.T * r.contextDim);
          assert.equal(r.state.length, r.T * r.stateDim);
          assert.equal(r.topIds.length, r.T * 3);
          assert.equal(r.topTokens[0].length, 3);
          assert.ok(r.T <= 2 * r.S + 10);
          assert.equal(r.stoppedAtEos, r.target[r.T - 1].isEnd);
          for (let t = 0; t < r.T; t++) {
            assert.equal(r.topIds[t * 3], r.target[t].id, 'greedy = best candidate');
            assert.ok(r.topProbs[t * 3] >= r.topProbs[t * 3 + 1]);
          }
          if (kind === 'none') {
            assert.equal(r.alpha, null);
            for (let t = 1; t < r.T; t++) {
              assert.deepEqual(r.context.subarray(t * r.contextDim, (t + 1) * r.contextDim), r.context.subarray(0, r.contextDim));
            }
          } else {
            for (let t = 0; t < r.T; t++) {
              let sum = 0;
              for (let j = 0; j < r.S; j++) sum += r.alpha[t * r.S + j];
              assert.ok(Math.abs(sum - 1) < 1e-5, `row ${t} sums to ${sum}`);
            }
          }
        }
      }
    });

    test('error codes: empty input, too long, bad options, no model', async () => {
      const engine = await createEngine({ variant });
      expectError(() => engine.translate('hello'), 'AS_ERR_NULL_ARGUMENT');
      const info = engine.load(modelBytes('additive'));
      expectError(() => engine.translate(''), 'AS_ERR_EMPTY_INPUT');
      expectError(() => engine.translate('  \t\n\u00a0 '), 'AS_ERR_EMPTY_INPUT');
      const words = (n) => Array.from({ length: n }, (_, i) => (i % 2 ? 'file' : 'open')).join(' ');
      assert.equal(engine.translate(words(info.maxSourceTokens)).S, info.maxSourceTokens);
      expectError(() => engine.translate(words(info.maxSourceTokens + 1)), 'AS_ERR_INPUT_TOO_LONG');
      // cutSource: the first maxSourceTokens tokens are read, and the trace says how many the text had.
      const cut = engine.translate(words(info.maxSourceTokens + 7), { cutSource: true });
      assert.equal(cut.S, info.maxSourceTokens);
      assert.equal(cut.sourceCount, info.maxSourceTokens + 7);
      assert.equal(cut.cut, true);
      assert.equal(cut.source.at(-1).end, words(info.maxSourceTokens).length, 'the last token read ends where the first max words do');
      assert.equal(engine.beam(words(info.maxSourceTokens + 7), { cutSource: true, beamWidth: 2 }).hypotheses[0].S, info.maxSourceTokens);
      expectError(() => engine.beam(words(info.maxSourceTokens + 1), { beamWidth: 2 }), 'AS_ERR_INPUT_TOO_LONG');
      const whole = engine.translate(words(info.maxSourceTokens), { cutSource: true });
      assert.equal(whole.cut, false);
      assert.equal(whole.sourceCount, info.maxSourceTokens);
      expectError(() => engine.translate('Open the file', { topK: 17 }), 'AS_ERR_BAD_OPTION');
      expectError(() => engine.translate('Open the file', { topK: -1 }), 'AS_ERR_BAD_OPTION');
      expectError(() => engine.translate('Open the file', { scoreScale: NaN }), 'AS_ERR_BAD_OPTION');
      expectError(() => engine.translate('Open the file', { scoreScale: Infinity }), 'AS_ERR_BAD_OPTION');
      assert.equal(engine.translate('Open the file', { scoreScale: 0 }).scoreScale, info.trainedScoreScale);
      assert.equal(engine.translate('Open the file', { maxTargetTokens: 1 }).T, 1);
      assert.equal(engine.translate('Open the file', { topK: 0 }).topIds.length, 0);
      // no candidates asked: no normaliser computed, the same translation and attention
      const none = engine.translate('Delete all messages in this folder', { topK: 0 });
      const five = engine.translate('Delete all messages in this folder', { topK: 5 });
      assert.deepEqual(Array.from(none.target, (t) => t.id), Array.from(five.target, (t) => t.id));
      assert.deepEqual(none.alpha, five.alpha);
      assert.equal(five.topProbs.length, 5 * five.T);
    });

    test('<unk> outputs show the most attended source word', async () => {
      const engine = await createEngine({ variant });
      engine.load(unkModel('additive'));
      const text = 'Print the Zorglub page';
      const r = engine.translate(text);
      assert.equal(r.stoppedAtEos, false);
      assert.equal(r.T, 2 * r.S + 10);
      const words = [];
      for (let t = 0; t < r.T; t++) {
        assert.equal(r.target[t].id, 1);
        assert.equal(r.target[t].token, '<unk>');
        let best = 0;
        for (let j = 1; j < r.S; j++) if (r.alpha[t * r.S + j] > r.alpha[t * r.S + best]) best = j;
        assert.equal(r.target[t].copiedFrom, best);
        assert.equal(r.target[t].text.toLowerCase(), r.source[best].text.toLowerCase());
        words.push(r.source[best].text);
      }
      let expected = words.join(' ');
      expected = expected[0].toUpperCase() + expected.slice(1);
      assert.equal(r.translation, expected);
      // kind none has no alignment to copy from: <unk> stays
      engine.load(unkModel('none'));
      const n = engine.translate(text);
      assert.ok(n.target.every((t) => t.copiedFrom === -1 && t.text === '<unk>'));
    });

    test('the byte token <0x00> shows as U+FFFD, never as a NUL that cuts the text', async () => {
      const engine = await createEngine({ variant });
      engine.load(unkModel('subwords', NUL_BYTE_TOKEN));
      const r = engine.translate('open the file');
      assert.equal(r.stoppedAtEos, false);
      assert.ok(r.T > 1);
      assert.equal(r.translation, '\ufffd'.repeat(r.T));
      for (let t = 0; t < r.T; t++) {
        assert.equal(r.target[t].id, NUL_BYTE_TOKEN);
        assert.equal(r.target[t].token, '<0x00>');
        assert.equal(r.target[t].text, '\ufffd');
      }
      // the beam's other hypotheses mix <0x00> with other pieces
      const { hypotheses } = engine.beam('open the file', { beamWidth: 3 });
      assert.deepEqual(hypotheses[0].target.map((t) => t.id), r.target.map((t) => t.id));
      for (const h of hypotheses) {
        assert.ok(!h.translation.includes('\0'), JSON.stringify(h.translation));
        const nul = h.target.filter((t) => t.id === NUL_BYTE_TOKEN);
        assert.ok(nul.length > 0 && nul.every((t) => t.text === '\ufffd'));
        assert.ok(h.translation.split('\ufffd').length - 1 >= nul.length);
      }
      engine.dispose();
    });

    test('display text: detokenised, capitalised like the source, spans in UTF-16', async () => {
      const engine = await engineFor(variant, 'dot');
      const upper = engine.translate('Open the file');
      const lower = engine.translate('open the file');
      assert.equal(upper.translation.toLowerCase(), lower.translation.toLowerCase());
      assert.equal(upper.translation[0], upper.translation[0].toUpperCase());
      assert.equal(lower.translation[0], lower.translation[0].toLowerCase());
      assert.equal(upper.target.filter((t) => !t.isEnd).map((t) => t.text).join(' ').toLowerCase(), lower.translation.toLowerCase());
      const text = '« Ça » 😀 open\u00a0the FILE…';
      const r = engine.translate(text);
      for (const s of r.source) assert.equal(text.slice(s.start, s.end), s.text);
      assert.deepEqual(r.source.map((s) => s.token), ['"', 'ça', '"', '😀', 'open', 'the', 'file', '.', '.', '.']);
      assert.deepEqual(r.source.map((s) => s.unknown), r.source.map((s) => s.id === 1));
      assert.equal(r.source[4].id, engine.translate('open').source[0].id);
    });

    test('a second model replaces the first', async () => {
      const engine = await engineFor(variant, 'dot');
      const fresh = await engineFor(variant, 'general');
      assert.equal(engine.load(modelBytes('general')).attention, 'general');
      const r = engine.translate('Show the new window');
      assert.equal(r.encoderReused, false, 'no encoder result survives a model change');
      assert.deepEqual(r.alpha, fresh.translate('Show the new window').alpha);
    });

    test('memory does not grow over 500 translations after warm-up', async () => {
      const engine = await engineFor(variant, 'additive');
      const texts = [...SENTENCES, 'open '.repeat(100).trim(), 'x', 'Zorglub Zorglub'];
      const round = (i) => {
        const text = texts[i % texts.length];
        engine.translate(text, { scoreScale: 0.5 + (i % 4), topK: i % 6 });
        engine.tokenize(text);
        try { engine.translate(''); } catch { /* expected */ }
      };
      for (let i = 0; i < 50; i++) round(i);
      const before = engine.memoryBytes();
      for (let i = 0; i < 500; i++) round(i);
      assert.equal(engine.memoryBytes(), before);
      // reloading models does not leak either
      for (let i = 0; i < 20; i++) engine.load(modelBytes(KINDS[i % KINDS.length]));
      const afterLoads = engine.memoryBytes();
      for (let i = 0; i < 40; i++) engine.load(modelBytes(KINDS[i % KINDS.length]));
      assert.equal(engine.memoryBytes(), afterLoads);
    });

    test('dispose', async () => {
      const engine = await engineFor(variant, 'additive');
      engine.dispose();
      engine.dispose(); // twice is fine
      assert.throws(() => engine.translate('Open the file'), /disposed/);
      assert.throws(() => engine.load(modelBytes('additive')), /disposed/);
    });
  });
}

test('simd and scalar builds agree on every test model', async () => {
  for (const kind of KINDS) {
    const simd = await engineFor('simd', kind);
    const scalar = await engineFor('scalar', kind);
    for (const text of SENTENCES) {
      const a = simd.translate(text), b = scalar.translate(text);
      assert.deepEqual(a.target.map((t) => t.id), b.target.map((t) => t.id), `${kind}: ${text}`);
      assert.equal(a.translation, b.translation);
      if (a.alpha) for (let i = 0; i < a.alpha.length; i++) assert.ok(Math.abs(a.alpha[i] - b.alpha[i]) < 1e-5);
    }
  }
});

test('createEngine accepts wasmBytes and rejects unknown variants', async () => {
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { ROOT } = await import('./support/alsc.mjs');
  const bytes = readFileSync(join(ROOT, 'web', 'gen', 'alignscope-scalar.wasm'));
  const engine = await createEngine({ variant: 'scalar', wasmBytes: new Uint8Array(bytes) });
  assert.equal(engine.isa, 'scalar');
  await assert.rejects(createEngine({ variant: 'avx' }), TypeError);
});

async function engineFor(variant, kind) {
  const engine = await createEngine({ variant });
  engine.load(modelBytes(kind));
  return engine;
}

// The relaxed-SIMD build runs only where relaxed SIMD validates and its 8-bit
// dot product is right (web/engine.js relaxedSimdProblem). Node 20 without
// the flag has none; with --experimental-wasm-relaxed-simd its V8 11.3
// validates it but computes the dot product wrongly, and the build is refused
// with that reason. (Chromium runs it: tests/browser/relaxed.test.mjs.)
test('relaxed SIMD: feature detection, and a refusal that says why', async () => {
  const { spawnSync } = await import('node:child_process');
  const { pathToFileURL } = await import('node:url');
  const { join } = await import('node:path');
  const { ROOT } = await import('./support/alsc.mjs');
  const script = `const m = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'web', 'engine.js')).href)});
    let refusal = null;
    try { await m.createEngine({ variant: 'relaxed' }); } catch (e) { refusal = e.message; }
    console.log(JSON.stringify({ problem: m.relaxedSimdProblem(), best: m.bestVariant(), refusal }));`;
  for (const flags of [[], ['--experimental-wasm-relaxed-simd']]) {
    const r = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const got = JSON.parse(r.stdout);
    console.log(`# node ${flags.join(' ') || '(no flag)'}: ${JSON.stringify(got)}`);
    if (got.problem === null) {
      assert.equal(got.best, 'relaxed'); // a runtime that runs it right picks it
      continue;
    }
    assert.equal(got.best, 'simd');
    assert.ok(got.refusal.includes(got.problem), got.refusal);
    if (flags.length) assert.match(got.problem, /relaxed_dot_i8x16_i7x16_add_s wrongly|no WebAssembly relaxed SIMD/);
    else assert.match(got.problem, /no WebAssembly relaxed SIMD/);
  }
});
