// seeded.mjs - a small seeded generator for the property tests (a fixed seed
// and count: the same cases on every run, so a failure names its case and
// can be replayed). mulberry32: 32-bit state, good enough to pick cases.
import { mulberry32 } from '../../web/lib/random.js';

export function seeded(seed) {
  const next = mulberry32(seed);
  const int = (n) => Math.floor(next() * n);
  const pick = (list) => list[int(list.length)];
  return { next, int, pick, chance: (p) => next() < p };
}

/** Hostile and ordinary values for any text field, drawn from `r` (a seeded()). */
export function hostileValue(r, valid = []) {
  const kinds = [
    () => '', () => ' ', () => 'x'.repeat(100_000), () => '😀'.repeat(1 + r.int(1200)),
    () => r.pick(['constructor', '__proto__', 'hasOwnProperty', 'toString', 'valueOf', 'prototype', '__defineGetter__']),
    () => r.pick(['\ud83d', '\ude00', 'a\ud83d', '\ude00b', `${'a'.repeat(1999)}\ud83d\ude00`]),
    () => r.pick(['NaN', 'Infinity', '-Infinity', '-1', '-0', '1e9', '1e-9', '0x10', '1_000', '١٢', '+1', '.5', '5.', '1e', ' 2 ']),
    () => r.pick(['é', 'e\u0301', '👍🏽', '🇫🇷🇩🇪', '中文句子', 'עברית', '\u0000', '\u202e', 'a\u200bb', '\r\n']),
    () => r.pick(['%', '%E0%A4%A', '%00', '%ZZ', '%F0%9F%98', '&', '=', '&&==', '#', '?', '+', '%2B', '%26s%3Dx']),
    () => r.pick(['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', 'javascript:alert(1)', 'https://evil.example/m.alsc', '../../etc/passwd']),
    () => String(r.next() * 200 - 100), () => String(r.int(3000)),
    () => Array.from({ length: r.int(12) }, () => String.fromCharCode(r.int(0x10000))).join(''),
    ...(valid.length ? [() => r.pick(valid), () => r.pick(valid), () => r.pick(valid)] : []),
  ];
  return r.pick(kinds)();
}
