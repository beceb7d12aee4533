// Everything the C library defines and JavaScript, Python or build.sh also
// uses is written once, in C; every copy is checked here against the C
// source: status codes, attention kinds, weight types, arch_flags bits, the
// format's version, sizes and subword constants, the asw_info / asw_trace
// field numbers, and the wasm export list.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { OFF, PYTHON, ROOT } from './support/alsc.mjs';

const { DEFINITIONS } = await import(join(ROOT, 'web', 'engine.js'));
const read = (f) => readFileSync(join(ROOT, f), 'utf8');
const publicHeader = read('src/alignscope.h');
const formatHeader = read('src/alignscope_format.h');
const wasmApi = read('src/wasm_api.c');

/** The names of `enum NAME { ... }` (or a typedef'd enum ending in NAME) in order, with their values. */
function cEnum(source, name) {
  const m = source.match(new RegExp(`enum ${name} \\{([\\s\\S]*?)\\}`)) ?? source.match(new RegExp(`typedef enum \\{([\\s\\S]*?)\\} ${name};`));
  assert.ok(m, `enum ${name} not found`);
  const body = m[1].replace(/\/\*[\s\S]*?\*\//g, '');
  let next = 0;
  return body.split(',').map((s) => s.trim()).filter(Boolean).map((entry) => {
    const [key, value] = entry.split('=').map((s) => s.trim());
    const v = value === undefined ? next : value.includes('<<') ? 2 ** Number(value.split('<<')[1]) : Number(value.replace(/u$/, ''));
    next = v + 1;
    return [key, v];
  });
}
const cDefine = (source, name) => {
  const m = source.match(new RegExp(`#define ${name} ([^\\s/]+)`));
  assert.ok(m, `#define ${name} not found`);
  return m[1];
};
const camel = (s) => s.toLowerCase().replace(/_([a-z])/g, (_, c) => c.toUpperCase());
const python = JSON.parse(spawnSync(PYTHON, ['-c', `
import json, sys
sys.path.insert(0, 'models/train')
import export, model, subword, alsc_to_torch, decode
import re, struct
print(json.dumps({"loader": {k: getattr(alsc_to_torch, k) for k in ("FORMAT_VERSION_OLDEST", "MIN_VOCAB", "MAX_VOCAB",
    "MAX_DIM", "MAX_TOKENS_LIMIT", "ARCH_KNOWN_FLAGS")}, "magic": alsc_to_torch.MAGIC.decode(),
  "crc_offset": export.CRC_OFFSET, "scale_range": [export.MIN_TRAINED_SCORE_SCALE, export.MAX_TRAINED_SCORE_SCALE],
  "language_tag": export.LANGUAGE_TAG.pattern, "old_version_message": alsc_to_torch.OLD_VERSION_MESSAGE,
  "header_offsets": [struct.calcsize("<" + "".join(re.findall(r"[0-9]*[a-zA-Z]", export.HEADER_FORMAT[1:])[:i]))
                     for i in range(len(alsc_to_torch.HEADER_FIELDS))], "header_fields": alsc_to_torch.HEADER_FIELDS,
  "header_bytes": struct.calcsize(export.HEADER_FORMAT),
  "twins": {"BEAM_MAX_WIDTH": decode.BEAM_MAX_WIDTH, "MAX_LENGTH_PENALTY": decode.MAX_LENGTH_PENALTY,
    "DEFAULT_LENGTH_PENALTY": decode.DEFAULT_LENGTH_PENALTY, "DEFAULT_BEAM_WIDTH": decode.DEFAULT_BEAM_WIDTH, "WINDOW_MAX_LENGTH": decode.WINDOW_MAX_LENGTH},"attention": model.ATTENTION_KINDS, "weights": export.WEIGHT_TYPES,
  "version": export.FORMAT_VERSION, "header": export.HEADER_SIZE,
  "arch": {k[len("ARCH_"):]: v for k, v in vars(export).items() if k.startswith("ARCH_") and isinstance(v, int)},
  "specials": model.SPECIALS, "first_byte": subword.FIRST_BYTE_ID, "mark_id": subword.MARK_ID, "mark": subword.MARK,
  "max_pretoken": subword.MAX_PRETOKEN_CHARS, "layer_norm_epsilon": model.LAYER_NORM_EPSILON}))
`], { cwd: ROOT, encoding: 'utf8' }).stdout);

test('status codes: engine.js has the C enum, in order', () => {
  const codes = cEnum(publicHeader, 'as_status').map(([k]) => k).filter((k) => k !== 'AS_STATUS_COUNT');
  assert.deepEqual(DEFINITIONS.STATUS_CODES, codes);
});

test('attention kinds and weight types: engine.js and the Python exporter agree with C', () => {
  const kinds = cEnum(formatHeader, 'as_attention_kind');
  assert.deepEqual(DEFINITIONS.ATTENTION_KINDS, kinds.map(([k]) => k.replace('AS_ATTENTION_', '').toLowerCase()));
  assert.deepEqual(python.attention, Object.fromEntries(kinds.map(([k, v]) => [k.replace('AS_ATTENTION_', '').toLowerCase(), v])));
  const types = cEnum(formatHeader, 'as_weight_type');
  assert.deepEqual(DEFINITIONS.WEIGHT_TYPES, types.map(([k]) => k.replace('AS_WEIGHT_', '').toLowerCase().replace('i8', 'int8')));
  assert.deepEqual(Object.values(python.weights), types.map(([, v]) => v));
});

test('arch_flags bits: engine.js and the Python exporter agree with C', () => {
  const flags = cEnum(formatHeader, 'as_arch_flag');
  assert.deepEqual(python.arch, Object.fromEntries(flags.map(([k, v]) => [k.replace('AS_ARCH_', ''), v])));
  const jsName = { TOKENIZER_TUTORIAL: 'tutorialTokenizer' };
  assert.deepEqual(DEFINITIONS.ARCH_FLAGS, Object.fromEntries(flags.map(([k, v]) => {
    const bare = k.replace('AS_ARCH_', '');
    return [jsName[bare] ?? camel(bare), v];
  })));
  assert.equal(Number(cDefine(formatHeader, 'AS_ARCH_KNOWN_FLAGS').replace(/u$/, '')), flags.reduce((a, [, v]) => a | v, 0));
  // the layer norm's epsilon (arch_flags layer_norm) is training's
  assert.equal(python.layer_norm_epsilon, Number(cDefine(formatHeader, 'AS_LAYER_NORM_EPSILON').replace(/f$/, '')));
  // the npm package's type for info.architecture names the same keys
  const declared = read('npm/engine.d.ts').match(/architecture: \{([^}]*)\}/)[1].split(';').map((s) => s.split(':')[0].trim()).filter(Boolean);
  assert.deepEqual(declared, Object.keys(DEFINITIONS.ARCH_FLAGS));
});

test('format version, header size, specials and subword constants: Python agrees with C', () => {
  assert.equal(python.version, Number(cDefine(formatHeader, 'AS_FORMAT_VERSION').replace(/u$/, '')));
  assert.equal(python.header, Number(cDefine(formatHeader, 'AS_HEADER_SIZE').replace(/u$/, '')));
  const specials = cEnum(formatHeader, 'as_special_token');
  assert.deepEqual(DEFINITIONS.SPECIAL_TOKENS, Object.fromEntries(specials.map(([k, v]) => [k.replace('AS_TOKEN_', ''), v])));
  assert.deepEqual(python.specials, ['<pad>', '<unk>', '<s>', '</s>']);
  assert.equal(python.first_byte, Number(cDefine(formatHeader, 'AS_FIRST_BYTE_TOKEN')));
  assert.equal(python.mark_id, python.first_byte + 256);
  assert.match(formatHeader, /#define AS_WORD_MARK_TOKEN \(AS_FIRST_BYTE_TOKEN \+ 256\)/);
  assert.equal(Buffer.from(python.mark).toString('hex'), cDefine(formatHeader, 'AS_WORD_MARK_UTF8').replace(/["\\x]/g, '').toLowerCase());
  assert.equal(python.max_pretoken, Number(cDefine(formatHeader, 'AS_MAX_PRETOKEN_CHARS')));
  assert.equal(DEFINITIONS.TOKEN_TEXT_STRIDE, Number(cDefine(publicHeader, 'AS_TOKEN_TEXT_STRIDE')));
});

test('the header layout, the CRC field, language tags and the score scale range: Python and the tests agree with C', () => {
  const offsets = cEnum(formatHeader, 'as_header_offset');
  // export.HEADER_FORMAT's fields start where the C offsets say, in order, and alsc_to_torch names them so
  assert.deepEqual(python.header_offsets, offsets.map(([, v]) => v));
  assert.deepEqual(python.header_fields.map((f) => f.toUpperCase()), offsets.map(([k]) => k.replace('AS_OFF_', '')));
  assert.equal(python.header_bytes, Number(cDefine(formatHeader, 'AS_HEADER_SIZE').replace(/u$/, '')));
  assert.equal(python.crc_offset, Object.fromEntries(offsets).AS_OFF_CRC32);
  // the test helpers' table (tests/support/alsc.mjs OFF): the same offsets
  const jsName = (k) => ({ MAGIC: 'magic', FORMAT_VERSION: 'version', HEADER_SIZE: 'headerSize', ATTENTION_KIND: 'kind',
    WEIGHT_TYPE: 'weightType', SRC_VOCAB_SIZE: 'srcVocab', TGT_VOCAB_SIZE: 'tgtVocab', EMBED_DIM: 'embed',
    ENCODER_HIDDEN: 'encHidden', DECODER_HIDDEN: 'decHidden', ATTENTION_DIM: 'attnDim', OUTPUT_DIM: 'outDim',
    MAX_SOURCE_TOKENS: 'maxSrc', MAX_TARGET_TOKENS: 'maxTgt', TRAINED_SCORE_SCALE: 'scale', VOCAB_BYTES: 'vocabBytes',
    TENSOR_BYTES: 'tensorBytes', CRC32: 'crc', SOURCE_LANGUAGE: 'srcLang', TARGET_LANGUAGE: 'tgtLang', ARCH_FLAGS: 'archFlags' })[k];
  assert.deepEqual(OFF, Object.fromEntries(offsets.map(([k, v]) => [jsName(k.replace('AS_OFF_', '')), v])));
  const f = (name) => Number(cDefine(formatHeader, name).replace(/[uf]$/, ''));
  assert.deepEqual(python.scale_range, [f('AS_MIN_TRAINED_SCORE_SCALE'), f('AS_MAX_TRAINED_SCORE_SCALE')]);
  assert.equal(python.language_tag, `[a-z]{${f('AS_MIN_LANGUAGE_LETTERS')},${f('AS_MAX_LANGUAGE_LETTERS')}}`);
  // the refusal of an old file says the same in Python as in C
  const status = read('src/status.c').match(/case AS_ERR_VERSION_UNSUPPORTED:\s*return ([\s\S]*?);/)[1];
  assert.equal(python.old_version_message, [...status.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]).join(''));
});

test('asw_info and asw_trace field numbers: engine.js has wasm_api.c\'s lists', () => {
  for (const [macro, table, least] of [['INFO_FIELDS', DEFINITIONS.INFO, 10], ['TRACE_FIELDS', DEFINITIONS.TRACE, 10],
    ['HYPOTHESIS_FIELDS', DEFINITIONS.HYPOTHESIS, 3]]) {
    const block = wasmApi.match(new RegExp(`#define ${macro}\\(X\\)([\\s\\S]*?)\\n\\n`))[1];
    const fields = [...block.matchAll(/X\((\d+), (\w+),/g)].map((m) => [m[2], Number(m[1])]);
    assert.ok(fields.length >= least, macro);
    assert.deepEqual(table, Object.fromEntries(fields), macro);
  }
});

test('beam search limits and defaults: engine.js has the C values', () => {
  assert.equal(DEFINITIONS.BEAM_MAX_WIDTH, Number(cDefine(publicHeader, 'AS_BEAM_MAX_WIDTH')));
  assert.equal(DEFINITIONS.MAX_LENGTH_PENALTY, Number(cDefine(publicHeader, 'AS_MAX_LENGTH_PENALTY').replace(/f$/, '')));
  // the front ends' decoding default (the CLI reads the C define itself), and
  // as_options_default takes its length penalty from the same define
  assert.equal(DEFINITIONS.DEFAULT_BEAM_WIDTH, Number(cDefine(publicHeader, 'AS_DEFAULT_BEAM_WIDTH')));
  assert.equal(DEFINITIONS.DEFAULT_LENGTH_PENALTY, Number(cDefine(publicHeader, 'AS_DEFAULT_LENGTH_PENALTY').replace(/f$/, '')));
  const defaults = read('src/engine.c').match(/void as_options_default\(as_options \*options\) \{([\s\S]*?)\n\}/)[1];
  assert.match(defaults, /length_penalty = AS_DEFAULT_LENGTH_PENALTY;/);
});

test('the .alsc limits and beam constants of models/train/alsc_to_torch.py and decode.py are C\'s', () => {
  const num = (v) => Number(v.replace(/u$/, ''));
  assert.equal(python.magic, JSON.parse(cDefine(formatHeader, 'AS_FORMAT_MAGIC')));
  const limits = { FORMAT_VERSION_OLDEST: 'AS_FORMAT_VERSION_OLDEST', MIN_VOCAB: 'AS_MIN_VOCAB', MAX_VOCAB: 'AS_MAX_VOCAB',
    MAX_DIM: 'AS_MAX_DIM', MAX_TOKENS_LIMIT: 'AS_MAX_TOKENS_LIMIT', ARCH_KNOWN_FLAGS: 'AS_ARCH_KNOWN_FLAGS' };
  for (const [py, c] of Object.entries(limits)) assert.equal(python.loader[py], num(cDefine(formatHeader, c)), py);
  assert.equal(python.twins.BEAM_MAX_WIDTH, DEFINITIONS.BEAM_MAX_WIDTH);
  assert.equal(python.twins.MAX_LENGTH_PENALTY, DEFINITIONS.MAX_LENGTH_PENALTY);
  assert.equal(python.twins.DEFAULT_LENGTH_PENALTY, DEFINITIONS.DEFAULT_LENGTH_PENALTY);
  assert.equal(python.twins.DEFAULT_BEAM_WIDTH, DEFINITIONS.DEFAULT_BEAM_WIDTH);
});

test('the window mask\'s limit: engine.js and decode.py have the C value', () => {
  // (the mask itself is computed in C for JavaScript; tests/forced.test.mjs checks decode.py's twin against it)
  const limit = Number(cDefine(publicHeader, 'AS_WINDOW_MAX_LENGTH'));
  assert.equal(DEFINITIONS.WINDOW_MAX_LENGTH, limit);
  assert.equal(python.twins.WINDOW_MAX_LENGTH, limit);
});

test('the wasm export list in build.sh is every ASW_EXPORT of wasm_api.c', () => {
  const exported = [...wasmApi.matchAll(/^ASW_EXPORT [^(]*?\b(asw_\w+)\(/gm)].map((m) => `_${m[1]}`).sort();
  const listed = read('build.sh').match(/^WASM_EXPORTS=(\S+)/m)[1].split(',').sort();
  assert.deepEqual(listed, exported);
});
