// make_corpus.mjs - the fuzzers' seed corpus, made from our own model files.
//
//   node tests/fuzz/make_corpus.mjs OUT_DIR
//
// Writes OUT_DIR/model_load/ (every small seed model of build/fuzz/models,
// with truncated, header-mutated and body-mutated copies, the CRC fixed; an
// f32 re-encoding of the f16 ones; files that are not models; the head of
// models/en-fr.alsc when present), OUT_DIR/tokenize/ (two option bytes,
// see tests/fuzz/fuzz_tokenize.c, then text: the test sentences, Unicode of
// every class, invalid UTF-8, too-long input), OUT_DIR/force_score/ (option
// bytes, ids and masks, see tests/fuzz/fuzz_force_score.c), OUT_DIR/window_decode/
// (a header of model, beam, half width and reference length, then text; see
// tests/fuzz/fuzz_window_decode.c), plus OUT_DIR/tokenize.dict
// (the source vocabulary, for libFuzzer's -dict). Nothing here is committed:
// ./build.sh fuzz regenerates it under build/fuzz/corpus.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { OFF, fileCrc } from '../support/alsc.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const out = process.argv[2] ?? join(ROOT, 'build', 'fuzz', 'corpus');
const KINDS = ['additive', 'dot', 'general', 'scaled_dot', 'none', 'additive-int8', 'tutorial', 'subwords', 'subwords-int8', 'layer-norm', 'layer-norm-int8'];

const u32 = (b, off) => new DataView(b.buffer, b.byteOffset).getUint32(off, true);
function setU32(b, off, v) { new DataView(b.buffer, b.byteOffset).setUint32(off, v >>> 0, true); return b; }
// The whole-file CRC (FORMAT.md section 1), rewritten in place.
const fixCrc = (b) => setU32(b, OFF.crc, fileCrc(b));

// f16 -> f32 re-encoding of a whole model: the loader's other weight path.
function toF32(model) {
  const vocabEnd = 96 + u32(model, 64), tensorOffset = (vocabEnd + 3) & ~3;
  const halves = (model.length - tensorOffset) / 2;
  const f32 = new Uint8Array(tensorOffset + halves * 4);
  f32.set(model.subarray(0, tensorOffset));
  const src = new DataView(model.buffer, model.byteOffset + tensorOffset);
  const dst = new DataView(f32.buffer, tensorOffset);
  for (let i = 0; i < halves; i++) dst.setFloat32(4 * i, halfToFloat(src.getUint16(2 * i, true)), true);
  setU32(f32, 20, 0);
  setU32(f32, 68, halves * 4);
  return fixCrc(f32);
}
function halfToFloat(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

const files = { model_load: new Map(), tokenize: new Map(), force_score: new Map(), window_decode: new Map() };
const add = (kind, name, bytes) => files[kind].set(name, Uint8Array.from(bytes));

// ---- model_load -----------------------------------------------------------
const read = (dir) => KINDS.filter((k) => existsSync(join(ROOT, 'build', dir, `${k}.alsc`)))
  .map((k) => [k, new Uint8Array(readFileSync(join(ROOT, 'build', dir, `${k}.alsc`)))]);
const models = read('test-models');
// The seeds are the small models (tests/fuzz/shrink_models.py): the test
// models' own vocabularies, merge tables and flags on a network 2 wide, 1 to
// 12 KB instead of 22 to 84. Each execution then loads and translates in
// microseconds; with the test models themselves in the corpus, the fuzzer
// spent most of its time on their mutations (a 10 MB corpus, half the
// executions per second). The test models are only the tokeniser dictionary's source.
const small = read(join('fuzz', 'models'));
if (!models.length || !small.length) {
  console.error('make_corpus: build/test-models/*.alsc or build/fuzz/models/*.alsc missing: run ./build.sh fuzz-build');
  process.exit(2);
}
for (const [kind, m] of small) {
  add('model_load', `${kind}`, m);
  if (u32(m, 20) === 1) add('model_load', `${kind}-f32`, toF32(m)); // f16 files only
  const vocabEnd = 96 + u32(m, 64), tensorOffset = (vocabEnd + 3) & ~3;
  for (const cut of [0, 8, 12, 95, 96, 97, vocabEnd >> 1, vocabEnd, tensorOffset + 1, m.length >> 1, m.length - 1]) {
    add('model_load', `${kind}-cut${cut}`, m.subarray(0, cut));
  }
  // every header field at 0, 1, max and value+1, with the CRC fixed (the CRC
  // covers the header; the harness also retries each input with it fixed);
  // two kinds are enough, the rules do not depend on the kind beyond these
  for (let off = 8; off < 96 && (kind === 'additive' || kind === 'dot' || kind === 'tutorial'); off += 4) {
    if (off === OFF.crc) continue;
    for (const v of [0, 1, 0xffffffff, u32(m, off) + 1]) add('model_load', `${kind}-h${off}-${v}`, fixCrc(setU32(m.slice(), off, v)));
  }
  // damage after the header, CRC fixed: token lengths, bytes, specials, weights
  const body = [
    ['len0', 96, 0], ['len255', 96, 255], ['ctl', 97, 0x01], ['utf8', 97, 0xff], ['unk', 96 + 6 + 3, 0x6a],
    ['pad', vocabEnd, 0x01], ['nan', tensorOffset + 1, 0x7e], ['inf', m.length - 1, 0x7c], ['big', m.length - 1, 0x7b],
  ];
  for (const [name, off, v] of body) {
    if (off >= m.length) continue;
    const b = m.slice();
    b[off] = v;
    add('model_load', `${kind}-${name}-crc`, fixCrc(b));
  }
  // small settings that make the translation path interesting
  add('model_load', `${kind}-maxsrc1`, fixCrc(setU32(m.slice(), 52, 1)));
  add('model_load', `${kind}-maxtgt1`, fixCrc(setU32(m.slice(), 56, 1)));
}
const png = new Uint8Array(256);
png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
add('model_load', 'png', png);
add('model_load', 'text', new TextEncoder().encode('Open the file\nShow the new window\n'));
add('model_load', 'magic-only', new TextEncoder().encode('ALNSCOPE'));
// the real model, when there is one: big, so only its head and a cut copy
for (const file of [join(ROOT, 'models', 'en-fr.alsc'), join(ROOT, 'web', 'models', 'en-fr.alsc')]) {
  if (!existsSync(file)) continue;
  const size = statSync(file).size;
  const m = new Uint8Array(readFileSync(file));
  const tag = file.includes('web') ? 'web-en-fr' : 'en-fr';
  if (size <= 256 << 10) add('model_load', tag, m);
  add('model_load', `${tag}-head4k`, m.subarray(0, 4096));
  add('model_load', `${tag}-head-vocab`, m.subarray(0, Math.min(m.length, 96 + u32(m, 64) + 64)));
}

// ---- tokenize ---------------------------------------------------------------
const enc = (s) => new TextEncoder().encode(s);
const TEXTS = [
  'Open the file', 'Show the new window', 'Print the Zorglub page', 'Delete the selected document!',
  'save   the LAST   menu', 'Hello, World!', "l'ordinateur d’Anne", '“Quoted” «guillemets» „low“', 'Wait… what?…',
  'a\u00a0b\u2009c\u202fd\u200be\u2007f', 'naïve café Ärger ÖL Übel', 'ÉCOLE ŒUVRE Ÿ ÀÞ ß', 'x×y÷z 2×3',
  'emoji 😀👍🏽 test😀x', 'RTL שלום עולם مرحبا بالعالم', 'combining e\u0301 a\u0308 n\u0303o', 'tab\tnew\nline\r\nend',
  'NUL\u0000inside\u0000', 'dash – em — minus − hyphen-ated', '1,000.50 $ 99% 3/4 #tag @me', '日本語のテキスト。「引用」',
  'del\u007fchar \u0085next', '`back` ´acute´ ʼmod', 'Ⅻ roman ½ ²', '\ufffd literal replacement', '…', '', '   \t\n',
  '!!! ??? ...', 'a'.repeat(300) + ' b', 'open '.repeat(100).trim(), 'open '.repeat(101).trim(),
  '\u2000\u2028\u3000\u303f\u3040 wide', '\u202eRTL override\u202c \u200f', 'Zorglub Xyzzy Qwertyuiop',
];
const RAW = [
  [0x61, 0x62, 0x63, 0xff, 0x20, 0x64], [0xc3, 0x28, 0x61], [0xe2, 0x82, 0x20, 0x78], [0xed, 0xa0, 0x80, 0x61],
  [0x61, 0xf0, 0x9f, 0x98], [0xc0, 0xaf, 0x2e], [0xf5, 0x80, 0x80, 0x80], [0xe0, 0x80, 0x80, 0x20, 0xf4, 0x90, 0x80, 0x80],
  [0x80, 0xbf, 0xfe], [0xed, 0xb0, 0x80, 0xed, 0xa0, 0x80],
];
let n = 0;
for (const t of [...TEXTS.map(enc), ...RAW.map((r) => Uint8Array.from(r))]) {
  // option bytes: model (and max_target_tokens), then scale and top_k
  add('tokenize', `t${n}`, [n % 5, (n * 37) & 0xff, ...t]);
  n++;
}

// ---- force_score ------------------------------------------------------------
// Option bytes (tests/fuzz/fuzz_force_score.c: model and mask, scale and
// alpha, source count, target count), then ids as 2 bytes each (id + 2:
// the harness reads them modulo vocabulary + 4, minus 2), then the mask.
const id16 = (id) => [(id + 2) & 0xff, (id + 2) >> 8];
for (let model = 0; model < 8; model++) {
  for (let mode = 0; mode < 4; mode++) {
    const ns = 2 + ((model + mode) % 5), nt = 1 + ((model * 3 + mode) % 6);
    const ids = (n, from) => Array.from({ length: n }, (_, i) => id16(from + i)).flat();
    const mask = mode === 2 ? new Array(Math.ceil((nt * (ns + 1)) / 8)).fill(0xb5)
      : mode === 3 ? Array.from({ length: nt * (ns + 1) }, (_, i) => (i % 3 ? 1 : 0)) : [];
    add('force_score', `f${model}-${mode}`, [model | (mode << 3) | ((model % 4) << 5), (model + mode) & 0x1f, ns, nt,
      ...ids(ns, 4), ...ids(nt, 4 + model), ...mask]);
  }
}

// ---- window_decode ----------------------------------------------------------
// Header (tests/fuzz/fuzz_window_decode.c): model, beam width and override in
// byte 0; the half width as (byte % 12) - 2 in byte 1; window_steps + 2 in
// bytes 2-3 (little-endian); then the text. Every model, greedy and beam,
// off, refused and valid widths, short and out-of-range reference lengths.
const WINDOW_TEXTS = ['Open the file', 'The cat sat on the mat.', 'Save changes?', 'a'];
for (let model = 0; model < 8; model++) {
  for (const [beam, override] of [[0, 0], [3, 0], [0, 1]]) {
    for (const half of [-2, -1, 0, 1, 4, 9]) {
      const steps = [1, 3, 12, 0, 5000][(model + half + 2) % 5] + 2;
      const text = enc(WINDOW_TEXTS[(model + beam + half + 2) % WINDOW_TEXTS.length]);
      add('window_decode', `w${model}-${beam}-${override}-${half + 2}`, [model | (beam << 3) | (override << 6), half + 2, steps & 0xff, steps >> 8, ...text]);
    }
  }
}

// ---- write ------------------------------------------------------------------
for (const kind of Object.keys(files)) {
  const dir = join(out, kind);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [name, bytes] of files[kind]) {
    const hash = createHash('sha1').update(bytes).digest('hex').slice(0, 8);
    writeFileSync(join(dir, `${name}-${hash}`), bytes);
  }
}
// dictionary: the first model's source vocabulary, as libFuzzer -dict entries
const m = models[0][1];
const vs = u32(m, 24);
const dict = [];
for (let i = 0, pos = 96; i < vs; i++) {
  const len = m[pos];
  const tok = m.subarray(pos + 1, pos + 1 + len);
  dict.push(`"${Array.from(tok, (b) => (b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`)).join('')}"`);
  pos += 1 + len;
}
for (const s of ['\\xe2\\x80\\xa6', '\\xc2\\xa0', '\\xf0\\x9f\\x98\\x80', '\\xed\\xa0\\x80', '\\xcc\\x81']) dict.push(`"${s}"`);
writeFileSync(join(out, 'tokenize.dict'), `${dict.join('\n')}\n`);
const counts = Object.entries(files).map(([k, v]) => `${k} ${v.size}`).join(', ');
console.log(`make_corpus: ${out}: ${counts} seeds, ${dict.length} dictionary entries`);
