// lib/sentences.js: text longer than the model reads, split into sentences
// the reader can pick, and a sentence that is itself too long cut.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitSentences, planInput, excerpt } from '../../web/lib/sentences.js';

// Whitespace tokens with UTF-16 spans, standing in for the engine's tokeniser.
const tokensOf = (text) => [...text.matchAll(/[^\s.!?]+|[.!?]/g)].map((m) => ({ start: m.index, end: m.index + m[0].length }));
const slices = (text, ranges) => ranges.map((r) => text.slice(r.start, r.end));

test('sentences end after . ! ? … before a space, and at line breaks', () => {
  const t = 'Open the file. Save it now!  Version 3.5 is out?\nNext line without a mark\n\n“Quoted.” End…';
  assert.deepEqual(slices(t, splitSentences(t)), ['Open the file.', 'Save it now!', 'Version 3.5 is out?', 'Next line without a mark', '“Quoted.”', 'End…']);
  assert.deepEqual(splitSentences('   '), []);
  // Abbreviations and initials do not end a sentence; a lower-case word after a full stop continues it.
  const abbrev = 'Use a tool, e.g. a hammer. Dr. Smith met J. R. R. Tolkien. It costs approx. ten euros, i.e. a lot. Bring pens, paper, etc. The end.';
  assert.deepEqual(slices(abbrev, splitSentences(abbrev)), ['Use a tool, e.g. a hammer.', 'Dr. Smith met J. R. R. Tolkien.', 'It costs approx. ten euros, i.e. a lot.', 'Bring pens, paper, etc.', 'The end.']);
  assert.deepEqual(slices('See No. 5. Then go.', splitSentences('See No. 5. Then go.')), ['See No. 5.', 'Then go.']);
  assert.deepEqual(slices('one', splitSentences('one')), ['one']);
});

test('within the limit: one part, the whole text', () => {
  const t = 'Open the file. Close it.';
  const p = planInput(t, tokensOf(t), 100);
  assert.deepEqual(p, { count: 7, max: 100, over: false, parts: [{ start: 0, end: t.length, tokens: 7, cut: false, sendEnd: t.length }] });
});

test('over the limit: one part per sentence, each within the limit', () => {
  const t = 'Open the file. Save all the changes now! Quit.';
  const p = planInput(t, tokensOf(t), 5);
  assert.equal(p.over, true);
  assert.equal(p.count, 12);
  assert.deepEqual(slices(t, p.parts), ['Open the file.', 'Save all the changes now', 'Quit.']);
  assert.deepEqual(p.parts.map((q) => [q.tokens, q.cut]), [[4, false], [5, true], [2, false]]);
});

test('one endless sentence: its first max tokens', () => {
  const t = 'word '.repeat(400).trim();
  const p = planInput(t, tokensOf(t), 100);
  assert.equal(p.count, 400);
  assert.equal(p.parts.length, 1);
  assert.equal(p.parts[0].tokens, 100);
  assert.equal(p.parts[0].cut, true);
  assert.equal(t.slice(p.parts[0].start, p.parts[0].end).split(' ').length, 100);
});

test('the picker’s excerpt is short and whitespace-collapsed', () => {
  const t = 'A   rather\nlong sentence that goes on and on and on beyond the excerpt.';
  assert.equal(excerpt(t, { start: 0, end: t.length }, 20), 'A rather long sente…');
  assert.equal(excerpt(t, { start: 0, end: 10 }), 'A rather');
});

// Issue 34 case 2: one word of 26 × 😀 is 105 tokens for the default model
// (a marked ▁, then four byte tokens per emoji, each with the emoji's span):
// no cut of the text holds exactly 100 of them (24 emojis are 97, 25 are 101),
// so the engine is given the sentence and reads its first 100 (cutSource).
test('one long word is cut, not refused: the engine reads exactly its first max tokens', async () => {
  const fs = await import('node:fs');
  const { createEngine } = await import('../../web/engine.js');
  const engine = await createEngine({ variant: 'scalar', wasmBytes: fs.readFileSync(new URL('../../web/gen/alignscope-scalar.wasm', import.meta.url)) });
  const info = engine.load(fs.readFileSync(new URL('../../models/en-fr.alsc', import.meta.url)));
  const text = '😀'.repeat(26);
  const tokens = engine.tokenize(text);
  assert.equal(tokens.length, 105);
  const p = planInput(text, tokens, info.maxSourceTokens);
  assert.equal(p.parts.length, 1);
  const part = p.parts[0];
  assert.deepEqual([part.tokens, part.cut], [100, true]);
  // What controllers/translation.js sends for the part.
  const trace = engine.translate(text.slice(part.start, part.sendEnd ?? part.end), { cutSource: part.cut });
  assert.equal(trace.S, info.maxSourceTokens, 'exactly the first 100 tokens read');
  assert.equal(trace.sourceCount, 105);
  assert.ok(trace.translation.length > 0);
  assert.ok(text.slice(part.start, part.end).isWellFormed(), 'what the page shows as read ends where a character does');
});
