// ./build.sh exercise: the teaching notes' "Add attention to your seq2seq"
// (models/train/exercise.py). On the made-up corpus of toy_corpus.py and a
// budget of a few updates (~15 s): both models are written, open in the
// engine (the page's loader) as the tutorial's architecture without and with
// dot attention, and translate; the printed table has BLEU overall and on
// the longest 10% for both, the same numbers as results.json; the engine's
// words are PyTorch's; both files open on the page (Chromium) through its
// file input, translate and are described. Bad input ends with a message and a non-zero exit,
// never a traceback.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { PYTHON, ROOT, createEngine, requireBuilt } from './support/alsc.mjs';
import { DEFAULT_BEAM_WIDTH, DEFAULT_LENGTH_PENALTY } from '../web/engine.js';
import { gotoReady, openPage, startBrowser } from './browser/support.mjs';

requireBuilt();
const work = mkdtempSync(join(tmpdir(), 'alignscope-exercise-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** ./build.sh exercise with env: { status, out } (stdout and stderr together, colour codes removed). */
function exercise(env) {
  const r = spawnSync('bash', [join(ROOT, 'build.sh'), 'exercise'], {
    cwd: ROOT, encoding: 'utf8', timeout: 120_000, env: { ...process.env, ALIGNSCOPE_NO_INSTALL: '1', ...env },
  });
  assert.equal(r.error, undefined, r.error?.message);
  // eslint-disable-next-line no-control-regex
  return { status: r.status, out: `${r.stdout}${r.stderr}`.replace(/\x1b\[[0-9;]*m/g, '') };
}

const NUMBER = String.raw`([+-]?\d+\.\d\d)`;

describe('./build.sh exercise on a made-up corpus', () => {
  const data = join(work, 'toy-data');
  const out = join(work, 'out');
  let run;
  let results;
  before(() => {
    const toy = spawnSync(PYTHON, [join(ROOT, 'models', 'train', 'toy_corpus.py'), data, '--pairs', '400'], { encoding: 'utf8' });
    assert.equal(toy.status, 0, toy.stderr);
    run = exercise({ EXERCISE_DATA: data, EXERCISE_OUT: out, EXERCISE_UPDATES: '40' });
    assert.equal(run.status, 0, run.out);
    results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
  });

  test('prints BLEU overall and on the longest 10% for both models, as results.json holds them', () => {
    const header = run.out.match(/^model +updates +overall +longest 10% \((\d+), ([\d-]+) words\)$/m);
    assert.ok(header, run.out);
    assert.equal(Number(header[1]), results.longest_10pct);
    assert.equal(results.longest_10pct, Math.ceil(results.validation_sentences / 10));
    for (const [kind, title] of [['none', String.raw`no attention \(DecoderRNN\)`], ['dot', String.raw`dot attention \(Luong\)`]]) {
      const row = run.out.match(new RegExp(String.raw`^${title} +(\d+) +${NUMBER} +${NUMBER}$`, 'm'));
      assert.ok(row, `${kind}: no table row in\n${run.out}`);
      const r = results.models[kind];
      assert.equal(Number(row[1]), 40);
      assert.equal(r.updates, 40);
      assert.equal(Number(row[2]), r.bleu);
      assert.equal(Number(row[3]), r.bleu_longest_10pct);
      for (const bleu of [r.bleu, r.bleu_longest_10pct]) assert.ok(bleu >= 0 && bleu <= 100, `${kind}: BLEU ${bleu}`);
      // The engine translates the files as the networks did in PyTorch (greedy).
      assert.equal(r.engine_agrees_with_pytorch, results.validation_sentences, `${kind}: ${run.out}`);
    }
    assert.match(run.out, new RegExp(String.raw`^attention gains +${NUMBER} +${NUMBER}$`, 'm'));
    // Some learning happened in 40 updates: the made-up sentences are easy.
    assert.ok(results.models.dot.bleu > 10, JSON.stringify(results.models.dot));
  });

  test('says where the two files are and how to open them on the page', () => {
    for (const kind of ['none', 'dot']) {
      const file = join(out, `en-fr-tutorial-${kind}.alsc`);
      assert.ok(existsSync(file), file);
      assert.ok(run.out.includes(file), `${file} not named in\n${run.out}`);
    }
    assert.match(run.out, /Open a model file/);
  });

  for (const [kind, attention] of [['none', 'none'], ['dot', 'dot']]) {
    test(`en-fr-tutorial-${kind}.alsc opens in the engine (${attention} attention) and translates`, async () => {
      const engine = await createEngine({ variant: 'simd' });
      const info = engine.load(new Uint8Array(readFileSync(join(out, `en-fr-tutorial-${kind}.alsc`))));
      assert.equal(info.attention, attention);
      assert.equal(info.tokenizer, 'tutorial');
      assert.equal(info.weightType, 'f32');
      assert.equal(info.architecture.attentionBias, false);
      assert.equal(info.architecture.unidirectional, true);
      assert.equal(info.encoderHidden, results.hidden);
      assert.equal(info.maxTargetTokens, 16); // --max-words 15 + EOS
      const result = engine.translate('Open the new file');
      assert.ok(result.translation.trim().length > 0, JSON.stringify(result.translation));
      if (attention === 'none') {
        assert.equal(result.alpha, null);
      } else {
        for (let t = 0; t < result.T; t++) {
          const row = result.alpha.subarray(t * result.S, (t + 1) * result.S);
          assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-4, `row ${t} sums to 1`);
        }
      }
    });
  }

  // What a student does next: "Open a model file…" on the page, with the two files the command wrote (the same
  // pair as above: no second training run). The translation shown is the engine's with the page's beam, and the
  // model line names the file, its kind of attention and the tutorial network's traits (one-direction encoder,
  // the tutorial's tokeniser, f32 weights).
  test('both files open on the page through its file input: the translation shows, the model is described', async () => {
    const env = await startBrowser();
    try {
      const { page, errors, context } = await openPage(env.browser);
      const sentence = 'Open the new file';
      await gotoReady(page, env.url(`index.html#${new URLSearchParams({ s: sentence })}`));
      const engine = await createEngine({ variant: 'simd' });
      for (const [kind, described, short] of [['none', 'no attention \\(baseline\\)', 'no attention'], ['dot', 'dot-product attention \\(Luong\\)', 'dot']]) {
        const file = join(out, `en-fr-tutorial-${kind}.alsc`);
        const info = engine.load(new Uint8Array(readFileSync(file)));
        const want = engine.beam(sentence, { topK: 5, scoreScale: info.trainedScoreScale, beamWidth: DEFAULT_BEAM_WIDTH, lengthPenalty: DEFAULT_LENGTH_PENALTY }).hypotheses[0].translation;
        assert.ok(want.trim().length > 0, `precondition: ${kind} translates “${sentence}”`);
        await page.locator('#app input.as-file-input').setInputFiles(file);
        await page.locator('#app .as-model-info', { hasText: `en-fr-tutorial-${kind}.alsc` }).waitFor();
        await page.waitForFunction((t) => document.querySelector('#app .as-translation')?.textContent === t && document.querySelector('#app .as-status')?.hidden, want);
        const line = await page.locator('#app .as-model-info').textContent();
        assert.match(line, new RegExp(`^Your file “en-fr-tutorial-${kind}\\.alsc” \\([0-9.]+ [kM]B\\) · ${described} · one-direction encoder, [^·]*the tutorial’s tokeniser · f32 weights · [0-9]+ k parameters · en → fr\\. Not from this site’s list`), line);
        assert.match(await page.locator('#app .as-model-card select option:checked').textContent(), new RegExp(`^Your file: en-fr-tutorial-${kind}\\.alsc — ${short} · [0-9.]+ [kM]B$`));
        // No attention: the heatmap card says there is none; dot: its heatmap is painted.
        if (kind === 'none') assert.match(await page.locator('#app .as-heat-card').textContent(), /This model has no attention/);
        else await page.waitForFunction(() => Number(document.querySelector('#app .as-heat-card .as-heatmap-canvas')?.dataset.paints ?? 0) > 0);
      }
      engine.dispose();
      assert.deepEqual(errors, []);
      await context.close();
    } finally {
      await env.close();
    }
  });
});

describe('./build.sh exercise refuses bad input with a message', () => {
  const noTraceback = (r) => assert.doesNotMatch(r.out, /Traceback/, r.out);

  for (const [name, value] of [['EXERCISE_UPDATES', '0'], ['EXERCISE_UPDATES', 'lots'], ['EXERCISE_MINUTES', '-3']]) {
    test(`${name}=${value}`, () => {
      const r = exercise({ [name]: value, EXERCISE_DATA: join(work, 'never-read') });
      assert.notEqual(r.status, 0);
      assert.match(r.out, new RegExp(`${name} must be a positive whole number`));
      noTraceback(r);
    });
  }

  test('a corpus folder that does not exist', () => {
    const r = exercise({ EXERCISE_DATA: join(work, 'absent'), EXERCISE_OUT: join(work, 'out-absent'), EXERCISE_UPDATES: '1' });
    assert.notEqual(r.status, 0);
    assert.match(r.out, /exercise: no corpus folder .*absent/);
    noTraceback(r);
  });

  test('an empty corpus', () => {
    const empty = join(work, 'empty');
    mkdirSync(empty, { recursive: true });
    writeFileSync(join(empty, 'train.tsv'), '');
    writeFileSync(join(empty, 'dev.tsv'), '');
    const r = exercise({ EXERCISE_DATA: empty, EXERCISE_OUT: join(work, 'out-empty'), EXERCISE_UPDATES: '1' });
    assert.notEqual(r.status, 0);
    assert.match(r.out, /train\.tsv has no sentence pair/);
    noTraceback(r);
  });

  test('a corpus without dev.tsv', () => {
    const half = join(work, 'half');
    mkdirSync(half, { recursive: true });
    writeFileSync(join(half, 'train.tsv'), 'Open the file\tOuvrir le fichier\n');
    const r = exercise({ EXERCISE_DATA: half, EXERCISE_OUT: join(work, 'out-half'), EXERCISE_UPDATES: '1' });
    assert.notEqual(r.status, 0);
    assert.match(r.out, /dev\.tsv is missing/);
    noTraceback(r);
  });
});
