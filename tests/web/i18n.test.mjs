// i18n.test.mjs - the UI languages: every key in every language, no extra
// keys, the same placeholders, plural forms Intl knows, nothing left in
// English; the language chosen from the URL key and the browser's list; the
// link format; numbers and plurals per locale.
import test from 'node:test';
import assert from 'node:assert/strict';
import { STRINGS, UI_LANGUAGES, pickUiLanguage, setUiLanguage, t, tParts, num } from '../../web/i18n/all.js';
import { parseShareString, serializeShareState, defaultShareState } from '../../web/state.js';
import { fmt, fmtDivisor } from '../../web/lib/math.js';

const en = STRINGS.en;
const others = UI_LANGUAGES.map((l) => l.code).filter((c) => c !== 'en');
// Strings that are the same in every language: numbers, symbols and units.
// Anything with a word in it must be translated.
const SAME_EVERYWHERE = new Set([
  'heat.legendLow',   // 'α = 0': the scale's low end
  'heat.legendHigh',  // '1'
  'heat.legendRowLow', // '0'
  'heat.zoomPercent', // '{p} %'
  'bytes.kB',         // '{n} kB' (SI symbol; French writes ko)
  'bytes.MB',         // '{n} MB'
  'duration.minutes', // '{m} min' (SI symbol)
  'duration.hours',   // '{h} h {m} min'
  'byhand.shifted',   // '{x} (× e^max)': a formula
  'byhand.sqrt',      // '÷ √d = √{d}': a formula
  'steps.percent',    // '{p}%' (French puts a space before %)
  'page.keyEsc',      // 'Esc', the key's label in German and Spanish
  'input.variant.simd', // 'SIMD128': the WebAssembly feature's name
  'math.dValue',      // 'd = {d}': a formula
  'math.ref.sd',      // '√d': a formula
  'math.colD',        // 'd': a symbol
  'math.colScaled',   // 'eⱼ ÷ √d': a formula
  'erasure.sideHead', // 'ρ': Spearman's rank correlation
  'worksheet.pathPair', // '{row} ← {col}': a word pair
  'exercise.axisY',   // 'BLEU': the metric's name
  'exercise.ci',      // '({lo}–{hi})': an interval
  'exercise.listSep', // ', '
  'exercise.verdictSep', // '; '
]);
// Words that are the same in some of the languages, by key: checked to be few.
// ('Pause' is the French and German word; 'Additive' the French adjective;
// 'divisor' the German and Spanish mathematical term; 'token' the Spanish
// loanword of the field; 'General' the Spanish adjective; 'H bits', the
// entropy column's head, is French and Spanish too; 'max α(1 − α)' the
// abbreviation in French and German; 'score' the French word too; 'diagonal'
// the German and Spanish adjective, 'diffuse' the French.)
const SAME_IN = {
  de: new Set(['steps.pause', 'byhand.divisor', 'heat.diffHead', 'models.budgetEntry', 'math.short.grad', 'worksheet.shape.diagonal']),
  fr: new Set(['theory.kind.additive', 'steps.pause', 'heat.entropyHead', 'math.short.grad', 'math.colScore', 'worksheet.shape.diffuse']),
  es: new Set(['heat.entropyHead', 'input.tokens', 'theory.kind.general', 'byhand.divisor', 'byhand.scaled', 'byhand.exp', 'models.budgetEntry', 'worksheet.shape.diagonal']),
};
const forms = (v) => (typeof v === 'object' ? Object.values(v) : [v]);
const placeholders = (s) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

test('every language has exactly the English keys', () => {
  for (const code of others) {
    const keys = new Set(Object.keys(STRINGS[code]));
    const missing = Object.keys(en).filter((k) => !keys.has(k));
    const extra = [...keys].filter((k) => !(k in en));
    assert.deepEqual(missing, [], `${code} lacks keys`);
    assert.deepEqual(extra, [], `${code} has keys English does not`);
  }
});

test('placeholders match English, form by form', () => {
  for (const code of others) {
    for (const [k, v] of Object.entries(en)) {
      const want = [...new Set(forms(v).flatMap(placeholders))].sort();
      const theirs = STRINGS[code][k];
      assert.equal(typeof theirs, typeof v, `${code} ${k}: a plural in English is a plural here too`);
      for (const f of forms(theirs)) {
        const got = [...new Set(placeholders(f))].sort();
        // A singular form may leave out {n} ("one file"), never add one.
        const ok = typeof v === 'object' ? got.every((p) => want.includes(p)) && want.filter((p) => p !== 'n').every((p) => got.includes(p)) : got.join() === want.join();
        assert.ok(ok, `${code} ${k}: placeholders ${got} vs English ${want} in “${f}”`);
      }
    }
  }
});

test('plurals: the forms each language has are categories Intl.PluralRules knows, with one and other', () => {
  for (const { code } of UI_LANGUAGES) {
    const known = new Intl.PluralRules(code).resolvedOptions().pluralCategories;
    for (const [k, v] of Object.entries(STRINGS[code])) {
      if (typeof v !== 'object') continue;
      assert.ok('one' in v && 'other' in v, `${code} ${k}: one and other`);
      for (const cat of Object.keys(v)) assert.ok(known.includes(cat), `${code} ${k}: ${cat} is not a plural category of ${code}`);
    }
  }
});

test('no string is left in English (beyond the justified few)', () => {
  for (const code of others) {
    const same = Object.keys(en).filter((k) => JSON.stringify(en[k]) === JSON.stringify(STRINGS[code][k]) && !SAME_EVERYWHERE.has(k) && !SAME_IN[code].has(k));
    assert.deepEqual(same, [], `${code}: identical to English`);
    for (const k of SAME_IN[code]) assert.equal(JSON.stringify(en[k]), JSON.stringify(STRINGS[code][k]), `${code} ${k} is listed as the same as English but is not: drop it from SAME_IN`);
    // No value empty, none with a stray English article left at its start.
    for (const [k, v] of Object.entries(STRINGS[code])) for (const f of forms(v)) assert.ok(f.trim() !== '' || en[k].trim() === '', `${code} ${k} is empty`);
  }
});

test('the UI language: URL key, then the browser’s languages, then English; never an error', () => {
  assert.equal(pickUiLanguage('de', ['fr-FR']), 'de');
  assert.equal(pickUiLanguage('DE-at', []), 'de');
  assert.equal(pickUiLanguage('xx', ['es-MX', 'fr']), 'es', 'unknown key: the browser’s first UI language');
  assert.equal(pickUiLanguage(null, ['ja', 'fr-CA', 'de']), 'fr');
  assert.equal(pickUiLanguage('klingon', ['ja', 'zh']), 'en');
  assert.equal(pickUiLanguage(undefined, undefined), 'en');
  assert.equal(pickUiLanguage(42, 'not a list'), 'en');
});

test('the link: uilang round-trips, an unknown value is left out, and it is not the model’s pair', () => {
  assert.equal(parseShareString('#uilang=fr').uiLang, 'fr');
  assert.equal(parseShareString('#uilang=de-CH').uiLang, 'de');
  assert.equal(parseShareString('#uilang=xx').uiLang, undefined);
  assert.equal(parseShareString('#uilang=').uiLang, undefined);
  assert.equal(parseShareString('#m=en-de').uiLang, undefined, 'a model pair never sets the UI language');
  assert.equal(parseShareString('#uilang=es&m=en-fr').model, 'en-fr');
  const st = { ...defaultShareState(), uiLang: 'es' };
  assert.match(serializeShareState(st), /(^|&)uilang=es(&|$)/);
  assert.doesNotMatch(serializeShareState(defaultShareState()), /uilang/, 'no key until one is chosen');
  assert.equal(parseShareString(serializeShareState(st)).uiLang, 'es');
});

test('plurals and numbers per locale (Intl)', () => {
  try {
    setUiLanguage('en');
    assert.equal(t('file.many', { n: 1 }), '1 file was dropped: drop one model file (.alsc) at a time.');
    assert.equal(t('input.tokens', { n: 1234, max: num(2000) }), '1,234 / 2,000 tokens');
    assert.equal(fmt(0.7573), '0.757');
    setUiLanguage('fr');
    assert.match(t('file.many', { n: 1 }), /^1 fichier a été déposé/);
    assert.match(t('file.many', { n: 0 }), /^0 fichier a été déposé/, 'French: 0 takes the singular');
    assert.match(t('file.many', { n: 3 }), /^3 fichiers ont été déposés/);
    assert.equal(t('input.tokens', { n: 1234, max: num(2000) }), `1\u202f234 / 2\u202f000 jetons`);
    assert.equal(fmt(0.7573), '0,757');
    assert.equal(fmt(-0.5, 2), '\u22120,50');
    assert.equal(fmtDivisor(11.3137), '11,3');
    setUiLanguage('de');
    assert.equal(t('input.tokens', { n: 1234, max: num(2000) }), '1.234 / 2.000 Token');
    assert.equal(fmt(0.7573), '0,757');
    setUiLanguage('es');
    assert.match(t('file.many', { n: 1 }), /^Se soltó 1 archivo:/);
    assert.match(t('file.many', { n: 2 }), /^Se soltaron 2 archivos:/);
    setUiLanguage('xx');
    assert.equal(t('heat.heading'), 'Alignment heatmap', 'an unknown language is English');
  } finally {
    setUiLanguage('en');
  }
});

test('tParts puts nodes where the translation puts their placeholders', () => {
  try {
    setUiLanguage('de');
    const parts = tParts('theory.dictText', { query: 'Q', key: 'K', values: 'V', s: 'S', h: 'H' });
    assert.deepEqual(parts.filter((p) => p.length === 1), ['Q', 'S', 'K', 'V', 'H'].filter((x) => parts.includes(x)));
    for (const x of ['Q', 'K', 'V', 'S', 'H']) assert.ok(parts.includes(x), x);
    assert.ok(!parts.join('').includes('{'), 'every placeholder filled');
  } finally {
    setUiLanguage('en');
  }
});

test('the table’s cached number formatter writes exactly what fmt writes, in every UI language', async () => {
  const { fixedFormatter } = await import('../../web/lib/math.js');
  const values = [0, 1, 0.5, 0.0005, 0.0004999, 0.9995, 0.12345, 1 / 3, 2 / 3, 3.14159, 9.9996, -0, -0.0001, -0.25, 1e-9, 0.1 + 0.2, NaN, Infinity];
  for (let i = 0; i < 200; i++) values.push(Math.random() * (i % 2 ? 1 : 6));
  for (const { code } of UI_LANGUAGES) {
    setUiLanguage(code);
    for (const digits of [2, 3]) {
      const f = fixedFormatter(digits);
      for (const x of values) assert.equal(f(x), fmt(x, digits), `${code}, ${digits} digits, ${x}`);
    }
  }
  // One formatter made before a language change follows it.
  setUiLanguage('en');
  const f = fixedFormatter(3);
  assert.equal(f(0.5), '0.500');
  setUiLanguage('fr');
  assert.equal(f(0.5), '0,500');
  setUiLanguage('en');
});
