// models/train/choose_beam.py on a tiny test model and its toy corpus: every
// width x length penalty setting is scored (greedy once), the choice is the
// best cased BLEU among them (ties: the smaller width), greedy's score is
// what eval_alsc.py's greedy run gives, and a folder without dev.tsv gets a
// clear message instead of a choice.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { PYTHON, ROOT, TEST_MODELS, requireBuilt } from './support/alsc.mjs';

requireBuilt();
const MODEL = join(TEST_MODELS, 'additive.alsc');
const DATA = join(TEST_MODELS, 'toy-data');
const skip = existsSync(MODEL) && existsSync(join(DATA, 'dev.tsv')) ? false : 'test models not built: ./build.sh models';

test('choose_beam.py scores every setting and picks the best', { skip, timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'alignscope-choose-'));
  try {
    const out = join(dir, 'choice.json');
    const r = spawnSync(PYTHON, [join(ROOT, 'models', 'train', 'choose_beam.py'), MODEL, '--data', DATA, '--sample', '30', '--json', out], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const res = JSON.parse(readFileSync(out, 'utf8'));
    assert.equal(res.sentences, 30);
    const keys = res.results.map((x) => `${x.width}:${x.length_penalty}`);
    assert.deepEqual(keys, ['1:null', ...[3, 5, 8].flatMap((w) => [0.6, 0.8, 1, 1.2].map((p) => `${w}:${p}`))]);
    const top = Math.max(...res.results.map((x) => x.bleu_cased_13a));
    const first = res.results.find((x) => x.bleu_cased_13a === top);
    assert.equal(res.choice.width, first.width);
    assert.equal(res.choice.length_penalty, first.length_penalty ?? 1);
    assert.match(r.stdout, new RegExp(`#define AS_DEFAULT_BEAM_WIDTH ${res.choice.width}\\n`));
    // width 1 is the greedy CLI run
    const greedy = spawnSync(PYTHON, ['-c', `import sys; sys.path.insert(0, 'models/train'); import eval_alsc, choose_beam, json
rows = choose_beam.dev_rows(${JSON.stringify(DATA)}, 30)
texts, _ = eval_alsc.translate(eval_alsc.DEFAULT_CLI, ${JSON.stringify(MODEL)}, [r[0] for r in rows])
print(json.dumps(eval_alsc.score(texts, [r[1] for r in rows])))`], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(greedy.status, 0, greedy.stderr);
    assert.equal(JSON.parse(greedy.stdout).bleu_cased_13a, res.results[0].bleu_cased_13a);
    const missing = spawnSync(PYTHON, [join(ROOT, 'models', 'train', 'choose_beam.py'), MODEL, '--data', dir], { encoding: 'utf8' });
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /dev\.tsv is missing/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
