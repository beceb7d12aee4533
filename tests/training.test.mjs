// Training by update budget: straight, stopped-and-resumed and grown runs give
// the same weights bit for bit; a damaged or foreign state restarts
// (tests/support/training_check.py, on the made-up corpus, ~20 s).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { PYTHON, ROOT, TEST_MODELS, requireBuilt } from './support/alsc.mjs';

requireBuilt();

test('an update budget makes the same model however the run is cut', () => {
  const work = mkdtempSync(join(tmpdir(), 'alignscope-train-'));
  try {
    const run = spawnSync(PYTHON, [join(ROOT, 'tests', 'support', 'training_check.py'), join(TEST_MODELS, 'toy-data'), work],
      { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /^9 passed, 0 failed$/m);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

// ./build.sh runs (models/train/runs.py): where each resumable run stands,
// read from its state; a damaged state is named, not fatal; no runs, no error.
test('runs.py reports each state: its update, budget and curve; a damaged one is named', () => {
  const root = mkdtempSync(join(tmpdir(), 'alignscope-runs-'));
  try {
    const runsPy = join(ROOT, 'models', 'train', 'runs.py');
    const list = (dir, models = TEST_MODELS) => {
      const run = spawnSync(PYTHON, [runsPy, '--root', dir, '--models', models, '--json'], { encoding: 'utf8' });
      assert.equal(run.status, 0, run.stdout + run.stderr);
      return JSON.parse(run.stdout);
    };
    assert.deepEqual(list(join(root, 'absent')), []);
    // The smoke training's subword run (build.sh models): 300 updates of 300, done.
    const [toy] = list(TEST_MODELS).filter((r) => r.run === 'state-subwords');
    assert.ok(toy, 'the smoke training keeps a state in state-subwords');
    assert.equal(toy.update, toy.updates);
    assert.equal(toy.finished, true);
    assert.equal(toy.hours_left, 0);
    assert.ok(Array.isArray(toy.curve) && toy.curve.every((p) => p.update <= toy.update && Number.isFinite(p.dev_bleu)));
    // Its export is found by the phases its metrics carry; elsewhere it is not exported yet.
    assert.match(toy.exported_as, /subwords\.alsc$/);
    const [unexported] = list(TEST_MODELS, root).filter((r) => r.run === 'state-subwords');
    assert.equal(unexported.exported_as, null);
    mkdirSync(join(root, 'en-xx-additive'));
    writeFileSync(join(root, 'en-xx-additive', 'state.pt'), 'not a state');
    const [damaged] = list(root);
    assert.equal(damaged.run, 'en-xx-additive');
    assert.match(damaged.error, /state\.pt cannot be read/);
    const text = spawnSync(PYTHON, [runsPy, '--root', root], { encoding: 'utf8' });
    assert.equal(text.status, 0);
    assert.match(text.stdout, /^en-xx-additive: state\.pt cannot be read .*the next run starts it afresh$/m);
    // Hours left: at the latest phase's wall clock per update (2 s here, a pause included) and at its
    // CPU time per update (1.2 s), over the 1,800 updates left; an older phase's pace counts for neither.
    mkdirSync(join(root, 'en-yy-additive'));
    const made = spawnSync(PYTHON, ['-c', `import sys, torch
torch.save({"step": 1200, "updates": 3000, "curve": [], "best": {"dev_bleu": 5.0},
            "phases": [{"seconds": 9000, "cpu_seconds": 8000, "updates": 200}, {"seconds": 2000, "cpu_seconds": 1200, "updates": 1000}]}, sys.argv[1])`,
    join(root, 'en-yy-additive', 'state.pt')], { encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
    const paced = list(root).find((r) => r.run === 'en-yy-additive');
    assert.equal(paced.hours_left, 1);
    assert.equal(paced.cpu_hours_left, 0.6);
    const pacedText = spawnSync(PYTHON, [runsPy, '--root', root], { encoding: 'utf8' }).stdout;
    assert.match(pacedText, /^en-yy-additive: update 1,200 of 3,000, 3\.06 h trained, about 1\.00 h left at its latest pace \(0\.60 h at its CPU time per update\); best dev BLEU 5\.00$/m);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

// Checkpoint averaging, measured (models/train/average.py): on the smoke training's subword run, its
// last save and its decay-start snapshot (two updates) are averaged element-wise, scored on the dev
// sample beside the best checkpoint and the last save, and written as a checkpoint export.py reads;
// saves that cannot be averaged are refused by name.
test('average.py: the mean of a run\'s saves, scored on the dev sample and exported; bad saves refused', () => {
  const work = mkdtempSync(join(tmpdir(), 'alignscope-average-'));
  try {
    const state = join(TEST_MODELS, 'state-subwords');
    const averagePy = join(ROOT, 'models', 'train', 'average.py');
    const base = [averagePy, '--data', join(TEST_MODELS, 'toy-data'), '--best', join(state, 'best.pt'), '--last', '2'];
    const run = spawnSync(PYTHON, [...base, join(state, 'state.pt'), join(state, 'stable.pt'), '--json', join(work, 'avg.json'), '--out', join(work, 'avg.pt')], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    const rows = JSON.parse(readFileSync(join(work, 'avg.json'), 'utf8')).rows;
    assert.deepEqual(rows.map((r) => r.weights.replace(/\d+/g, 'N')), ['best checkpoint (update N)', 'last save (update N)', 'mean of the last N saves (updates N–N)']);
    assert.ok(rows.every((r) => Number.isFinite(r.dev_bleu)));
    assert.match(run.stdout, /^\| mean of the last 2 saves \(updates \d+–\d+\) \| \d+\.\d\d \|$/m);
    // The written weights are the mean of the two saves, tensor by tensor.
    const check = spawnSync(PYTHON, ['-c', `import sys, torch
load = lambda p: torch.load(p, weights_only=False)["state_dict"]  # our own saves (checkpoints.load_own)
a, b, m = load(sys.argv[1]), load(sys.argv[2]), load(sys.argv[3])
assert set(m) == set(a)
worst = max(float(((a[k].double() + b[k].double()) / 2 - m[k].double()).abs().max()) for k in m)
assert worst < 1e-6, worst
print("mean ok")`, join(state, 'state.pt'), join(state, 'stable.pt'), join(work, 'avg.pt')], { encoding: 'utf8' });
    assert.equal(check.status, 0, check.stdout + check.stderr);
    const exported = spawnSync(PYTHON, [join(ROOT, 'models', 'train', 'export.py'), join(work, 'avg.pt'), join(work, 'avg.alsc'), '--languages', 'en,fr'], { encoding: 'utf8' });
    assert.equal(exported.status, 0, exported.stdout + exported.stderr);
    // Refused, with the reason: the same update twice, a file that is no checkpoint, another run's vocabularies.
    const refused = (saves) => spawnSync(PYTHON, [...base, ...saves], { encoding: 'utf8' });
    const twice = refused([join(state, 'state.pt'), join(state, 'state.pt')]);
    assert.equal(twice.status, 1);
    assert.match(twice.stderr, /^average\.py: two saves of the same update/m);
    writeFileSync(join(work, 'junk.pt'), 'not a checkpoint');
    const junk = refused([join(state, 'state.pt'), join(work, 'junk.pt')]);
    assert.equal(junk.status, 1);
    assert.match(junk.stderr, /junk\.pt cannot be read/);
    const foreign = refused([join(state, 'state.pt'), join(TEST_MODELS, 'run-additive', 'checkpoint.pt')]);
    assert.equal(foreign.status, 1);
    assert.match(foreign.stderr, /checkpoint\.pt has other vocabularies than the best checkpoint/);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

// ./build.sh ablate (issue 28's recipe table): each variant is MODEL_RECIPE with its own arguments after
// it, trained from the same seed for the same budget into its own state; runs.py --table puts their dev
// BLEU side by side by update. On the made-up corpus, 6 updates each; a wrong variant or budget is refused.
test('./build.sh ablate trains each variant on the recipe with its change and prints the dev BLEU table', () => {
  const root = mkdtempSync(join(tmpdir(), 'alignscope-ablate-'));
  try {
    const env = { ...process.env, ABLATE_DATA: join(TEST_MODELS, 'toy-data'), ABLATE_UPDATES: '6', ABLATE_STATE_DIR: root, ABLATE_PARALLEL: '2' };
    const run = spawnSync(join(ROOT, 'build.sh'), ['ablate'], { cwd: ROOT, encoding: 'utf8', env: { ...env, ABLATE_VARIANTS: 'recipe no-label-smoothing layer-norm dialogue-final' } });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /^\| run \| 6 \| at update \| best \|$/m);
    for (const name of ['recipe', 'no-label-smoothing', 'layer-norm', 'dialogue-final']) assert.match(run.stdout, new RegExp(`^\\| en-fr-${name} \\| \\d+\\.\\d\\d \\| 6 of 6 \\| \\d+\\.\\d\\d \\|$`, 'm'));
    // The variant's change is in its state's arguments, and nothing else differs from the recipe's.
    const identities = spawnSync(PYTHON, ['-c', `import json, sys, torch
print(json.dumps([torch.load(p, weights_only=False)["identity"] for p in sys.argv[1:]]))`, ...['recipe', 'no-label-smoothing', 'layer-norm', 'dialogue-final'].map((name) => join(root, `en-fr-${name}`, 'state.pt'))], { encoding: 'utf8' });
    assert.equal(identities.status, 0, identities.stderr);
    const [recipe, changed, normed, finalPhase] = JSON.parse(identities.stdout);
    assert.equal(recipe.label_smoothing, 0.1);
    assert.deepEqual({ ...changed, label_smoothing: 0.1 }, recipe);
    assert.deepEqual({ ...normed, layer_norm: false }, recipe);
    assert.equal(normed.layer_norm, true);
    assert.deepEqual({ ...finalPhase, final_domain_weights: '', final_share: 0 }, recipe);
    assert.equal(finalPhase.final_share, 0.2);
    const refused = spawnSync(join(ROOT, 'build.sh'), ['ablate'], { cwd: ROOT, encoding: 'utf8', env: { ...env, ABLATE_VARIANTS: 'recipe batch-norm' } });
    assert.equal(refused.status, 2);
    assert.match(refused.stderr + refused.stdout, /ablate: no variant 'batch-norm' \(the variants: recipe no-label-smoothing /);
    const twoCorpora = spawnSync(join(ROOT, 'build.sh'), ['ablate'], { cwd: ROOT, encoding: 'utf8', env: { ...env, ABLATE_EXTRA_SOURCES: 'dictionary @apertium es' } });
    assert.equal(twoCorpora.status, 2);
    assert.match(twoCorpora.stderr + twoCorpora.stdout, /ABLATE_EXTRA_SOURCES builds a corpus of its own: leave ABLATE_DATA unset/);
    const budget = spawnSync(join(ROOT, 'build.sh'), ['ablate'], { cwd: ROOT, encoding: 'utf8', env: { ...env, ABLATE_UPDATES: '0' } });
    assert.equal(budget.status, 2);
    assert.match(budget.stderr + budget.stdout, /ABLATE_UPDATES must be a positive whole number of updates, not '0'/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

// OpenBLAS's kernels (models/train/openblas_core.py): chosen from the CPU's
// flags, an existing OPENBLAS_CORETYPE kept, and what a freshly started
// Python (as build.sh and train.py start it) then runs is that choice.
test('openblas_core: kernels from the CPU flags, a set value kept, the loaded library runs the choice', () => {
  const dir = mkdtempSync(join(tmpdir(), 'alignscope-blas-'));
  try {
    const cpuinfo = (flags) => {
      const path = join(dir, `cpuinfo-${flags.length}`);
      writeFileSync(path, `processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Processor\nflags\t\t: ${flags.join(' ')}\n\nprocessor\t: 1\nflags\t\t: sse\n`);
      return path;
    };
    const avx512 = ['fpu', 'sse2', 'avx', 'avx2', 'fma', 'avx512f', 'avx512cd', 'avx512bw', 'avx512dq', 'avx512vl'];
    const cases = [
      [cpuinfo(avx512), {}, 'SkylakeX'],
      [cpuinfo(avx512.filter((f) => f !== 'avx512vl')), {}, 'Haswell'], // AVX-512 without VL: the AVX2 kernels
      [cpuinfo(['fpu', 'sse2', 'avx', 'avx2']), {}, null], // AVX2 without FMA: OpenBLAS chooses
      [cpuinfo(['fpu', 'sse2']), {}, null],
      [join(dir, 'absent'), {}, null],
      [cpuinfo(avx512), { OPENBLAS_CORETYPE: 'Haswell' }, 'Haswell'], // set by hand: kept
    ];
    const script = `
import json, sys
sys.path.insert(0, ${JSON.stringify(join(ROOT, 'models', 'train'))})
import openblas_core
out = []
for path, environ in json.loads(sys.argv[1]):
    core = openblas_core.choose(environ, path)
    out.append([core, environ.get("OPENBLAS_CORETYPE")])
print(json.dumps(out))`;
    const env = { ...process.env };
    delete env.OPENBLAS_CORETYPE;
    const run = spawnSync(PYTHON, ['-c', script, JSON.stringify(cases.map(([p, e]) => [p, e]))], { encoding: 'utf8', env });
    assert.equal(run.status, 0, run.stderr);
    const got = JSON.parse(run.stdout);
    cases.forEach(([path, , want], i) => assert.deepEqual(got[i], [want, want], `${path}: ${JSON.stringify(got[i])}`));
    // This machine: the module's choice (if any) is what the library loaded after it runs.
    const loaded = spawnSync(PYTHON, ['-c', `
import json, os, sys
sys.path.insert(0, ${JSON.stringify(join(ROOT, 'models', 'train'))})
import openblas_core
import torch
torch.ones(64, 64) @ torch.ones(64, 64)
print(json.dumps([os.environ.get("OPENBLAS_CORETYPE"), openblas_core.loaded_core()]))`], { encoding: 'utf8', env });
    assert.equal(loaded.status, 0, loaded.stderr);
    const [chosen, running] = JSON.parse(loaded.stdout);
    if (chosen && running) assert.equal(running.toLowerCase(), chosen.toLowerCase(), `chose ${chosen}, OpenBLAS runs ${running}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
