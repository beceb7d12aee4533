// The loader refuses every kind of bad file with the right code and message,
// and the tokeniser matches models/train/tokenize_text.py exactly.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
  AlignscopeError, FORMAT_VERSION, OFF, PYTHON, ROOT, TEST_MODELS, VARIANTS, createEngine, fixCrc, modelBytes, rawU32,
  readU32, requireBuilt, runNative, withF32, withU32,
} from './support/alsc.mjs';

requireBuilt();
const good = modelBytes('additive');
const dot = modelBytes('dot');
const vocabBytes = readU32(good, OFF.vocabBytes);
const tensorOffset = (96 + vocabBytes + 3) & ~3;

// Tensor elements an additive header implies (models/FORMAT.md section 3), exact.
function tensorElements(b) {
  const g = (off) => BigInt(readU32(b, off));
  const [vs, vt, e, he, hd, a, o] = [g(OFF.srcVocab), g(OFF.tgtVocab), g(OFF.embed), g(OFF.encHidden), g(OFF.decHidden), g(OFF.attnDim), g(OFF.outDim)];
  return vs * e + 2n * (3n * he * e + 3n * he * he + 6n * he) + hd * he + hd + a * hd + a * 2n * he + a +
    vt * e + 3n * hd * (e + 2n * he) + 3n * hd * hd + 6n * hd + o * (hd + 2n * he + e) + o + vt * o + vt;
}

// [name, bytes, expected code, message fragment]
/** Each case [name, bytes, code, message fragment] must be refused by engine.load
 * with an AlignscopeError of that code whose message contains the fragment. */
function assertAllRefused(engine, cases) {
  for (const [name, bytes, code, fragment] of cases) {
    assert.throws(() => engine.load(bytes), (err) => {
      assert.ok(err instanceof AlignscopeError, `${name}: not an AlignscopeError: ${err}`);
      assert.equal(err.code, code, `${name}: got ${err.code} (${err.message})`);
      assert.ok(err.message.toLowerCase().includes(fragment.toLowerCase()), `${name}: message "${err.message}" lacks "${fragment}"`);
      return true;
    }, name);
  }
}

function badFiles() {
  const cases = [];
  for (let cut = 0; cut < 96; cut++) cases.push([`cut at header byte ${cut}`, good.subarray(0, cut), 'AS_ERR_TOO_SHORT', 'too short']);
  for (const cut of [96, 97, 96 + (vocabBytes >> 1), tensorOffset, tensorOffset + 1, tensorOffset + 1001,
    good.length - 2, good.length - 1]) {
    cases.push([`cut at ${cut} of ${good.length}`, good.subarray(0, cut), 'AS_ERR_SIZE_MISMATCH', 'length']);
  }
  const appended = new Uint8Array(good.length + 3);
  appended.set(good);
  assert.equal(tensorElements(good) * 2n, BigInt(readU32(good, OFF.tensorBytes)), 'tensorElements() matches the file');
  cases.push(['3 appended bytes', appended, 'AS_ERR_SIZE_MISMATCH', 'extra bytes']);
  cases.push(['empty buffer', new Uint8Array(0), 'AS_ERR_TOO_SHORT', 'too short']);
  const wrongMagic = good.slice();
  wrongMagic[3] = 0x58;
  cases.push(['wrong magic', wrongMagic, 'AS_ERR_BAD_MAGIC', 'not an alignscope model']);
  const png = new Uint8Array(4096);
  png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  cases.push(['a PNG file', png, 'AS_ERR_BAD_MAGIC', 'not an alignscope model']);
  cases.push(['a text file', new TextEncoder().encode('Open the file\nShow the new window\n'), 'AS_ERR_BAD_MAGIC', 'magic']);
  cases.push([`format version ${FORMAT_VERSION + 1}`, withU32(good, OFF.version, FORMAT_VERSION + 1), 'AS_ERR_VERSION_TOO_NEW', 'newer']);
  cases.push(['format version 0xFFFFFFFF', withU32(good, OFF.version, 0xffffffff), 'AS_ERR_VERSION_TOO_NEW', 'newer']);
  cases.push(['format version 0', withU32(good, OFF.version, 0), 'AS_ERR_VERSION_UNSUPPORTED', 'version']);
  // versions 1 ... 4: their CRC left the header out, so they are refused with a way forward
  for (let v = 1; v < FORMAT_VERSION; v++) {
    cases.push([`format version ${v}`, withU32(good, OFF.version, v), 'AS_ERR_VERSION_UNSUPPORTED', 're-export it with models/train/export.py']);
    cases.push([`format version ${v}, as written then`, rawU32(good, OFF.version, v), 'AS_ERR_VERSION_UNSUPPORTED', 'migrate_format.py']);
  }
  // a header field changed within its range, CRC left as is: the CRC covers
  // the header (format 5), so each is damage (issue 34: before, each of these
  // changed the translation without a word)
  const inRange = [
    ['arch_flags bit 4 (source_eos) set', OFF.archFlags, 16], ['max_source_tokens 100 -> 36', OFF.maxSrc, 36],
    ['max_target_tokens 210 -> 82', OFF.maxTgt, 82], ['target language "fr" -> "fb"', OFF.tgtLang, 0x6266],
    ['source language "en" -> "em"', OFF.srcLang, 0x6d65],
  ];
  for (const [name, off, value] of inRange) cases.push([`${name}, CRC left as is`, rawU32(good, off, value), 'AS_ERR_CHECKSUM', 'damaged']);
  const halfScale = withF32(good, OFF.scale, 0.5);
  halfScale.set(good.subarray(OFF.crc, OFF.crc + 4), OFF.crc);
  cases.push(['trained score scale 1 -> 0.5, CRC left as is', halfScale, 'AS_ERR_CHECKSUM', 'CRC']);
  const crcField = good.slice();
  crcField[OFF.crc + 2] ^= 0x10;
  cases.push(['a bit of the crc32 field itself', crcField, 'AS_ERR_CHECKSUM', 'CRC']);
  // header fields out of range (CRC fixed: the range rule is what refuses them)
  const header = [
    ['header_size 100', OFF.headerSize, 100], ['attention kind 9', OFF.kind, 9], ['weight type 7', OFF.weightType, 7],
    ['src vocab 2^31', OFF.srcVocab, 2 ** 31], ['tgt vocab 2^32-1', OFF.tgtVocab, 2 ** 32 - 1],
    ['src vocab 4', OFF.srcVocab, 4], ['src vocab 65537', OFF.srcVocab, 65537],
    ['embed dim 0', OFF.embed, 0], ['encoder hidden 0', OFF.encHidden, 0], ['decoder hidden 4097', OFF.decHidden, 4097],
    ['attention dim 0 for additive', OFF.attnDim, 0], ['attention dim huge', OFF.attnDim, 0x7fffffff],
    ['output dim 2^32-1', OFF.outDim, 2 ** 32 - 1], ['max source 0', OFF.maxSrc, 0], ['max target 5000', OFF.maxTgt, 5000],
    ['vocab bytes 2^32-1', OFF.vocabBytes, 2 ** 32 - 1], ['vocab bytes 0', OFF.vocabBytes, 0],
    ['tensor bytes 2^32-1', OFF.tensorBytes, 2 ** 32 - 1], ['tensor bytes one short', OFF.tensorBytes, readU32(good, OFF.tensorBytes) - 2],
    ['source language control byte', OFF.srcLang, 0x01],
    // language tags: [a-z]{2,3}, then NUL (format 5; "e. -> f2" used to load)
    ['source language "e."', OFF.srcLang, 0x2e65], ['target language "f2"', OFF.tgtLang, 0x3266],
    ['source language "EN"', OFF.srcLang, 0x4e45], ['source language "e"', OFF.srcLang, 0x65],
    ['source language "engl"', OFF.srcLang, 0x6c676e65], ['source language empty', OFF.srcLang, 0],
    ['source language "e\\0n"', OFF.srcLang, 0x6e0065], ['target language byte after the NUL', OFF.tgtLang + 4, 0x61],
    ['source language "é" (UTF-8)', OFF.srcLang, 0xa9c3],
  ];
  for (const [name, off, value] of header) cases.push([name, withU32(good, off, value), 'AS_ERR_BAD_HEADER', 'header']);
  // arch_flags: an unknown bit is a newer engine's feature
  for (const bit of [8, 15, 31]) {
    cases.push([`arch_flags bit ${bit} (unknown)`, withU32(good, OFF.archFlags, 2 ** bit), 'AS_ERR_UNKNOWN_FEATURE', 'feature']);
  }
  // bit 7 (layer_norm) trades the GRU biases for gains and shifts: set on a
  // file with biases, or cleared on one without, the tensors no longer add up
  // to tensor_bytes (CRC fixed, so the sizes are what is checked)
  cases.push(['arch_flags bit 7 (layer_norm) on a file with biases', withU32(good, OFF.archFlags, 128), 'AS_ERR_BAD_HEADER', 'header']);
  const normed = modelBytes('layer-norm');
  cases.push(['arch_flags bit 7 (layer_norm) cleared on a layer-norm file', withU32(normed, OFF.archFlags, readU32(normed, OFF.archFlags) & ~128), 'AS_ERR_BAD_HEADER', 'header']);
  // bit 6 (subwords) on a word model whose 60-token vocabularies cannot hold
  // the 256 byte tokens (tests/subword.test.mjs has the rest).
  cases.push(['arch_flags bit 6 (subwords) on a word model', withU32(good, OFF.archFlags, 64), 'AS_ERR_BAD_HEADER', 'header']);
  cases.push(['dot with decoder_hidden != 2 He', withU32(dot, OFF.decHidden, readU32(dot, OFF.decHidden) + 1), 'AS_ERR_BAD_HEADER', 'header']);
  cases.push(['dot with attention_dim 8', withU32(dot, OFF.attnDim, 8), 'AS_ERR_BAD_HEADER', 'header']);
  cases.push(['score scale NaN', withF32(good, OFF.scale, NaN), 'AS_ERR_BAD_HEADER', 'header']);
  cases.push(['score scale -1', withF32(good, OFF.scale, -1), 'AS_ERR_BAD_HEADER', 'header']);
  cases.push(['score scale inf', withF32(good, OFF.scale, Infinity), 'AS_ERR_BAD_HEADER', 'header']);
  // the trained scale's range (AS_MIN/MAX_TRAINED_SCORE_SCALE, 0.001 ... 1000)
  for (const x of [0, -0, 1e-4, 0.0009, 1001, 3e38, 1e-40]) {
    cases.push([`score scale ${x}`, withF32(good, OFF.scale, x), 'AS_ERR_BAD_HEADER', 'header']);
  }
  // Consistent but enormous: every dim at its maximum and tensor_bytes set to
  // what a 32-bit size computation would wrap to. Only 64-bit arithmetic
  // notices; a 32-bit loader would go on to read far past the buffer.
  let big = withU32(withU32(withU32(good, OFF.srcVocab, 65536), OFF.tgtVocab, 65536), OFF.vocabBytes, 4 * 65536);
  for (const off of [OFF.embed, OFF.encHidden, OFF.decHidden, OFF.attnDim, OFF.outDim]) big = withU32(big, off, 4096);
  big = withU32(big, OFF.weightType, 0); // f32: 4 bytes per element
  assert.ok(tensorElements(big) * 4n > 2n ** 32n);
  const wrapped = Number((tensorElements(big) * 4n) & 0xffffffffn);
  big = withU32(big, OFF.tensorBytes, wrapped);
  cases.push(['all dims at maximum, tensor_bytes wrapped to 32 bits', big, 'AS_ERR_BAD_HEADER', 'header']);
  // a well-formed header for a model larger than the file: size check, not a crash
  const e = readU32(good, OFF.embed);
  let larger = withU32(good, OFF.embed, e + 1);
  const grow = 2 * (readU32(good, OFF.srcVocab) + readU32(good, OFF.tgtVocab) + 3 * readU32(good, OFF.decHidden) +
    readU32(good, OFF.outDim) + 3 * 2 * readU32(good, OFF.encHidden));
  larger = withU32(larger, OFF.tensorBytes, readU32(good, OFF.tensorBytes) + grow);
  cases.push(['header promises more tensors than the file has', larger, 'AS_ERR_SIZE_MISMATCH', 'length']);
  // damage after the header
  const flipped = good.slice();
  flipped[100] ^= 0x20;
  cases.push(['vocabulary byte flipped', flipped, 'AS_ERR_CHECKSUM', 'damaged']);
  const flippedTensor = good.slice();
  flippedTensor[good.length - 7] ^= 0x01;
  cases.push(['tensor byte flipped', flippedTensor, 'AS_ERR_CHECKSUM', 'CRC']);
  const control = good.slice();
  control[97] = 0x01; // inside "<pad>"
  cases.push(['control byte in vocabulary, CRC fixed', fixCrc(control), 'AS_ERR_BAD_VOCABULARY', 'vocabulary']);
  const special = good.slice();
  special[96 + 1 + 5 + 1 + 3] = 0x6a; // "<unk>" -> "<unj>"
  cases.push(['renamed special token, CRC fixed', fixCrc(special), 'AS_ERR_BAD_VOCABULARY', 'vocabulary']);
  const zeroLength = good.slice();
  zeroLength[96 + 6 + 6] = 0; // length byte of "<s>"
  cases.push(['zero token length, CRC fixed', fixCrc(zeroLength), 'AS_ERR_BAD_VOCABULARY', 'vocabulary']);
  const badUtf8 = good.slice();
  badUtf8[96 + 6 + 6 + 1] = 0xff; // first byte of "<s>"
  cases.push(['invalid UTF-8 token, CRC fixed', fixCrc(badUtf8), 'AS_ERR_BAD_VOCABULARY', 'vocabulary']);
  const overrun = good.slice();
  overrun[96] = 255; // "<pad>" claims 255 bytes: the entries no longer fit exactly
  cases.push(['token length overrun, CRC fixed', fixCrc(overrun), 'AS_ERR_BAD_VOCABULARY', 'vocabulary']);
  const nanWeight = good.slice();
  nanWeight[tensorOffset] = 0x00;
  nanWeight[tensorOffset + 1] = 0x7e; // f16 NaN
  cases.push(['NaN weight, CRC fixed', fixCrc(nanWeight), 'AS_ERR_BAD_WEIGHTS', 'non-finite']);
  const infWeight = good.slice();
  infWeight[good.length - 2] = 0x00;
  infWeight[good.length - 1] = 0xfc; // f16 -inf, the last tensor element
  cases.push(['-inf weight, CRC fixed', fixCrc(infWeight), 'AS_ERR_BAD_WEIGHTS', 'non-finite']);
  return cases;
}

// int8 files (models/FORMAT.md 3.1): [name, bytes, expected code, message fragment]
const int8 = modelBytes('additive-int8');
function badInt8Files() {
  const cases = [];
  const vocab = readU32(int8, OFF.vocabBytes);
  const tOff = (96 + vocab + 3) & ~3;
  const vs = readU32(int8, OFF.srcVocab), e = readU32(int8, OFF.embed);
  // the exact int8 size: 4 bytes per matrix row + 1 per matrix element + 4 per vector element
  const elements = tensorElements(int8);
  const g = (off) => BigInt(readU32(int8, off));
  const [vt, he, hd, a, o] = [g(OFF.tgtVocab), g(OFF.encHidden), g(OFF.decHidden), g(OFF.attnDim), g(OFF.outDim)];
  const vectorElements = 2n * 6n * he + hd + a + 6n * hd + o + vt;
  const matrixRows = BigInt(vs) + 2n * (6n * he) + hd + a + a + vt + 6n * hd + o + vt;
  assert.equal((elements - vectorElements) + 4n * matrixRows + 4n * vectorElements, BigInt(readU32(int8, OFF.tensorBytes)),
    'int8 tensor_bytes = rows*4 + rows*cols per matrix + 4 per vector element');
  for (const cut of [tOff, tOff + 4 * vs - 1, tOff + 4 * vs + 1, int8.length - 4 * Number(vt) - 1, int8.length - 1]) {
    cases.push([`int8 cut at ${cut} of ${int8.length}`, int8.subarray(0, cut), 'AS_ERR_SIZE_MISMATCH', 'length']);
  }
  cases.push(['int8 in a version 2 file', withU32(int8, OFF.version, 2), 'AS_ERR_VERSION_UNSUPPORTED', 're-export']);
  cases.push(['int8 with the f16 tensor_bytes', withU32(int8, OFF.tensorBytes, Number(elements * 2n)), 'AS_ERR_BAD_HEADER', 'header']);
  cases.push(['int8 with the f32 tensor_bytes', withU32(int8, OFF.tensorBytes, Number(elements * 4n)), 'AS_ERR_BAD_HEADER', 'header']);
  cases.push(['int8 tensor_bytes one short', withU32(int8, OFF.tensorBytes, readU32(int8, OFF.tensorBytes) - 1), 'AS_ERR_BAD_HEADER', 'header']);
  cases.push(['int8 tensor_bytes without the scales', withU32(int8, OFF.tensorBytes, readU32(int8, OFF.tensorBytes) - 4 * Number(matrixRows)), 'AS_ERR_BAD_HEADER', 'header']);
  // an f16 file relabelled int8: sizes disagree before any pointer is formed
  cases.push(['f16 file labelled int8', withU32(good, OFF.weightType, 2), 'AS_ERR_BAD_HEADER', 'header']);
  cases.push(['int8 file labelled f16', withU32(int8, OFF.weightType, 1), 'AS_ERR_BAD_HEADER', 'header']);
  cases.push(['int8 byte flipped', (() => { const b = int8.slice(); b[tOff + 4 * vs + 3] ^= 1; return b; })(), 'AS_ERR_CHECKSUM', 'CRC']);
  const setByte = (at, v) => { const b = int8.slice(); b[at] = v; return fixCrc(b); };
  cases.push(['int8 value -128, CRC fixed', setByte(tOff + 4 * vs + 5, 0x80), 'AS_ERR_BAD_WEIGHTS', 'non-finite']);
  cases.push(['int8 last value -128, CRC fixed', setByte(int8.length - 4 * Number(vt) - 1, 0x80), 'AS_ERR_BAD_WEIGHTS', 'non-finite']);
  const withScale = (x) => { const b = withF32(int8, tOff + 4, x); return fixCrc(b); };
  cases.push(['int8 scale NaN, CRC fixed', withScale(NaN), 'AS_ERR_BAD_WEIGHTS', 'non-finite']);
  cases.push(['int8 scale inf, CRC fixed', withScale(Infinity), 'AS_ERR_BAD_WEIGHTS', 'non-finite']);
  cases.push(['int8 scale negative, CRC fixed', withScale(-0.5), 'AS_ERR_BAD_WEIGHTS', 'non-finite']);
  const lastBias = fixCrc(withF32(int8, int8.length - 4, NaN));
  cases.push(['int8 file, f32 bias NaN, CRC fixed', lastBias, 'AS_ERR_BAD_WEIGHTS', 'non-finite']);
  assert.ok(e > 0);
  return cases;
}

for (const variant of VARIANTS) {
  describe(`loader (${variant} wasm)`, () => {
    let engine;
    before(async () => {
      engine = await createEngine({ variant });
    });

    test('loads every valid test model and reports its info', () => {
      for (const kind of ['additive', 'dot', 'general', 'scaled_dot', 'none']) {
        const info = engine.load(modelBytes(kind));
        assert.equal(info.attention, kind);
        assert.equal(info.formatVersion, FORMAT_VERSION);
        assert.equal(info.archFlags, 0);
        assert.equal(info.tokenizer, 'alignscope');
        assert.equal(info.contextDim, 2 * info.encoderHidden);
        assert.equal(info.weightType, 'f16');
        assert.equal(info.sourceLanguage, 'en');
        assert.equal(info.targetLanguage, 'fr');
        assert.ok(info.parameterCount > 1000);
      }
    });

    test('refuses bad files with the right code and message', () => {
      engine.load(good);
      const before = engine.translate('Open the file').translation;
      const cases = badFiles();
      assertAllRefused(engine, cases);
      // nothing crashed, and a failed load keeps the previous model
      assert.equal(engine.translate('Open the file').translation, before);
      console.log(`# ${variant}: ${cases.length} bad files refused`);
    });

    test('loads an int8 file and refuses bad int8 files', () => {
      const info = engine.load(int8);
      assert.equal(info.formatVersion, FORMAT_VERSION);
      assert.equal(info.weightType, 'int8');
      assert.equal(info.parameterCount, engine.load(good).parameterCount);
      engine.load(int8);
      const before = engine.translate('Open the file').translation;
      const cases = badInt8Files();
      assertAllRefused(engine, cases);
      assert.equal(engine.translate('Open the file').translation, before);
      console.log(`# ${variant}: ${cases.length} bad int8 files refused`);
    });
  });
}

// ---- every header bit (issue 34 case 6) ----------------------------------------------
// Each of the 768 single-bit flips of a test model's header must be refused
// with a clear error: never loaded, never a crash. Many flips stay inside
// their field's range (a flag bit the format allows, a smaller token limit, a
// nearby score scale, another lower-case letter); only the CRC, which covers
// the header since format 5, can tell those from the file as written.
const FLIP_MODELS = ['additive', 'dot', 'additive-int8'];

for (const variant of VARIANTS) {
  test(`every single-bit flip of the header is refused (${variant} wasm)`, async () => {
    const engine = await createEngine({ variant });
    for (const kind of FLIP_MODELS) {
      const model = modelBytes(kind);
      engine.load(model);
      const before = engine.translate('Open the file').translation;
      const codes = {};
      for (let bit = 0; bit < 96 * 8; bit++) {
        const b = model.slice();
        b[bit >> 3] ^= 1 << (bit & 7);
        let error = null;
        try {
          engine.load(b);
        } catch (e) {
          error = e;
        }
        assert.ok(error instanceof AlignscopeError, `${kind}: header bit ${bit} (byte ${bit >> 3}): loaded, or ${error}`);
        assert.ok(error.message.length > 20, `${kind} bit ${bit}: ${error.message}`);
        codes[error.code] = (codes[error.code] ?? 0) + 1;
      }
      assert.equal(engine.translate('Open the file').translation, before, `${kind}: the previous model changed`);
      assert.ok(codes.AS_ERR_CHECKSUM > 0 && codes.AS_ERR_BAD_HEADER > 0, JSON.stringify(codes));
      console.log(`# ${variant} ${kind}: 768 header bit flips refused: ${Object.entries(codes).map(([c, n]) => `${c} ${n}`).join(', ')}`);
    }
    // the in-range flips are legal files once the CRC agrees: the CRC is what catches them
    engine.load(good);
    const words = engine.translate('Open the file').S;
    assert.equal(engine.load(withU32(good, OFF.archFlags, 16)).archFlags, 16);
    assert.equal(engine.translate('Open the file').S, words + 1); // the </s> column of the issue
  });
}

test('every single-bit flip of the header is refused by the Python reader (alsc_to_torch.py)', () => {
  const script = `
import json, sys
sys.path.insert(0, "models/train")
import alsc_to_torch
out = {}
for name in sys.argv[1:]:
    data = open(name, "rb").read()
    alsc_to_torch.load_bytes(data)  # the file itself loads
    reasons, loaded = {}, []
    for bit in range(96 * 8):
        b = bytearray(data)
        b[bit >> 3] ^= 1 << (bit & 7)
        try:
            alsc_to_torch.load_bytes(bytes(b))
            loaded.append(bit)
        except alsc_to_torch.AlscError as e:
            reason = str(e).split(" (")[0].split(":")[0]
            reasons[reason] = reasons.get(reason, 0) + 1
    out[name] = {"loaded": loaded, "reasons": reasons}
print(json.dumps(out))
`;
  const files = ['additive', 'additive-int8'].map((k) => join(TEST_MODELS, `${k}.alsc`));
  const r = spawnSync(PYTHON, ['-c', script, ...files], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, OPENBLAS_NUM_THREADS: '1' } });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  for (const file of files) {
    assert.deepEqual(out[file].loaded, [], `${file}: header bits whose flip still loads`);
    const total = Object.values(out[file].reasons).reduce((a, b) => a + b, 0);
    assert.equal(total, 768);
    assert.ok(out[file].reasons['the model file is damaged'] > 0, JSON.stringify(out[file].reasons));
    console.log(`# python ${file.split('/').at(-1)}: 768 flips refused: ${JSON.stringify(out[file].reasons)}`);
  }
});

test('models/train/migrate_format.py: a version 4 file becomes the version 5 file, damage is never migrated', () => {
  const script = `
import json, struct, sys, zlib
sys.path.insert(0, "models/train")
import migrate_format as m
new = open(sys.argv[1], "rb").read()
def old(data, version=4, **edits):
    b = bytearray(data)
    struct.pack_into("<I", b, 8, version)
    for off, value in edits.get("u32", []):
        struct.pack_into("<I", b, off, value)
    struct.pack_into("<I", b, 72, zlib.crc32(bytes(b[96:])))  # the CRC of versions 1 ... 4
    return bytes(b)
out = {"same": m.migrate_bytes(old(new)) == new, "v2": m.migrate_bytes(old(new, 2)) == new,
       "current": m.migrate_bytes(new) == new, "refused": {}}
damaged = bytearray(old(new)); damaged[-3] ^= 4
cases = {"body byte flipped": bytes(damaged), "flags in a version 2 file": old(new, 2, u32=[(92, 16)]),
         "tag EN": old(new, u32=[(76, 0x4E45)]), "version 6": old(new, 6), "v5 damaged": new[:-1] + bytes([new[-1] ^ 1]),
         "cut": old(new)[:-4]}
for name, data in cases.items():
    try:
        m.migrate_bytes(data)
        out["refused"][name] = None
    except m.MigrationError as e:
        out["refused"][name] = str(e)
print(json.dumps(out))
`;
  const r = spawnSync(PYTHON, ['-c', script, join(TEST_MODELS, 'additive.alsc')], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.ok(out.same && out.v2 && out.current, JSON.stringify(out));
  for (const [name, why] of Object.entries(out.refused)) assert.ok(why, `${name}: migrated`);
  assert.match(out.refused['body byte flipped'], /old CRC-32/);
  assert.match(out.refused['tag EN'], /source_language.*re-export/);
});

describe('loader (native CLI)', () => {
  let dir;
  before(() => { dir = mkdtempSync(join(tmpdir(), 'alignscope-loader-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('refuses bad files with a message on stderr and a non-zero exit', () => {
    const byCode = new Map();
    for (const c of [...badFiles(), ...badInt8Files()]) if (!byCode.has(c[2])) byCode.set(c[2], c);
    for (const [code, [name, bytes, , fragment]] of byCode) {
      const file = join(dir, `${code}.alsc`);
      writeFileSync(file, bytes);
      const r = runNative(['--model', file, 'Open the file']);
      assert.equal(r.status, 1, `${name}: exit ${r.status}`);
      assert.ok(r.stderr.toLowerCase().includes(fragment.toLowerCase()), `${name}: stderr "${r.stderr}"`);
      assert.equal(r.stdout, '', `${name}: printed output`);
    }
    const missing = runNative(['--model', join(dir, 'nope.alsc'), 'x']);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /cannot read/);
  });
});

// ---- tokeniser parity ------------------------------------------------------------

const enc = (s) => Buffer.from(s, 'utf8');
const TRICKY = [
  enc('Hello, World!'), enc('  leading and   trailing  '), enc("l'ordinateur d’Anne"), enc('L’ORDINATEUR ‘quoted’ ‛x'),
  enc('“Quoted” «guillemets» „low“'), enc('Wait… what?…'), enc('a\u00a0b\u2009c\u202fd\u200be\u2007f'),
  enc('naïve café Ärger ÖL Übel'), enc('ÉCOLE ŒUVRE Ÿ ÀÞ ß'), enc('x×y÷z 2×3'), enc('emoji 😀👍🏽 test😀x'),
  enc('RTL שלום עולם مرحبا بالعالم'), enc('combining e\u0301 a\u0308 n\u0303o'), enc('tab\tnew\nline\r\nend'),
  enc('NUL\u0000inside\u0000'), enc('dash – em — minus − hyphen-ated'), enc('1,000.50 $ 99% 3/4 #tag @me'),
  enc('日本語のテキスト。「引用」'), enc('del\u007fchar \u0085next'), enc('`back` ´acute´ ʼmod'), enc('Ⅻ roman ½ ²'),
  enc('\ufffd literal replacement'), enc('mixed123abc under_score e-mail'), enc('…'), enc(''), enc('   \t\n'),
  enc('Print the Zorglub page'), enc('save   the LAST   menu'), enc('a'.repeat(300) + ' b'),
  enc('\u2000\u2028\u3000\u303f\u3040 wide'),
  Buffer.from([0x61, 0x62, 0x63, 0xff, 0x20, 0x64, 0x65, 0x66]), Buffer.from([0xc3, 0x28, 0x61]),
  Buffer.from([0xe2, 0x82, 0x20, 0x78]), Buffer.from([0xed, 0xa0, 0x80, 0x61]), Buffer.from([0x61, 0xf0, 0x9f, 0x98]),
  Buffer.from([0xc0, 0xaf, 0x2e]), Buffer.from([0xf5, 0x80, 0x80, 0x80]), Buffer.from([0x63, 0x61, 0x66, 0xc3, 0xa9, 0xa9]),
  Buffer.from([0xe0, 0x80, 0x80, 0x20, 0xf4, 0x90, 0x80, 0x80]), Buffer.from([0x80, 0xbf, 0xfe]),
];

function pythonExpectations() {
  const r = spawnSync(PYTHON, [join(ROOT, 'tests', 'support', 'tokenize_expect.py')], {
    input: JSON.stringify(TRICKY.map((b) => b.toString('hex'))), maxBuffer: 16 << 20,
  });
  if (r.status !== 0) throw new Error(`tokenize_expect.py failed: ${r.stderr}`);
  return JSON.parse(r.stdout.toString('utf8'));
}

for (const variant of VARIANTS) {
  test(`tokeniser matches tokenize_text.py (${variant} wasm)`, async () => {
    const expected = pythonExpectations();
    const engine = await createEngine({ variant });
    const info = engine.load(modelBytes('additive'));
    const vocab = new Map();
    for (let i = 0; i < info.srcVocabSize; i++) vocab.set(engine.sourceToken(i), i); // last id wins, as in export.py
    let tokens = 0;
    TRICKY.forEach((raw, n) => {
      const got = engine.tokenize(new Uint8Array(raw));
      const want = expected[n];
      const label = `case ${n} ${JSON.stringify(raw.toString('utf8'))}`;
      assert.equal(got.length, want.length, `${label}: ${got.length} tokens, python ${want.length}: ${JSON.stringify(want)}`);
      got.forEach((tok, i) => {
        const [wText, wStart, wEnd] = want[i];
        assert.equal(tok.byteStart, wStart, `${label} token ${i} start`);
        assert.equal(tok.byteEnd, wEnd, `${label} token ${i} end`);
        if (Buffer.byteLength(wText) <= 255) assert.equal(tok.token, wText, `${label} token ${i}`);
        else assert.ok(wText.startsWith(tok.token) && tok.token.length > 0, `${label} long token prefix`);
        assert.equal(tok.id, vocab.get(wText) ?? 1, `${label} token ${i} id`);
        tokens++;
      });
    });
    // string input: spans are UTF-16 indices into the string
    const text = 'Ça va… 😀 Zorglub!';
    for (const tok of engine.tokenize(text)) {
      assert.equal(Buffer.byteLength(text.slice(0, tok.start)), tok.byteStart);
      assert.equal(Buffer.byteLength(text.slice(0, tok.end)), tok.byteEnd);
    }
    console.log(`# ${variant}: ${TRICKY.length} strings, ${tokens} tokens identical to tokenize_text.py`);
  });
}
