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
//
// That cut is made by the engine, on tokens (engine.translate's cutSource),
// not here on the text: a character the vocabulary lacks is several byte
// tokens sharing its span (😀 is four), and a word cut short may split into
// other pieces than the whole word did, so no cut of the text can promise
// to hold exactly maxSourceTokens tokens. The engine is given the whole
// sentence and reads its first maxSourceTokens tokens; the part's `end`
// is where the last of them ends in the text (a character boundary: spans
// are whole characters), what the page shows as read.

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
 *   { count, max, over, parts: [{ start, end, tokens, cut, sendEnd }] }
 * Within the limit there is one part, the whole text. Over it, one part per
 * sentence that has tokens; a part with more than `max` tokens ends after
 * its max-th token (cut: true, tokens: max): the engine is given
 * text.slice(start, sendEnd), the whole sentence, and reads its first `max`
 * tokens (cutSource). Every other part has sendEnd === end.
 */
export function planInput(text, tokens, max) {
  const count = tokens.length;
  if (count <= max) return { count, max, over: false, parts: [{ start: 0, end: text.length, tokens: count, cut: false, sendEnd: text.length }] };
  const parts = [];
  let k = 0;
  for (const s of splitSentences(text)) {
    const first = k;
    while (k < tokens.length && tokens[k].start < s.end) k++;
    const n = k - first;
    if (n === 0) continue;
    if (n > max) parts.push({ start: s.start, end: tokens[first + max - 1].end, tokens: max, cut: true, sendEnd: s.end });
    else parts.push({ start: s.start, end: s.end, tokens: n, cut: false, sendEnd: s.end });
  }
  return { count, max, over: true, parts };
}

/**
 * `text` cut to at most `max` UTF-16 units (a textarea's maxlength, the
 * link's cap) where a character ends: never between the two halves of a
 * surrogate pair (a lone half is not text: the link would write it as
 * U+FFFD and no longer say what the page shows), and, where the runtime
 * can segment text, never inside a grapheme (é as e + U+0301, 👍🏽, 🇫🇷).
 * A text within `max` comes back as it is.
 */
export function cutText(text, max) {
  if (typeof text !== 'string') return '';
  if (text.length <= max) return text;
  let end = max;
  // Code points first: the unit at `end` must not be the low half of a pair.
  const low = (i) => i > 0 && i < text.length && (text.charCodeAt(i) & 0xfc00) === 0xdc00 && (text.charCodeAt(i - 1) & 0xfc00) === 0xd800;
  if (low(end)) end--;
  const Segmenter = globalThis.Intl?.Segmenter;
  if (Segmenter) {
    // A boundary depends only on what precedes it and the character after
    // it: the text up to two units past the cut decides every boundary up to it.
    let last = 0;
    for (const { index } of new Segmenter(undefined, { granularity: 'grapheme' }).segment(text.slice(0, max + 2))) {
      if (index > end) break;
      last = index;
    }
    // One grapheme longer than the whole cap (a pile of combining marks): cut it at a code point.
    if (last > 0) end = last;
  }
  return text.slice(0, end);
}

/** A short excerpt of a part for the picker: its first words, with … when longer. */
export function excerpt(text, { start, end }, maxChars = 48) {
  const s = text.slice(start, end).replace(/\s+/g, ' ');
  const chars = Array.from(s);
  return chars.length > maxChars ? `${chars.slice(0, maxChars - 1).join('').trimEnd()}…` : s;
}
