// The step-through's local window without a browser: the link's `win=`
// (lib/local.js through state.js and controllers/links.js: a bad value is
// said and the window shown stays), the window's centre against the
// engine's own (engine.windowMask), why the windowed translation parts from
// the global one (windowWhy, on the page's default model), the controller
// (controllers/local.js) driving the engine in this process, and the
// report's numbers as the page reads them (index.json report.local) against
// report.py's file and REPORT.md.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseWindow, windowCentre, windowWhy, localReport, localReportFor, measuredOnText, WINDOW_CHOICES } from '../../web/lib/local.js';
import { parseShareString, serializeShareState, defaultShareState, createStore, linkProblemText } from '../../web/state.js';
import { createLinks } from '../../web/controllers/links.js';
import { createLocal } from '../../web/controllers/local.js';
import { createEngine, DEFAULT_BEAM_WIDTH } from '../../web/engine.js';
import { CONFIG } from '../../web/config.js';
import { setUiLanguage } from '../../web/i18n/all.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
setUiLanguage('en');
const settle = () => new Promise((r) => setTimeout(r, 0));
async function until(fn, what) {
  for (let i = 0; i < 200; i++) { if (fn()) return; await settle(); }
  assert.fail(`timed out waiting for ${what}`);
}

describe('the win= value', () => {
  test('a whole number 0 … localWindowMax; anything else is null', () => {
    assert.deepEqual(WINDOW_CHOICES, Array.from({ length: CONFIG.localWindowMax + 1 }, (_, d) => d));
    for (let d = 0; d <= CONFIG.localWindowMax; d++) assert.equal(parseWindow(String(d)), d);
    for (const bad of [String(CONFIG.localWindowMax + 1), '-1', '1.5', '', ' ', 'off', 'NaN', '1e0', '0x1', '99', null, undefined, 3]) {
      assert.equal(parseWindow(bad), null, String(bad));
    }
  });

  test('a link sets it and writes it back; a bad value is left out and said', () => {
    assert.equal(parseShareString('#s=hi&win=2').winD, 2);
    assert.equal(defaultShareState().winD, null);
    const st = { ...defaultShareState(), winD: 3 };
    assert.equal(new URLSearchParams(serializeShareState(st)).get('win'), '3');
    assert.equal(new URLSearchParams(serializeShareState(defaultShareState())).get('win'), null, 'off: not written');
    assert.equal(parseShareString(`#${serializeShareState(st)}`).winD, 3, 'round trip');
    for (const bad of ['9', '-1', 'x', '2.5']) {
      const out = parseShareString(`#s=hi&win=${encodeURIComponent(bad)}`);
      assert.equal(out.winD, undefined, bad);
      assert.equal(out.problems.length, 1);
      assert.equal(linkProblemText(out.problems[0]), `win=“${bad}” was left out: win takes a whole number from 0 to ${CONFIG.localWindowMax}.`);
    }
  });

  test('a pasted link: a good window replaces the one shown; a bad one leaves it and gives a notice', () => {
    const store = createStore({ ...defaultShareState(), notices: {}, winD: 2 });
    const links = createLinks(store, { models: { check: (m) => m }, full: true });
    links.apply(parseShareString('#win=4'));
    assert.equal(store.get().winD, 4);
    links.apply(parseShareString('#win=12'));
    assert.equal(store.get().winD, 4, 'the last valid window stays');
    assert.match(store.get().notices['link.win'], /win=“12” was left out/);
    links.apply(parseShareString('#win=0'));
    assert.equal(store.get().winD, 0);
    assert.equal(store.get().notices['link.win'], undefined, 'a good link clears the notice');
  });
});

// The page's default model, as the page decodes (a beam of the default width).
const catalog = JSON.parse(fs.readFileSync(path.join(REPO, 'web', 'models', 'index.json'), 'utf8'));
const entry = catalog.models.find((m) => m.id === catalog.default);
let engine = null;
let info = null;
async function real() {
  if (!engine) {
    engine = await createEngine({ variant: 'scalar' });
    info = engine.load(new Uint8Array(fs.readFileSync(path.join(REPO, 'web', 'models', entry.file))));
  }
  return engine;
}
const decode = (text, opts = {}) => engine.beam(text, { beamWidth: DEFAULT_BEAM_WIDTH, ...opts }).hypotheses[0];

describe('the window', () => {
  test('its centre is the engine\'s: the one position a window of 0 keeps, before T and past it', async () => {
    await real();
    for (const [T, S] of [[1, 1], [1, 5], [2, 2], [5, 4], [7, 13], [13, 7], [40, 3], [3, 40]]) {
      const m = engine.windowMask(T, S, 0);
      for (let t = 0; t < T; t++) assert.equal(m.subarray(t * S, (t + 1) * S).indexOf(1), windowCentre(t, T, S), `T=${T} S=${S} t=${t}`);
      for (let t = T; t < T + 3; t++) assert.equal(windowCentre(t, T, S), S - 1, 'past T: the last position');
    }
    // The decode sees the same: its alpha is zero outside the window at every step, past T too.
    const g = decode('Open the red file');
    const w = decode('Open the red file', { window: 0, windowSteps: 2 });
    for (let t = 0; t < w.T; t++) {
      for (let j = 0; j < w.S; j++) if (j !== windowCentre(t, 2, w.S)) assert.equal(w.alpha[t * w.S + j], 0, `t=${t} j=${j}`);
    }
    assert.ok(g.T > 2);
  });

  test('why the two part: the step, the word global attention looked at, outside the window or not', async () => {
    await real();
    const g = decode('Open the red file');
    const w = decode('Open the red file', { window: 0, windowSteps: g.T });
    const y = windowWhy(g, w, 0);
    assert.equal(y.same, false);
    // Every step before the parting one is the same token in both.
    for (let t = 0; t < y.step; t++) assert.equal(w.target[t].id, g.target[t].id);
    assert.notEqual(w.target[y.step]?.id, g.target[y.step].id);
    assert.equal(y.word, g.target[y.step].text);
    // “fichier” comes before “rouge” in French: there global attention looks at “file”, past the diagonal's “red”.
    assert.deepEqual([y.word, y.looked, y.centre, y.outside], ['fichier', 'file', 'red', true]);
    assert.equal(y.distance, 1);
    // A window over the whole source: nothing parts.
    assert.deepEqual(windowWhy(g, decode('Open the red file', { window: g.S, windowSteps: g.T }), g.S), { same: true });
    // One word, D = 0: global attention exactly (the done criterion of issue 32 part 3).
    const one = decode('file');
    assert.equal(one.S, 1);
    const oneLocal = decode('file', { window: 0, windowSteps: one.T });
    assert.equal(oneLocal.translation, one.translation);
    assert.deepEqual(Array.from(oneLocal.alpha), Array.from(one.alpha));
    assert.deepEqual(windowWhy(one, oneLocal, 0), { same: true });
  });

  test('why the two part, at piece level: what global attention looked at and the window\'s centre are source pieces (the heatmap\'s columns)', async () => {
    await real();
    // “agreement” is read as three pieces; with D = 1 the two part at “sur”, where global attention looks at one of them.
    const text = 'The agreement on the European Economic Area was signed in August 1992.';
    const g = decode(text);
    const w = decode(text, { window: 1, windowSteps: g.T });
    const words = windowWhy(g, w, 1);
    const pieces = windowWhy(g, w, 1, { pieces: true });
    assert.equal(pieces.step, words.step, 'the same step parts');
    assert.equal(words.looked, 'agreement', 'word level: the word');
    assert.equal(pieces.looked, 're', 'piece level: the piece of it');
    const row = Array.from(g.alpha.subarray(pieces.step * g.S, (pieces.step + 1) * g.S));
    assert.equal(pieces.looked, g.source[row.indexOf(Math.max(...row))].text, 'the step\'s largest weight');
    assert.equal(pieces.centre, g.source[windowCentre(pieces.step, g.T, g.S)].text);
    assert.equal(pieces.lost, words.lost, 'the weight outside the window does not depend on how it is named');
  });

  test('the controller decodes the store\'s translation with the window, its T and its decoding; off clears it', async () => {
    await real();
    const trace = { ...decode('Open the red file', { scoreScale: info.trainedScoreScale, topK: 5 }), text: 'Open the red file', beamWidth: DEFAULT_BEAM_WIDTH, lengthPenalty: 1 };
    const calls = [];
    const client = { decode(p) { calls.push(p); return Promise.resolve({ trace: decode(p.text, { ...p, beamWidth: p.beamWidth }) }); } };
    const store = createStore({ ...defaultShareState(), notices: {}, trace, info, windowed: null });
    const ctl = createLocal(store, { client });
    await settle();
    assert.equal(calls.length, 0, 'off: nothing decoded');
    ctl.set(1);
    await until(() => store.get().windowed?.result, 'the windowed result');
    assert.deepEqual({ window: calls[0].window, windowSteps: calls[0].windowSteps, beamWidth: calls[0].beamWidth, scoreScale: calls[0].scoreScale, text: calls[0].text },
      { window: 1, windowSteps: trace.T, beamWidth: DEFAULT_BEAM_WIDTH, scoreScale: trace.scoreScale, text: 'Open the red file' });
    assert.equal(store.get().windowed.result.translation, decode('Open the red file', { window: 1, windowSteps: trace.T }).translation);
    ctl.set(0);
    await until(() => store.get().windowed?.d === 0 && store.get().windowed.result, 'D = 0');
    ctl.set(null);
    await until(() => store.get().windowed === null, 'off');
    // An engine error is said.
    const failing = createStore({ ...defaultShareState(), notices: {}, trace, info, windowed: null, winD: 2 });
    const bad = createLocal(failing, { client: { decode: () => Promise.reject(Object.assign(new Error('alignscope: an option is out of range'), { code: 'AS_ERR_BAD_OPTION' })) } });
    await until(() => failing.get().windowed?.error, 'the error');
    assert.match(failing.get().windowed.error, /The windowed decode failed: alignscope: an option is out of range/);
    ctl.destroy();
    bad.destroy();
  });
});

describe('the report\'s numbers', () => {
  const file = path.join(REPO, 'models', 'report', 'local-attention.json');
  test('the page reads report/local-attention.json\'s numbers (index.json report.local), and REPORT.md says them', { skip: !fs.existsSync(file) && 'no report/local-attention.json' }, () => {
    const measured = JSON.parse(fs.readFileSync(file, 'utf8'));
    const index = JSON.parse(fs.readFileSync(path.join(REPO, 'models', 'index.json'), 'utf8'));
    const served = JSON.parse(fs.readFileSync(path.join(REPO, 'web', 'models', 'index.json'), 'utf8'));
    assert.deepEqual(served.report?.local, index.report?.local, 'web/models/index.json is models/index.json (web/tools/assemble.mjs)');
    const report = fs.readFileSync(path.join(REPO, 'models', 'REPORT.md'), 'utf8');
    const kinds = Object.keys(measured.kinds);
    assert.deepEqual(kinds.sort(), ['additive', 'dot', 'general', 'scaled_dot']);
    for (const kind of kinds) {
      const m = measured.kinds[kind];
      const r = localReport(index, kind, m.id);
      assert.ok(r, kind);
      assert.equal(r.own, true, `${m.id} was measured: its own numbers`);
      assert.equal(r.measuredOn, m.id);
      assert.equal(r.sentences, measured.sentences);
      assert.deepEqual(r.agreement, { share: m.agreement.share, ci90: m.agreement.ci90, compared: m.compared }, kind);
      assert.deepEqual(r.global, m.global);
      assert.deepEqual(r.windows.map((w) => w.d), measured.windows);
      for (const w of r.windows) {
        const f = m.windows[w.d];
        assert.deepEqual([w.bleu, w.ci90, w.minus.bleu, w.minus.ci90], [f.bleu, f.ci90, f.minus_global.bleu, f.minus_global.ci90], `${kind} D=${w.d}`);
        assert.ok(report.includes(`${f.bleu.toFixed(2)}, ${f.minus_global.bleu >= 0 ? '+' : ''}${f.minus_global.bleu.toFixed(2)}`), `${kind} D=${w.d} in REPORT.md`);
      }
      assert.ok(report.includes(`${(100 * m.agreement.share).toFixed(1)}% (${(100 * m.agreement.ci90[0]).toFixed(1)}% to ${(100 * m.agreement.ci90[1]).toFixed(1)}%)`), `${kind}: agreement in REPORT.md`);
    }
    assert.equal(localReport(index, 'none'), null, 'no attention: nothing measured');
    assert.equal(localReport(index, 'none', 'en-fr-none'), null, 'the model without attention: nothing measured');
    assert.equal(localReport({ report: { local: { ...index.report.local, sentences: 'many' } } }, 'additive'), null, 'a report that does not hold together is not cited');
  });

  // The report measured one model file per kind. Another model of that kind (the default en-fr-int8: additive, a longer
  // training than the measured en-fr-additive) is shown that model's numbers, and the page says which model they are.
  test('a model the report did not measure gets its kind\'s measured model\'s numbers, and the page names that model in every UI language', { skip: !fs.existsSync(file) && 'no report/local-attention.json' }, () => {
    const index = JSON.parse(fs.readFileSync(path.join(REPO, 'models', 'index.json'), 'utf8'));
    const kinds = index.report.local.kinds;
    const measuredIds = new Set(Object.values(kinds).map((k) => k.id));
    const standIns = index.models.filter((e) => kinds[e.attention] && !measuredIds.has(e.id));
    assert.ok(standIns.some((e) => e.id === index.default), `precondition: the default model ${index.default} was not measured`);
    for (const entry of standIns) {
      const measuredOn = kinds[entry.attention].id;
      const r = localReport(index, entry.attention, entry.id);
      assert.equal(r.own, false, entry.id);
      assert.equal(r.measuredOn, measuredOn, entry.id);
      assert.equal(r.updates, index.models.find((e) => e.id === measuredOn).updates);
      assert.deepEqual(r.global, localReport(index, entry.attention, measuredOn).global, `${entry.id}: ${measuredOn}'s numbers`);
    }
    // The store's state: a catalogue model by its id; a file opened from disk is never the measured one, even with the same kind.
    const info = { attention: 'additive' };
    const additive = kinds.additive.id;
    assert.equal(localReportFor({ catalog: index, info, model: additive, local: null }).own, true);
    assert.equal(localReportFor({ catalog: index, info, model: additive, local: { name: `${additive}.alsc` } }).own, false, 'a file from disk');
    assert.equal(localReportFor({ catalog: index, info: null, model: additive }), null, 'no model yet');
    const standIn = localReportFor({ catalog: index, info, model: index.default, local: null });
    assert.equal(measuredOnText(localReportFor({ catalog: index, info, model: additive, local: null })), '', 'its own numbers: nothing to add');
    const updates = index.models.find((e) => e.id === additive).updates;
    const want = {
      en: `These numbers were measured on ${additive} (${updates.toLocaleString('en')} training updates), the report’s model with the same kind of attention, not on the model in use.`,
      fr: `Ces chiffres ont été mesurés sur ${additive} (${updates.toLocaleString('fr')} mises à jour d’entraînement), le modèle du rapport qui a le même type d’attention, et non sur le modèle utilisé.`,
      de: `Diese Zahlen wurden an ${additive} gemessen (${updates.toLocaleString('de')} Trainings-Updates), dem Modell des Berichts mit derselben Art der Aufmerksamkeit, nicht am verwendeten Modell.`,
      es: `Estas cifras se midieron en ${additive} (${updates.toLocaleString('es')} actualizaciones de entrenamiento), el modelo del informe con el mismo tipo de atención, no en el modelo en uso.`,
    };
    try {
      for (const [lang, text] of Object.entries(want)) {
        setUiLanguage(lang);
        assert.equal(measuredOnText(standIn), text, lang);
      }
      setUiLanguage('en');
      assert.match(measuredOnText({ ...standIn, updates: null }), new RegExp(`measured on ${additive}, the report`), 'without its updates in the catalogue');
    } finally {
      setUiLanguage('en');
    }
  });
});
