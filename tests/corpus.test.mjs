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
