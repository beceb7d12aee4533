// Bad input through the JS API (web/engine.js): every kind of text a user can
// type or paste, and files that are not (good) models. Each must end in a
// translation or a clear AlignscopeError, quickly, and leave the engine as it
// was: the same translation of a reference sentence afterwards, the same
// heap in use, the previous model still loaded after a refused file. Prints
// a table of input -> outcome. (tests/loader.test.mjs checks each loader
// rule's code; tests/c/engine_test.c runs similar cases natively under the
// sanitizers.)
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';

import {
  AlignscopeError, FORMAT_VERSION, OFF, ROOT, VARIANTS, createEngine, fixCrc, modelBytes, rawU32, requireBuilt, withU32,
} from './support/alsc.mjs';

requireBuilt();
const REAL = join(ROOT, 'models', 'en-fr.alsc');
const REFERENCE = 'Show the new window';
const TIME_LIMIT_MS = 1000; // "nothing frozen": the slowest case takes a few ms

// ---- text ---------------------------------------------------------------------
// [label, input, check(outcome, engine)]; outcome is { result } or { error }.
const tenThousand = 'Open the file. '.repeat(700).slice(0, 10_000);
const TEXT_CASES = [
  ['empty text ""', '', ({ error }) => {
    assert.equal(error?.code, 'AS_ERR_EMPTY_INPUT');
    assert.match(error.message, /no words/);
  }],
  ['only spaces, tabs, newlines', '  \t\n\u00a0 ', ({ error }) => assert.equal(error?.code, 'AS_ERR_EMPTY_INPUT')],
  ['only control characters and NUL', '\u0000\u0001\u007f', ({ error }) => assert.equal(error?.code, 'AS_ERR_EMPTY_INPUT')],
  ['only punctuation "!!! ?!"', '!!! ?!', ({ result }) => {
    assert.equal(result.S, 5);
    assert.ok(result.source.every((s) => /^[!?]$/.test(s.text)));
  }],
  ['one ellipsis "…"', '…', ({ result }) => assert.deepEqual(result.source.map((s) => s.token), ['.', '.', '.'])],
  ['10,000 characters ("Open the file. " repeated)', tenThousand, ({ error }, engine) => {
    assert.equal(error?.code, 'AS_ERR_INPUT_TOO_LONG');
    const count = engine.tokenize(tenThousand).length;
    assert.equal(error.tokenCount, count);
    assert.equal(error.maxSourceTokens, engine.info.maxSourceTokens);
    assert.ok(error.message.includes(`${count} tokens`) && error.message.includes(`at most ${engine.info.maxSourceTokens}`), error.message);
  }],
  ['one 10,000-letter word', 'a'.repeat(10_000), ({ result }) => {
    assert.equal(result.S, 1);
    assert.equal(result.source[0].unknown, true);
    assert.equal(result.source[0].text.length, 10_000);
    assert.equal(Buffer.byteLength(result.source[0].token), 255); // kept to 255 bytes
  }],
  ['exactly max_source_tokens words', null, ({ result }, engine) => assert.equal(result.S, engine.info.maxSourceTokens)],
  ['max_source_tokens + 1 words', null, ({ error }, engine) => {
    assert.equal(error?.code, 'AS_ERR_INPUT_TOO_LONG');
    assert.equal(error.tokenCount, engine.info.maxSourceTokens + 1);
  }],
  ['emoji "😀 👍🏽 open"', '😀 👍🏽 open', ({ result }) => {
    assert.deepEqual(result.source.map((s) => s.text), ['😀', '👍🏽', 'open']);
  }],
  ['Hebrew and Arabic (RTL)', 'שלום עולם مرحبا', ({ result }) => {
    assert.deepEqual(result.source.map((s) => s.text), ['שלום', 'עולם', 'مرحبا']);
    assert.ok(result.source.every((s) => s.unknown));
  }],
  ['RTL override around English', '\u202eopen the file\u202c', ({ result }) => {
    assert.deepEqual(result.source.map((s) => s.text), ['\u202e', 'open', 'the', 'file', '\u202c']);
  }],
  ['combining marks (e + U+0301), and alone', 'cafe\u0301 \u0301\u0308', ({ result }) => {
    assert.deepEqual(result.source.map((s) => s.text), ['cafe\u0301', '\u0301\u0308']);
  }],
  ['NUL bytes between words', 'open\u0000the\u0000file', ({ result }, engine) => {
    assert.equal(result.translation, engine.translate('open the file').translation);
  }],
  ['lone surrogates from a JS string', '\ud800 open \udfff', ({ result }) => {
    assert.deepEqual(result.source.map((s) => s.text), ['\ud800', 'open', '\udfff']);
    assert.deepEqual(result.source.map((s) => s.token), ['\ufffd', 'open', '\ufffd']);
  }],
  ['invalid UTF-8 bytes (tokenize, raw bytes)', Uint8Array.from([0x6f, 0x70, 0x65, 0x6e, 0x20, 0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80]),
    ({ result }) => {
      // each invalid byte is one U+FFFD, a word character: 0xFF 0xC3 make one word
      assert.deepEqual(result.map((t) => t.token), ['open', '\ufffd\ufffd', '(', '\ufffd\ufffd\ufffd']);
      assert.deepEqual(result.map((t) => [t.byteStart, t.byteEnd]), [[0, 4], [5, 7], [7, 8], [8, 11]]);
    }],
  ['words never seen in training', 'Print the Zorglub page', ({ result }) => {
    const z = result.source.find((s) => s.text === 'Zorglub');
    assert.equal(z.unknown, true);
    assert.equal(z.token, 'zorglub');
    for (const t of result.target) if (t.id === 1) assert.equal(t.text, result.source[t.copiedFrom].text);
  }],
  ['not a string (a number)', 42, ({ error }) => assert.ok(error instanceof TypeError)],
  ['score scale 1e30 (fuzzer finding)', { text: 'Open the file', scoreScale: 1e30 }, ({ error }) => {
    assert.equal(error?.code, 'AS_ERR_BAD_OPTION');
    assert.match(error.message, /at most 1e6/);
  }],
  ['score scale 1e6, the largest allowed', { text: 'Open the file', scoreScale: 1e6 }, ({ result }) => {
    assert.ok(result.alpha.every(Number.isFinite));
  }],
];

function runText(engine, input) {
  try {
    if (input instanceof Uint8Array) return { result: engine.tokenize(input) };
    if (input && typeof input === 'object') return { result: engine.translate(input.text, { scoreScale: input.scoreScale }) };
    return { result: engine.translate(input) };
  } catch (error) {
    return { error };
  }
}

function describeOutcome({ result, error }) {
  if (error) return `${error instanceof AlignscopeError ? error.code : error.name}: ${error.message}`;
  if (Array.isArray(result)) return `${result.length} tokens: ${result.map((t) => JSON.stringify(t.token)).join(' ')}`;
  const unknown = result.source.filter((s) => s.unknown).length;
  return `translated (${result.S} tokens, ${unknown} unknown): ${JSON.stringify(result.translation)}`;
}

// ---- model files ----------------------------------------------------------------
function fileCases() {
  const good = modelBytes('additive');
  const vocabTextByte = 96 + 1 + 5 + 1 + 5 + 1 + 3 + 1 + 4 + 1; // first byte of the first ordinary token
  const corrupt = good.slice();
  corrupt[vocabTextByte] = 0x01; // a control byte inside a token
  const tokenLength = good.slice();
  tokenLength[96 + 6] = 200; // "<unk>" claims 200 bytes
  const png = new Uint8Array(512);
  png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  const enc = (s) => new TextEncoder().encode(s);
  return [
    ['a PNG image', png, 'AS_ERR_BAD_MAGIC'],
    ['a text file', enc('Open the file\nShow the new window\n'), 'AS_ERR_BAD_MAGIC'],
    ['an HTML error page', enc('<!DOCTYPE html><html><body>404 Not Found</body></html>'), 'AS_ERR_BAD_MAGIC'],
    ['the model, gzip-compressed', new Uint8Array(gzipSync(good)), 'AS_ERR_BAD_MAGIC'],
    ['the engine\'s own .wasm', new Uint8Array(readFileSync(join(ROOT, 'web', 'gen', 'alignscope-scalar.wasm'))), 'AS_ERR_BAD_MAGIC'],
    ['an empty file', new Uint8Array(0), 'AS_ERR_TOO_SHORT'],
    ['the model cut in half', good.subarray(0, good.length >> 1), 'AS_ERR_SIZE_MISMATCH'],
    [`format version ${FORMAT_VERSION + 1} (newer)`, withU32(good, OFF.version, FORMAT_VERSION + 1), 'AS_ERR_VERSION_TOO_NEW'],
    [`format version ${FORMAT_VERSION - 1} (older: re-export)`, withU32(good, OFF.version, FORMAT_VERSION - 1), 'AS_ERR_VERSION_UNSUPPORTED'],
    ['a header bit flipped within its range (arch_flags bit 4)', rawU32(good, OFF.archFlags, 16), 'AS_ERR_CHECKSUM'],
    ['the language tags "e." -> "f2", CRC fixed', withU32(withU32(good, OFF.srcLang, 0x2e65), OFF.tgtLang, 0x3266), 'AS_ERR_BAD_HEADER'],
    ['a feature of a newer engine (arch_flags bit 8)', withU32(good, OFF.archFlags, 1 << 8), 'AS_ERR_UNKNOWN_FEATURE'],
    ['vocabulary corrupted, CRC left as is', corrupt, 'AS_ERR_CHECKSUM'],
    ['vocabulary corrupted, CRC fixed up', fixCrc(corrupt), 'AS_ERR_BAD_VOCABULARY'],
    ['vocabulary token length corrupted, CRC fixed up', fixCrc(tokenLength), 'AS_ERR_BAD_VOCABULARY'],
  ];
}

// ---- the runs ---------------------------------------------------------------------
const rows = [];

for (const variant of VARIANTS) {
  test(`bad text: a translation or a clear error, nothing lost, nothing frozen (${variant})`, async () => {
    const engine = await createEngine({ variant });
    const info = engine.load(modelBytes('additive'));
    const words = (n) => Array.from({ length: n }, (_, i) => (i % 2 ? 'file' : 'open')).join(' ');
    const reference = engine.translate(REFERENCE).translation;
    engine.tokenize('x');
    const heap = engine.heapBytes();
    for (const [label, raw, check] of TEXT_CASES) {
      const input = raw ?? words(label.includes('+ 1') ? info.maxSourceTokens + 1 : info.maxSourceTokens);
      const t0 = performance.now();
      const outcome = runText(engine, input);
      const ms = performance.now() - t0;
      if (outcome.error && !(outcome.error instanceof AlignscopeError) && !(outcome.error instanceof TypeError)) throw outcome.error;
      check(outcome, engine);
      assert.ok(ms < TIME_LIMIT_MS, `${label}: ${ms.toFixed(0)} ms`);
      assert.equal(engine.translate(REFERENCE).translation, reference, `${label}: the engine changed`);
      engine.tokenize('x');
      assert.equal(engine.heapBytes(), heap, `${label}: heap in use changed`);
      if (variant === 'simd') rows.push(['text', label, describeOutcome(outcome), ms]);
    }
  });

  test(`bad model files: refused with a clear message, previous model kept (${variant})`, async () => {
    const engine = await createEngine({ variant });
    engine.load(modelBytes('dot'));
    const reference = engine.translate(REFERENCE).translation;
    for (const [label, bytes, code] of fileCases()) {
      const t0 = performance.now();
      let error;
      try { engine.load(bytes); } catch (e) { error = e; }
      const ms = performance.now() - t0;
      assert.ok(error instanceof AlignscopeError, `${label}: ${error}`);
      assert.equal(error.code, code, `${label}: ${error.message}`);
      assert.ok(error.message.length > 20);
      assert.equal(engine.info.attention, 'dot', `${label}: the previous model was replaced`);
      assert.equal(engine.translate(REFERENCE).translation, reference, `${label}: the previous model changed`);
      if (variant === 'simd') rows.push(['file', label, `${error.code}: ${error.message}`, ms]);
    }
  });
}

// Found while writing these tests: 16.7 M tokens made asw_tokenize's buffer
// size n * 256 wrap in wasm32's 32-bit size_t, and the tokeniser wrote past a
// 256-byte buffer ("memory access out of bounds", after corrupting the heap).
test('a 33 MB text for tokenize(): a clear error, not a write past the buffer', async () => {
  const engine = await createEngine({ variant: 'simd' });
  engine.load(modelBytes('additive'));
  const reference = engine.translate(REFERENCE).translation;
  const text = 'a '.repeat((1 << 24) + 1);
  const t0 = performance.now();
  let error;
  try { engine.tokenize(text); } catch (e) { error = e; }
  const ms = performance.now() - t0;
  assert.ok(error instanceof AlignscopeError, String(error));
  assert.equal(error.code, 'AS_ERR_OUT_OF_MEMORY');
  assert.equal(engine.translate(REFERENCE).translation, reference);
  rows.push(['text', `tokenize() of ${(text.length / 1e6).toFixed(1)} M characters (16.8 M tokens)`, `${error.code}: ${error.message}`, ms]);
});

test('the real model: unknown words are copied, 10,000 characters refused with the count', async (t) => {
  if (!existsSync(REAL)) {
    t.skip('models/en-fr.alsc not present (./build.sh model makes it)');
    return;
  }
  const engine = await createEngine({ variant: 'simd' });
  const info = engine.load(new Uint8Array(readFileSync(REAL)));
  for (const text of ['Print the Zorglub page', 'Open the Qwertyuiop file', tenThousand]) {
    const outcome = runText(engine, text);
    if (text === tenThousand) {
      assert.equal(outcome.error?.code, 'AS_ERR_INPUT_TOO_LONG');
      assert.equal(outcome.error.maxSourceTokens, info.maxSourceTokens);
    } else {
      assert.ok(outcome.result, String(outcome.error));
      for (const tk of outcome.result.target) if (tk.id === 1) assert.equal(tk.text, outcome.result.source[tk.copiedFrom].text);
    }
    rows.push(['en-fr', text.length > 40 ? `${text.slice(0, 20)}… (${text.length} chars)` : text, describeOutcome(outcome), 0]);
  }
});

test('print the table', () => {
  const cell = (s) => s.replace(/\|/g, '\\|').replace(/[\u0000-\u001f\u007f\u202e\u202c]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  console.log('# | kind | input | outcome (simd; scalar identical) |');
  console.log('# |---|---|---|');
  for (const [kind, label, outcome] of rows) {
    const short = outcome.length > 160 ? `${outcome.slice(0, 157)}...` : outcome;
    console.log(`# | ${kind} | ${cell(label)} | ${cell(short)} |`);
  }
  assert.ok(rows.length >= TEXT_CASES.length);
});
