// The page's example lists (models/examples/, committed): every sentence is
// ours (models/testsets/teacher.tsv, or the seed's EEA sentence of
// everyday_sentences.en.txt), each list belongs to a model of the catalogue,
// the lesson's entries show in their output the swapped order they claim,
// nothing ignores the folder, and web/tools/assemble.mjs puts them in the
// catalogue a clean clone serves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { assembleExamples } from '../web/tools/assemble.mjs';
import { NATIVE_CLI, PYTHON, runNative } from './support/alsc.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MODELS = path.join(REPO, 'models');
const DIR = path.join(MODELS, 'examples');
const KINDS = new Set(['reordering', 'one-to-many', 'long range']);
const EEA = 'The agreement on the European Economic Area was signed in August 1992.';

function readTsv(file) {
  const [header, ...lines] = fs.readFileSync(file, 'utf8').replace(/\n$/, '').split('\n');
  const columns = header.split('\t');
  return lines.map((line) => Object.fromEntries(line.split('\t').map((v, i) => [columns[i], v])));
}
const teacher = readTsv(path.join(MODELS, 'testsets', 'teacher.tsv'));
const byEnglish = new Map(teacher.map((r) => [r.en, r]));
const meta = JSON.parse(fs.readFileSync(path.join(MODELS, 'testsets', 'teacher.meta.json'), 'utf8'));
const index = JSON.parse(fs.readFileSync(path.join(MODELS, 'index.json'), 'utf8'));
const catalogue = new Map(index.models.map((m) => [m.id, m]));
const lists = fs.readdirSync(DIR).filter((f) => f.endsWith('.json') && f !== 'lesson.json');

test('every model of the catalogue has a committed list picked from the teacher\'s set', () => {
  assert.deepEqual(lists.map((f) => f.replace(/\.json$/, '')).sort(), [...catalogue.keys()].sort());
  for (const file of lists) {
    const list = JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8'));
    const model = catalogue.get(file.replace(/\.json$/, ''));
    assert.equal(list.model, model.file, file);
    assert.equal(list.sentences_from, 'models/testsets/teacher.tsv', file);
    assert.ok(Array.isArray(list.examples) && list.candidates >= list.examples.length, file);
    for (const e of list.examples) {
      const row = byEnglish.get(e.text);
      assert.ok(row, `${file}: ${JSON.stringify(e.text)} is not a sentence of teacher.tsv`);
      assert.equal(e.reference, row[model.target], `${file}: ${e.text}: the reference is not teacher.tsv's`);
      assert.ok(e.shows.length && e.shows.every((k) => KINDS.has(k)), `${file}: ${e.text}: shows ${e.shows}`);
      assert.equal(e.set, "teacher's set");
      assert.ok(e.sentence_bleu >= list.min_sentence_bleu, `${file}: ${e.text}`);
    }
  }
});

test('the lesson list: the EEA sentence first, then word-order cases of the teacher\'s set the models get right', () => {
  const lesson = JSON.parse(fs.readFileSync(path.join(DIR, 'lesson.json'), 'utf8'));
  const [first, ...rest] = lesson.sentences;
  assert.equal(first.text, EEA);
  assert.equal(first.always, true);
  assert.ok(fs.readFileSync(path.join(MODELS, 'train', 'everyday_sentences.en.txt'), 'utf8').split('\n').includes(EEA));
  assert.ok(rest.length >= 3, 'expected at least three reordering cases');
  for (const s of rest) {
    const row = teacher[s.line - 2];
    assert.equal(row?.en, s.text, `${s.text}: not line ${s.line} of teacher.tsv`);
    assert.ok(meta.word_order[s.kind]?.includes(s.line), `${s.text}: line ${s.line} is not a ${s.kind} case in teacher.meta.json`);
    assert.deepEqual(s.references, { fr: row.fr, de: row.de, es: row.es });
    assert.ok(Object.keys(s.right).length, `${s.text}: no model gets it right`);
    for (const [id, r] of Object.entries(s.right)) {
      assert.ok(catalogue.has(id), `${s.text}: ${id} is not in models/index.json`);
      assert.ok(r.output.includes(r.shows), `${s.text}: ${id}'s output ${JSON.stringify(r.output)} lacks ${JSON.stringify(r.shows)}`);
      assert.equal(r.decoding, 'greedy');
    }
  }
});

// The lesson's judgements are of outputs: each is what its model file translates today (greedy, the
// native CLI, which the parity tests tie to the page's engine). A retrained file changes them, and
// then each "right" entry must be judged again from the new output (or dropped), not left claiming
// a swap the shipped model no longer makes.
test('the lesson list\'s judged outputs are what each model file translates today (greedy)', { skip: fs.existsSync(NATIVE_CLI) ? false : 'build/native/alignscope not built' }, () => {
  const lesson = JSON.parse(fs.readFileSync(path.join(DIR, 'lesson.json'), 'utf8')).sentences;
  const byModel = new Map();
  for (const s of lesson) for (const [id, r] of Object.entries(s.right)) byModel.set(id, [...(byModel.get(id) ?? []), { text: s.text, output: r.output }]);
  assert.ok(byModel.size >= 1);
  for (const [id, judged] of byModel) {
    const r = runNative(['--model', path.join(MODELS, catalogue.get(id).file), '--beam', '1', '--json', '--top-k', '0', '--', ...judged.map((j) => j.text)]);
    assert.equal(r.status, 0, r.stderr);
    const outputs = r.stdout.trim().split('\n').map((l) => JSON.parse(l).translation);
    judged.forEach((j, i) => assert.equal(outputs[i], j.output, `${id} now translates ${JSON.stringify(j.text)} differently: judge lesson.json's entry again`));
  }
});

test('models/examples/ is not git-ignored (a clean clone has it)', () => {
  const run = spawnSync('git', ['check-ignore', '-q', path.join('models', 'examples', `${index.default}.json`)], { cwd: REPO });
  assert.equal(run.status, 1, 'git check-ignore says models/examples/ is ignored');
});

test('assemble puts the lesson first, then the picked sentences, into the catalogue', () => {
  const assembled = assembleExamples(MODELS, structuredClone(index));
  const lesson = JSON.parse(fs.readFileSync(path.join(DIR, 'lesson.json'), 'utf8')).sentences;
  for (const m of assembled.models) {
    assert.ok(m.examples?.length && m.examples.length <= 12, m.id);
    assert.deepEqual(m.examples[0], { text: EEA, shows: ['reordering'], set: 'lesson' }, m.id);
    const right = lesson.filter((s) => s.right[m.id]).map((s) => s.text);
    assert.deepEqual(m.examples.slice(1, 1 + right.length).map((e) => e.text), right, m.id);
    for (const e of m.examples.slice(1)) assert.ok(byEnglish.has(e.text), `${m.id}: ${e.text}`);
    assert.equal(new Set(m.examples.map((e) => e.text)).size, m.examples.length, `${m.id}: a sentence twice`);
  }
  // A models folder without examples/ leaves the entries without examples.
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'as-examples-'));
  try {
    const bare = assembleExamples(empty, { models: [{ id: 'x', examples: [{ text: 'stale' }] }] });
    assert.equal(bare.models[0].examples, undefined);
  } finally {
    fs.rmSync(empty, { recursive: true, force: true });
  }
});

// examples.py --alsc reads the native CLI's --json lines: greedy (--beam 1, the
// committed lists' decoding) prints the translation itself, a beam its
// hypotheses. It once read every line as a beam's, so `./build.sh model`
// stopped at the examples step; the default's committed list must be exactly
// what the script makes from the committed file.
const CLI = path.join(REPO, 'build', 'native', 'alignscope');
test('examples.py --alsc makes the default model\'s committed list again from the committed file (greedy), and runs with a beam', { skip: fs.existsSync(CLI) ? false : 'build/native/alignscope not built (./build.sh native)' }, () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'as-examples-py-'));
  try {
    const run = (out, beam) => spawnSync(PYTHON, [path.join(MODELS, 'train', 'examples.py'), '--alsc', path.join(MODELS, `${index.default}.alsc`),
      '--out', out, '--beam', String(beam)], { cwd: REPO, encoding: 'utf8' });
    const greedy = run(path.join(tmp, 'greedy.json'), 1);
    assert.equal(greedy.status, 0, greedy.stderr);
    assert.equal(fs.readFileSync(path.join(tmp, 'greedy.json'), 'utf8'), fs.readFileSync(path.join(DIR, `${index.default}.json`), 'utf8'));
    const beam = run(path.join(tmp, 'beam.json'), 2);
    assert.equal(beam.status, 0, beam.stderr);
    const list = JSON.parse(fs.readFileSync(path.join(tmp, 'beam.json'), 'utf8'));
    assert.equal(list.decoding, 'beam 2');
    for (const e of list.examples) assert.ok(byEnglish.has(e.text) && e.translation, JSON.stringify(e));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
