// readme.mjs - pastes tests/bench/results.md (written by a full
// `./build.sh bench`) into README.md between its bench markers.
//   node tests/bench/readme.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
export const README = join(HERE, '..', '..', 'README.md');
export const RESULTS_MD = join(HERE, 'results.md');
export const BEGIN = '<!-- tests/bench/results.md begins: node tests/bench/readme.mjs pastes it -->';
export const END = '<!-- tests/bench/results.md ends -->';

/** The text between the markers, or null when they are missing. */
export function benchBlock(readme) {
  const a = readme.indexOf(BEGIN), b = readme.indexOf(END);
  return a < 0 || b < a ? null : readme.slice(a + BEGIN.length, b);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const readme = readFileSync(README, 'utf8');
  if (benchBlock(readme) == null) throw new Error(`README.md has no bench markers (${BEGIN} … ${END})`);
  const a = readme.indexOf(BEGIN), b = readme.indexOf(END);
  writeFileSync(README, `${readme.slice(0, a + BEGIN.length)}\n${readFileSync(RESULTS_MD, 'utf8').trim()}\n${readme.slice(b)}`);
  console.log('README.md: the bench block now holds tests/bench/results.md');
}
