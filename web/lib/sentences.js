// sentences.js - text longer than a model reads, cut into what it can read
// (pure; tested in tests/web/long-input.test.mjs).
//
// The engine reads at most maxSourceTokens tokens. A pasted paragraph is
// split into sentences (after . ! ? … and at line breaks, but not after an
// abbreviation such as "e.g." or "Dr." or an initial); each becomes a
// part the reader can pick, and a sentence that is itself too long is cut
// after its first maxSourceTokens tokens. Token spans come from the
// engine's own tokeniser (engine.tokenize(), through the worker), so a count
// here is exactly the count the model would see.

// A full stop after one of these (any case) or after a single letter ("J. R.
// R. Tolkien") does not end a sentence, nor does one before a word that starts
// in lower case ("e.g. this", "approx. ten"). "etc." often does end one, so
// it follows the lower-case rule alone.
const ABBREVIATIONS = new Set(['mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'vs', 'cf', 'e.g', 'i.e', 'no', 'fig', 'vol', 'approx', 'ca']);

/** Whether the "." at text[i] (followed by whitespace) closes an abbreviation, not a sentence. */
function abbreviationAt(text, i) {
  let a = i;
  while (a > 0 && /[\p{L}.]/u.test(text[a - 1])) a--;
  const word = text.slice(a, i).toLowerCase();
  if (ABBREVIATIONS.has(word) || /^\p{L}$/u.test(word)) return true;
  const next = text.slice(i + 1).match(/^\s*(\S)/u);
  return !!next && /\p{Ll}/u.test(next[1]);
}

/** Sentence ranges [{ start, end }] of `text` (UTF-16 offsets), whitespace trimmed. */
export function splitSentences(text) {
  const out = [];
  let from = 0;
  const push = (a, b) => {
    while (a < b && /\s/u.test(text[a])) a++;
    while (b > a && /\s/u.test(text[b - 1])) b--;
    if (b > a) out.push({ start: a, end: b });
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') { push(from, i); from = i + 1; continue; }
    if (!'.!?…'.includes(c)) continue;
    // A run of marks and closing quotes/brackets, then whitespace or the end:
    // "3.5" and "e.g.x" do not end a sentence.
    let k = i + 1;
    while (k < text.length && '.!?…"\'”’)]'.includes(text[k])) k++;
    const ends = k === text.length || /\s/u.test(text[k]);
    if (ends && !(c === '.' && k === i + 1 && k < text.length && abbreviationAt(text, i))) { push(from, k); from = k; i = k - 1; }
  }
  push(from, text.length);
  return out;
}

/**
 * What to translate for `text` given its tokens ([{ start, end }], UTF-16)
 * and the model's limit:
 *   { count, max, over, parts: [{ start, end, tokens, cut }] }
 * Within the limit there is one part, the whole text. Over it, one part per
 * sentence that has tokens; a part with more than `max` tokens ends after
 * its max-th token (cut: true).
 */
export function planInput(text, tokens, max) {
  const count = tokens.length;
  if (count <= max) return { count, max, over: false, parts: [{ start: 0, end: text.length, tokens: count, cut: false }] };
  const parts = [];
  let k = 0;
  for (const s of splitSentences(text)) {
    const first = k;
    while (k < tokens.length && tokens[k].start < s.end) k++;
    const n = k - first;
    if (n === 0) continue;
    if (n > max) parts.push({ start: s.start, end: tokens[first + max - 1].end, tokens: max, cut: true });
    else parts.push({ start: s.start, end: s.end, tokens: n, cut: false });
  }
  return { count, max, over: true, parts };
}

/** A short excerpt of a part for the picker: its first words, with … when longer. */
export function excerpt(text, { start, end }, maxChars = 48) {
  const s = text.slice(start, end).replace(/\s+/g, ' ');
  const chars = Array.from(s);
  return chars.length > maxChars ? `${chars.slice(0, maxChars - 1).join('').trimEnd()}…` : s;
}
