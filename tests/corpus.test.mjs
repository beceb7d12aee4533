// The corpus builder's cleaning, .mo parsing and leak-free split, and BLEU,
// checked by tests/support/corpus_check.py (made-up data, no network).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('./support/corpus_check.py', import.meta.url));

test('corpus builder and BLEU unit checks', () => {
  const run = spawnSync('/usr/bin/python3', [script], { encoding: 'utf8' });
  const lines = (run.stdout || '').trim().split('\n');
  for (const line of lines) console.log(line);
  assert.equal(run.status, 0, `corpus_check.py failed:\n${run.stdout}\n${run.stderr}`);
  assert.ok(lines.filter((l) => l.startsWith('ok ')).length >= 6, 'expected at least 6 checks to run');
});

// extra_sources.py's pairing of package descriptions, LibreOffice and GIMP
// help, on made-up files (no apt, no network).
test('extra corpus sources pair what belongs together', () => {
  const checks = fileURLToPath(new URL('./support/extra_sources_check.py', import.meta.url));
  const run = spawnSync('/usr/bin/python3', [checks], { encoding: 'utf8' });
  assert.equal(run.status, 0, `extra_sources_check.py failed:\n${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /^(\d+) passed, 0 failed$/m);
  assert.ok(Number(run.stdout.match(/^(\d+) passed/m)[1]) >= 5, 'expected at least 5 checks');
});

// The project's own test sets (models/testsets/): the teacher's 200 sentences
// and the everyday sentences' references, checked by tests/support/testsets_check.py.
test('our test sets keep their rules', () => {
  const checks = fileURLToPath(new URL('./support/testsets_check.py', import.meta.url));
  const run = spawnSync('/usr/bin/python3', [checks], { encoding: 'utf8' });
  assert.equal(run.status, 0, `testsets_check.py failed:\n${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /^(\d+) passed, 0 failed$/m);
  assert.ok(Number(run.stdout.match(/^(\d+) passed/m)[1]) >= 10, 'expected at least 10 checks');
});
