// "Bring your own model": a model of the PyTorch seq2seq tutorial's
// architecture (tests/support/tutorial_model.py: trained on the toy corpus,
// saved as models/train/convert_tutorial.py's docstring says, converted; run
// by ./build.sh models) in the engine. Parity with PyTorch on the simd, scalar
// and native builds is in parity.test.mjs (test-models/tutorial and
// tutorial-int8); here: the same words as the tutorial's own evaluate(), the
// format-3 flags in the loader, the appended </s> in the trace, and the
// tutorial's tokeniser against its Python original.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { DEFINITIONS } from '../web/engine.js';

import {
  AlignscopeError, FORMAT_VERSION, OFF, PYTHON, ROOT, TEST_MODELS, VARIANTS, createEngine, fixCrc, modelBytes, readU32, requireBuilt,
  runNative, withU32,
} from './support/alsc.mjs';

requireBuilt();
const TUTORIAL = join(TEST_MODELS, 'tutorial.alsc');
if (!existsSync(TUTORIAL) || !existsSync(join(TEST_MODELS, 'tutorial.meta.json'))) {
  throw new Error(`${TUTORIAL} is missing: run ./build.sh models`);
}
const tutorial = modelBytes('tutorial');
const meta = JSON.parse(readFileSync(join(TEST_MODELS, 'tutorial.meta.json'), 'utf8'));
const FLAGS = { unidirectional: 1, initFromEncoder: 2, attentionBias: 4, directOutput: 8, sourceEos: 16, tutorialTokenizer: 32 };
const ALL_FLAGS = 63;
const FLAGS_SUBWORDS = DEFINITIONS.ARCH_FLAGS.subwords; // AS_ARCH_SUBWORDS, engine.js's checked copy

function refused(engine, bytes, code, fragment, label) {
  assert.throws(() => engine.load(bytes), (err) => {
    assert.ok(err instanceof AlignscopeError, `${label}: ${err}`);
    assert.equal(err.code, code, `${label}: got ${err.code} (${err.message})`);
    assert.ok(err.message.toLowerCase().includes(fragment), `${label}: "${err.message}" lacks "${fragment}"`);
    return true;
  }, label);
}

for (const variant of VARIANTS) {
  describe(`tutorial model (${variant} wasm)`, () => {
    let engine;
    before(async () => { engine = await createEngine({ variant }); });

    test('loads as the current format with all six tutorial arch_flags', () => {
      const info = engine.load(tutorial);
      assert.equal(info.formatVersion, FORMAT_VERSION);
      assert.equal(info.archFlags, ALL_FLAGS);
      assert.deepEqual(info.architecture, { ...Object.fromEntries(Object.keys(FLAGS).map((k) => [k, true])), subwords: false, layerNorm: false });
      assert.equal(info.tokenizer, 'tutorial');
      assert.equal(info.attention, 'additive');
      assert.equal(info.weightType, 'f32');
      assert.equal(info.encoderHidden, meta.hidden);
      assert.equal(info.contextDim, meta.hidden); // unidirectional: C = He
      assert.equal(info.maxTargetTokens, 10);     // the tutorial's MAX_LENGTH
      assert.equal(info.srcVocabSize, meta.source_words + 2);
      assert.equal(info.tgtVocabSize, meta.target_words + 2);
    });

    test("the words of the tutorial's own evaluate()", () => {
      engine.load(tutorial);
      assert.ok(meta.tutorial_evaluate_matches.length >= 3, 'tutorial_model.py compared at least 3 sentences');
      for (const { text, words } of meta.tutorial_evaluate_matches) {
        const r = engine.translate(text);
        assert.deepEqual(r.target.map((w) => (w.isEnd ? '<EOS>' : w.token)), words, text);
      }
    });

    test('the appended </s> is a labelled source position', () => {
      engine.load(tutorial);
      const text = 'Print the Zorglub page';
      const r = engine.translate(text, { topK: 16 });
      assert.equal(r.S, 5, 'four words + </s>');
      const last = r.source[r.S - 1];
      assert.deepEqual([last.text, last.token, last.id, last.isEnd, last.start, last.end], ['</s>', '</s>', 3, true, text.length, text.length]);
      assert.deepEqual(r.source.slice(0, -1).map((w) => [w.text, w.isEnd]), [['Print', false], ['the', false], ['Zorglub', false], ['page', false]]);
      assert.ok(r.source[2].unknown, 'Zorglub is <unk>');
      for (let t = 0; t < r.T; t++) {
        const row = r.alpha.subarray(t * r.S, (t + 1) * r.S);
        assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-5, `alpha row ${t} sums to 1 over the S positions`);
        // <pad> and <unk> are never candidates (bias -10000)
        const top = Array.from(r.topIds.subarray(t * r.topK, (t + 1) * r.topK));
        assert.ok(!top.includes(0) && !top.includes(1), `step ${t} candidates ${top}`);
      }
      // the encoder cache keys on the ids with </s>: a slider move reuses it
      assert.equal(engine.translate(text, { scoreScale: 4 }).encoderReused, true);
      // tokenize() (the page's live preview) lists the words only
      assert.deepEqual(engine.tokenize(text).map((t) => t.token), ['print', 'the', 'zorglub', 'page']);
    });

    test('max_source_tokens counts the words, not the </s>', () => {
      const info = engine.load(tutorial);
      const words = (n) => Array.from({ length: n }, () => 'open').join(' ');
      assert.equal(engine.translate(words(info.maxSourceTokens)).S, info.maxSourceTokens + 1);
      assert.throws(() => engine.translate(words(info.maxSourceTokens + 1)), (err) => {
        assert.equal(err.code, 'AS_ERR_INPUT_TOO_LONG');
        assert.equal(err.tokenCount, info.maxSourceTokens + 1);
        return true;
      });
      assert.throws(() => engine.translate(' .,;: '), (err) => err.code === 'AS_ERR_EMPTY_INPUT');
    });

    test('clearing source_eos or tutorial_tokenizer changes just that', () => {
      engine.load(withU32(tutorial, OFF.archFlags, ALL_FLAGS & ~FLAGS.sourceEos));
      const r = engine.translate('Open the file');
      assert.equal(r.S, 3);
      assert.ok(!r.source.some((w) => w.isEnd));
      const info = engine.load(withU32(tutorial, OFF.archFlags, ALL_FLAGS & ~FLAGS.tutorialTokenizer));
      assert.equal(info.tokenizer, 'alignscope');
      assert.deepEqual(engine.tokenize('what?! x.y').map((t) => t.token), ['what', '?', '!', 'x', '.', 'y']);
    });

    test('refuses unknown bits, bad combinations, truncation, old versions', () => {
      engine.load(tutorial);
      const before = engine.translate('Open the file').translation;
      for (const bit of [8, 9, 31]) {
        refused(engine, withU32(tutorial, OFF.archFlags, ALL_FLAGS | 2 ** bit), 'AS_ERR_UNKNOWN_FEATURE', 'feature', `bit ${bit}`);
      }
      // layer_norm (bit 7) on the tutorial's biased GRUs: its tensors no longer add up
      refused(engine, withU32(tutorial, OFF.archFlags, ALL_FLAGS | 128), 'AS_ERR_BAD_HEADER', 'header', 'layer_norm on biases');
      // subword pieces and the tutorial's tokeniser exclude each other
      refused(engine, withU32(tutorial, OFF.archFlags, ALL_FLAGS | 64), 'AS_ERR_BAD_HEADER', 'header', 'subwords + tutorial');
      // a flag that changes which tensors exist: tensor_bytes no longer adds up
      for (const name of ['unidirectional', 'initFromEncoder', 'attentionBias', 'directOutput']) {
        refused(engine, withU32(tutorial, OFF.archFlags, ALL_FLAGS & ~FLAGS[name]), 'AS_ERR_BAD_HEADER', 'header', `without ${name}`);
      }
      refused(engine, withU32(tutorial, OFF.version, 4), 'AS_ERR_VERSION_UNSUPPORTED', 're-export', 'a version 4 file');
      // the rules, with sizes that would add up
      const dot = modelBytes('dot');
      refused(engine, withU32(dot, OFF.archFlags, FLAGS.attentionBias), 'AS_ERR_BAD_HEADER', 'header', 'attention biases on dot');
      const additive = modelBytes('additive'); // f16, He 20, Hd 24, O 20
      const [he, hd] = [readU32(additive, OFF.encHidden), readU32(additive, OFF.decHidden)];
      assert.notEqual(he, hd);
      const noInit = withU32(withU32(additive, OFF.archFlags, FLAGS.initFromEncoder), OFF.tensorBytes,
        readU32(additive, OFF.tensorBytes) - 2 * (hd * he + hd));
      refused(engine, noInit, 'AS_ERR_BAD_HEADER', 'header', 'init_from_encoder with Hd != He');
      const noOut = withU32(withU32(additive, OFF.archFlags, FLAGS.directOutput), OFF.outDim, hd + 1);
      refused(engine, noOut, 'AS_ERR_BAD_HEADER', 'header', 'direct_output with O != Hd');
      const tOff = (96 + readU32(tutorial, OFF.vocabBytes) + 3) & ~3;
      for (const cut of [95, 96, tOff, tOff + 4, tutorial.length - 4, tutorial.length - 1]) {
        refused(engine, tutorial.subarray(0, cut), cut < 96 ? 'AS_ERR_TOO_SHORT' : 'AS_ERR_SIZE_MISMATCH',
          cut < 96 ? 'too short' : 'length', `cut at ${cut}`);
      }
      const flipped = tutorial.slice();
      flipped[tutorial.length - 3] ^= 0x40; // in the last bias (the -10000 region is at the start of proj_b)
      refused(engine, flipped, 'AS_ERR_CHECKSUM', 'crc', 'tensor byte flipped');
      const nan = fixCrc(new Uint8Array([...tutorial.subarray(0, tutorial.length - 4), 0x00, 0x00, 0xc0, 0x7f]));
      refused(engine, nan, 'AS_ERR_BAD_WEIGHTS', 'non-finite', 'NaN in proj_b');
      assert.equal(engine.translate('Open the file').translation, before, 'a failed load keeps the model');
      // the committed model, if present
      const committed = join(ROOT, 'models', 'en-fr.alsc');
      if (existsSync(committed)) {
        const bytes = new Uint8Array(readFileSync(committed));
        const info = engine.load(bytes);
        assert.equal(info.formatVersion, readU32(bytes, OFF.version));
        // our own architecture: no tutorial flags; a subword model has the subwords bit alone
        assert.equal(info.archFlags & ~FLAGS_SUBWORDS, 0);
        assert.equal(info.architecture.subwords, (readU32(bytes, OFF.archFlags) & FLAGS_SUBWORDS) !== 0);
      }
    });
  });
}

describe('tutorial model (native CLI)', () => {
  test('the table labels the </s> column; --json marks it', () => {
    const text = runNative(['--model', TUTORIAL, 'Open the file']);
    assert.equal(text.status, 0, text.stderr);
    const header = text.stdout.split('\n').find((l) => l.includes('Open'));
    assert.match(header, /Open\s+the\s+file\s+<\/s>/);
    const json = runNative(['--model', TUTORIAL, '--json', 'Open the file']);
    assert.equal(json.status, 0, json.stderr);
    const r = JSON.parse(json.stdout);
    assert.equal(r.source_eos, 1);
    assert.deepEqual(r.source.map((s) => s.token), ['open', 'the', 'file', '</s>']);
    assert.deepEqual(r.source_ids.at(-1), 3);
    const bad = runNative(['--model', join(TEST_MODELS, 'nope.alsc'), 'x']);
    assert.equal(bad.status, 1);
  });
});

test('convert_tutorial.py explains what is wrong with a checkpoint it cannot convert', () => {
  // One Python process (torch loads once): damaged copies of the test
  // checkpoint, each converted by convert_tutorial.main() -> its exit message.
  const script = `
import json, os, sys, torch
checkpoint, tmp, train_dir, ours = sys.argv[1:5]
sys.path.insert(0, train_dir)
import convert_tutorial
ck = torch.load(checkpoint)
old = dict(ck, decoder={k: v for k, v in ck["decoder"].items() if not k.startswith("attention.")})
old["decoder"]["attn.weight"] = torch.zeros(10, 64)
old["decoder"]["attn_combine.weight"] = torch.zeros(32, 64)
wide = dict(ck, encoder=dict(ck["encoder"]))
wide["encoder"]["gru.weight_hh_l0"] = torch.zeros(96, 33)
# The tutorial's Lang objects saved whole (not their index2word): pickled as
# __main__.Lang, which the converter's process does not define...
class Lang:
    pass
def langs(module):
    Lang.__module__ = module
    made = []
    for words in (ck["input_lang"], ck["output_lang"]):
        lang = Lang()
        lang.name, lang.index2word, lang.word2index = "x", dict(words), {w: i for i, w in words.items()}
        made.append(lang)
    return dict(ck, input_lang=made[0], output_lang=made[1])
whole_langs = os.path.join(tmp, "lang-objects.pt")
torch.save(langs("__main__"), whole_langs)
# ... and from a module that does not exist here
import types
sys.modules["student_notebook"] = types.ModuleType("student_notebook")
sys.modules["student_notebook"].Lang = Lang
elsewhere = os.path.join(tmp, "lang-elsewhere.pt")
torch.save(langs("student_notebook"), elsewhere)
del sys.modules["student_notebook"], Lang
not_torch = os.path.join(tmp, "notes.pt")
open(not_torch, "w").write("my notes, not a checkpoint")
cases = {"ours": ours, "old": old, "no-bias": dict(ck, decoder={k: v for k, v in ck["decoder"].items() if k != "attention.Va.bias"}),
         "wide": wide, "no-vocab": {k: v for k, v in ck.items() if k != "output_lang"},
         "vocab": dict(ck, input_lang={0: "SOS", 2: "x"}), "lang-objects": whole_langs, "lang-elsewhere": elsewhere,
         "not-torch": not_torch, "missing": os.path.join(tmp, "absent.pt")}
out = {}
for name, case in cases.items():
    path = case if isinstance(case, str) else os.path.join(tmp, name + ".pt")
    if not isinstance(case, str):
        torch.save(case, path)
    target = "lang-objects.alsc" if name == "lang-objects" else "out.alsc"
    sys.argv = ["convert_tutorial.py", path, os.path.join(tmp, target), "--languages", "en,fr"]
    try:
        convert_tutorial.main()
        out[name] = None
    except SystemExit as e:
        out[name] = str(e.code)
print(json.dumps(out))
`;
  const dir = mkdtempSync(join(tmpdir(), 'alignscope-byo-'));
  try {
    const r = spawnSync(PYTHON, ['-c', script, join(TEST_MODELS, 'tutorial-checkpoint.pt'), dir,
      join(ROOT, 'models', 'train'), join(TEST_MODELS, 'run-additive', 'checkpoint.pt')], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const got = JSON.parse(r.stdout.trim().split('\n').at(-1));
    const want = {
      ours: /has no 'encoder': save it with the three lines/,
      old: /older tutorial's AttnDecoderRNN/,
      'no-bias': /decoder state_dict has no 'attention\.Va\.bias'/,
      wide: /encoder gru\.weight_hh_l0 has shape \(96, 33\), expected \(96, 32\)/,
      'no-vocab': /has no 'output_lang'/,
      vocab: /input_lang: ids must run 0\.\.1 with 0 = 'SOS', 1 = 'EOS'/,
      'lang-elsewhere': /holds a Python object this script cannot rebuild \(No module named 'student_notebook'\); save the vocabularies as plain dicts/,
      'not-torch': /is not a checkpoint that torch\.save wrote/,
      missing: /cannot read .*absent\.pt: No such file/,
    };
    for (const [name, message] of Object.entries(want)) assert.match(got[name] ?? 'converted', message, name);
    assert.ok(!existsSync(join(dir, 'out.alsc')), 'no file written for a refused checkpoint');
    // the Lang objects themselves convert, to the same file as their index2word dicts
    assert.equal(got['lang-objects'], null, `lang objects: ${got['lang-objects']}`);
    assert.deepEqual(readFileSync(join(dir, 'lang-objects.alsc')), readFileSync(join(TEST_MODELS, 'tutorial.alsc')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---- the tutorial's tokeniser against normalizeString -----------------------------

const enc = (s) => Buffer.from(s, 'utf8');
const LATIN = Array.from({ length: 0x180 - 0xc0 }, (_, i) => String.fromCodePoint(0xc0 + i));
const TRICKY = [
  enc('Je suis froid.'), enc('Vous êtes trop maigre!'), enc('what?! why?'), enc('?x y!z !!'), enc('a.b...c'),
  enc("l'ordinateur d’Anne, aujourd'hui"), enc('ÉCOLE Œuvre ŒUVRE naïve Ærø straße'), enc('  leading   trailing  '),
  enc('combining e\u0301te\u0301 a\u0308 n\u0303o \u0301lead'), enc('tab\tnew\nline\r\nend'), enc('NUL\u0000inside'),
  enc('digits 123 abc4def'), enc('emoji 😀x😀'), enc('日本語 text'), enc('İstanbul ıi Ĳssel ŀl Łódź ſ'),
  enc('—dash–en «quotes»'), enc(''), enc('   '), enc('...'), enc('a'.repeat(300) + ' b'),
  enc(LATIN.join('')), enc(LATIN.map((c) => `x${c}y`).join(' ')), enc(LATIN.map((c) => `${c}${c.toUpperCase()}`).join('')),
  Buffer.from([0x61, 0xff, 0x62]), Buffer.from([0xc3, 0x28, 0x61]), Buffer.from([0x61, 0xcc, 0x81, 0x62]),
  Buffer.from([0xe2, 0x82, 0x20, 0x78]), Buffer.from([0x61, 0xf0, 0x9f, 0x98]),
];

function pythonTokens(list) {
  const r = spawnSync(PYTHON, [join(ROOT, 'tests', 'support', 'tutorial_tokens.py')], {
    input: JSON.stringify(list.map((b) => Buffer.from(b).toString('hex'))), maxBuffer: 16 << 20,
  });
  if (r.status !== 0) throw new Error(`tutorial_tokens.py failed: ${r.stderr}`);
  return JSON.parse(r.stdout.toString('utf8'));
}

for (const variant of VARIANTS) {
  test(`tutorial tokeniser matches normalizeString + split (${variant} wasm)`, async () => {
    const engine = await createEngine({ variant });
    engine.load(tutorial);
    const expected = pythonTokens(TRICKY);
    let tokens = 0;
    const slices = [], sliceTokens = [];
    TRICKY.forEach((raw, n) => {
      const got = engine.tokenize(new Uint8Array(raw));
      const label = `case ${n} ${JSON.stringify(raw.toString('utf8').slice(0, 60))}`;
      const want = expected[n].map((w) => (Buffer.byteLength(w) > 255 ? null : w));
      assert.equal(got.length, want.length, `${label}: ${JSON.stringify(got.map((t) => t.token))} vs ${JSON.stringify(expected[n])}`);
      got.forEach((tok, i) => {
        if (want[i] !== null) assert.equal(tok.token, want[i], `${label} token ${i}`);
        else assert.equal(tok.id, 1, `${label}: an over-long token is <unk>`);
        if (i > 0) assert.ok(tok.byteStart >= got[i - 1].byteEnd, `${label}: spans in order`);
        slices.push(raw.subarray(tok.byteStart, tok.byteEnd));
        sliceTokens.push(tok.token);
        tokens++;
      });
    });
    // each span, normalised on its own, is its token: the page shows the right words
    pythonTokens(slices).forEach((t, i) => {
      if (Buffer.byteLength(sliceTokens[i]) < 255) assert.deepEqual(t, [sliceTokens[i]], `span of "${sliceTokens[i]}"`);
    });
    // Documented difference (models/FORMAT.md 5.1): letters outside U+00C0..U+017F
    // separate words here, where Python keeps their base letter.
    assert.deepEqual(engine.tokenize('vi\u1ec7t').map((t) => t.token), ['vi', 't']);
    assert.deepEqual(pythonTokens([enc('vi\u1ec7t')])[0], ['viet']);
    console.log(`# ${variant}: ${TRICKY.length} strings (all of U+00C0..U+017F), ${tokens} tokens identical to normalizeString`);
  });
}
