// Unit tests for how the page names and picks models (no browser): the
// picker's words (web/lib/catalog.js), model ids in links against the
// catalogue and the link of a model file from disk (web/state.js), and the
// worker client's handling of a load that replaces another, and of a load
// whose download the worker runs itself (web/client.js loadUrl).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { parseShareString, serializeShareState, defaultShareState, resolveModel } from '../../web/state.js';
import { optionText, kindUnlessNamed, updatesCount, describeEntry, describeLocal, comparisonRows, attentionName, formatParameters, formatDuration, reportOf, reportFigureText } from '../../web/lib/catalog.js';
import { EngineClient } from '../../web/client.js';

const CATALOG = {
  default: 'en-fr-int8',
  models: [
    { id: 'en-fr', file: 'en-fr.alsc', label: 'English → French (Bahdanau additive)', source: 'en', target: 'fr', attention: 'additive', bytes: 11_886_028, parameters: 5_878_848, bleu: 31.81, card: 'en-fr.md', weights: 'f16' },
    { id: 'en-fr-int8', file: 'en-fr-int8.alsc', label: 'English → French (int8)', source: 'en', target: 'fr', attention: 'additive', bytes: 6_200_000, parameters: 5_878_848, bleu: 31.83, weights: 'int8', note: 'Half the download, same BLEU.' },
    { id: 'en-fr-none', file: 'en-fr-none.alsc', label: 'English → French (no attention)', source: 'en', target: 'fr', attention: 'none', bytes: 9_000_000, parameters: 4_000_000, bleu: 12.5, updates: 1000, trainSeconds: 1252.2 },
    { id: 'toy', file: 'toy.alsc', label: 'Toy', attention: 'scaled_dot', bytes: 47_082 },
  ],
};

test('option text: label, then attention kind, size in MB, BLEU, weights (less what the label says)', () => {
  assert.equal(optionText(CATALOG.models[0]), 'English → French (Bahdanau additive) — 11.9 MB · BLEU 31.8 · f16', 'the label names the kind');
  assert.equal(optionText(CATALOG.models[1]), 'English → French (int8) — additive · 6.2 MB · BLEU 31.8', 'the label names the weights');
  assert.equal(optionText(CATALOG.models[2]), 'English → French (no attention) — 9.0 MB · BLEU 12.5 after 1,000 updates', 'BLEU comes with the budget it was trained for');
  assert.equal(optionText({ ...CATALOG.models[0], label: 'English → French (Luong general, int8)', attention: 'general', weights: 'int8' }), 'English → French (Luong general, int8) — 11.9 MB · BLEU 31.8');
  assert.equal(optionText(CATALOG.models[3]), 'Toy — scaled dot · 47 kB', 'no BLEU, no weights: left out, not "undefined"');
  assert.equal(optionText({ id: 'bare' }), 'bare');
});

test('the comparison’s checkboxes: the kind unless the label names it, and the budget', () => {
  assert.equal(kindUnlessNamed(CATALOG.models[0]), '', '"Bahdanau additive" is in the label');
  assert.equal(kindUnlessNamed(CATALOG.models[1]), 'additive');
  assert.equal(kindUnlessNamed(CATALOG.models[2]), '', '"no attention" is in the label');
  assert.equal(kindUnlessNamed(CATALOG.models[3]), 'scaled dot');
  assert.equal(kindUnlessNamed({ id: 'bare' }), '');
  assert.equal(updatesCount(CATALOG.models[2]), '1,000 updates');
  assert.equal(updatesCount({ updates: 1 }), '1 update');
  assert.equal(updatesCount(CATALOG.models[0]), '', 'no budget in the catalogue: nothing, not "undefined updates"');
});

test('the line under the picker: a catalogue model, and a file from disk', () => {
  assert.equal(describeEntry(CATALOG.models[1]), 'additive attention (Bahdanau) · 6.2 MB download · int8 weights · 5.9 M parameters · test BLEU 31.8 · en → fr. Half the download, same BLEU.');
  assert.equal(describeEntry(CATALOG.models[3]), 'scaled dot-product attention · 47 kB download');
  const info = { attention: 'dot', weightType: 'f16', parameterCount: 23_289, sourceLanguage: 'en', targetLanguage: 'de' };
  assert.equal(describeLocal({ name: 'mine.alsc', size: 47_082 }, info), 'Your file “mine.alsc” (47 kB) · dot-product attention (Luong) · f16 weights · 23 k parameters · en → de. Not from this site’s list: no BLEU measured here.');
  assert.equal(attentionName('none'), 'no attention (baseline)');
  assert.equal(attentionName('local_window'), 'local_window attention', 'a kind from a newer format is named, not dropped');
  assert.equal(formatParameters(999), '999');
});

// A catalogue from catalogue.py today: `bleu` is the lower-cased UI-test
// figure (continuity); the card leads with the cased one (uiBleuCased) and
// the teacher's set with beam. The page names the model by the card's
// figures, never by the lower-cased one.
test('the BLEU the page shows is the card’s: cased UI test, and the teacher’s set with beam', () => {
  const shipped = { id: 'en-fr-int8', label: 'English → French (Bahdanau additive, int8)', attention: 'additive', weights: 'int8', source: 'en', target: 'fr',
    bytes: 5_107_420, parameters: 4_852_848, bleu: 28.24, uiBleuCased: 25.43, generalBleu: 11.11, teacherBleu: { greedy: 11.37, beam: 14.5, beamWidth: 5 }, updates: 18_000 };
  assert.equal(optionText(shipped), 'English → French (Bahdanau additive, int8) — 5.1 MB · BLEU 25.4 after 18,000 updates');
  assert.equal(describeEntry(shipped), 'additive attention (Bahdanau) · 5.1 MB download · int8 weights · 4.9 M parameters · UI test BLEU 25.4 after 18,000 updates · everyday sentences BLEU 14.5 (beam 5) · en → fr',
    'the budget, then the teacher’s set (no training time in this entry)');
  // a model trained with layer normalisation (catalogue.py's layerNorm, from its metrics) says so after its weights
  assert.match(describeEntry({ ...shipped, layerNorm: true }), /· int8 weights · layer-normalised GRUs · 4\.9 M parameters ·/);
  const [row] = comparisonRows({ models: [shipped] });
  assert.deepEqual([row.bleu, row.teacher], ['25.4', '14.5']);
  // Half a record is not shown: no beam figure or no width, no teacher's figure.
  for (const teacherBleu of [{ greedy: 11.37 }, { beam: 14.5 }, { beam: 'x', beamWidth: 5 }, null]) {
    assert.doesNotMatch(describeEntry({ ...shipped, teacherBleu }), /everyday/, JSON.stringify(teacherBleu));
    assert.equal(comparisonRows({ models: [{ ...shipped, teacherBleu }] })[0].teacher, '—');
  }
  // Without the cased figure (an older catalogue): `bleu`, named as before.
  assert.match(describeEntry({ ...shipped, uiBleuCased: undefined }), / · test BLEU 28\.2 after 18,000 updates · /);
});

test('comparison rows: every model, dashes for what the catalogue does not say, the default marked', () => {
  const rows = comparisonRows(CATALOG);
  assert.equal(rows.length, 4);
  assert.deepEqual(rows.map((r) => r.isDefault), [false, true, false, false]);
  assert.deepEqual(rows[3], { id: 'toy', label: 'Toy', attention: 'scaled dot-product attention', weights: '—', size: '47 kB', parameters: '—', updates: '—', time: '—', bleu: '—', teacher: '—', note: '', card: null, isDefault: false });
  assert.equal(rows[2].updates, '1,000');
  assert.equal(rows[2].time, '21 min', 'the training time from the metrics');
  assert.match(describeEntry(CATALOG.models[2]), /test BLEU 12\.5 after 1,000 updates · 21 min of training · en → fr$/);
  // Wall clock and, where the metrics recorded it, CPU time (a paused or shared run's wall clock is inflated).
  const cpu = { ...CATALOG.models[2], trainSeconds: 16_620, trainCpuSeconds: 7_260 };
  assert.equal(comparisonRows({ models: [cpu] })[0].time, '4 h 37 min (CPU time 2 h 1 min)');
  assert.match(describeEntry(cpu), / · 4 h 37 min \(CPU time 2 h 1 min\) of training · en → fr$/);
  assert.equal(comparisonRows({ models: [{ ...cpu, trainSeconds: undefined }] })[0].time, '—', 'CPU time alone is not a training time');
  assert.deepEqual([formatDuration(11_842.8), formatDuration(3_600), formatDuration(29), formatDuration(0), formatDuration(undefined)],
    ['3 h 17 min', '1 h 0 min', '1 min', '', '']);
  assert.equal(rows[1].note, 'Half the download, same BLEU.');
});

test('model ids from a link are checked against the catalogue; no model asked: the catalogue’s default', () => {
  assert.equal(defaultShareState().model, null, 'not a hard-wired id: the catalogue says which is the default');
  assert.deepEqual(resolveModel(CATALOG, null), { model: 'en-fr-int8', notice: null });
  assert.deepEqual(resolveModel(CATALOG, 'en-fr-none'), { model: 'en-fr-none', notice: null });
  const unknown = resolveModel(CATALOG, 'en-xx');
  assert.equal(unknown.model, 'en-fr-int8');
  assert.equal(unknown.notice, 'There is no model “en-xx” in this site’s list; showing “English → French (int8)” instead.');
  const refused = resolveModel(CATALOG, null, { rejected: 'https://evil.example/m.alsc' });
  assert.equal(refused.model, 'en-fr-int8');
  assert.match(refused.notice, /^The model “https:\/\/evil\.example\/m\.alsc” was not loaded: alignscope loads models only by their id/);
  // A catalogue whose default is not among its models: the first one.
  assert.equal(resolveModel({ default: 'gone', models: CATALOG.models }, null).model, 'en-fr');
});

test('a model file from disk in a link: marked, never silently another model', () => {
  const st = { sentence: 'Open the file', model: 'en-fr', local: { name: 'my model (v2).alsc', size: 1 }, scale: 1, step: 0, view: 'full' };
  const hash = serializeShareState(st);
  assert.match(hash, /&m=file%3Amy\+model\+%28v2%29\.alsc&/);
  const back = parseShareString(`#${hash}`);
  assert.equal(back.model, undefined, 'the receiving page must not load some id instead');
  assert.equal(back.fileModel, 'my model (v2).alsc');
  const r = resolveModel(CATALOG, back.model ?? null, { fileModel: back.fileModel, canOpenFiles: true });
  assert.equal(r.model, 'en-fr-int8');
  assert.equal(r.notice, 'This link was made with a model file from someone’s disk (“my model (v2).alsc”). A link cannot carry a file, so this shows “English → French (int8)” from this site’s list instead; to see what the link showed, open that file with “Open a model file…”.');
  assert.ok(!resolveModel(CATALOG, null, { fileModel: 'x.alsc' }).notice.includes('Open a model file'), 'an embed without the file button does not point to it');
  assert.equal(parseShareString('#m=file%3A' + 'a'.repeat(500)).fileModel.length, 120);
  assert.deepEqual(parseShareString('#m=file%3A'), { rejectedModel: 'file:' }, 'an empty file name is just refused');
  // Without a file, and before the catalogue is known, the link has no model key.
  assert.doesNotMatch(serializeShareState({ ...st, local: null, model: null }), /m=/);
  assert.match(serializeShareState({ ...st, local: null }), /&m=en-fr&/);
});

// A stand-in for the engine worker: records what the client sends and lets
// the test answer, in order, as the real worker does.
class FakeWorker {
  static last = null;
  constructor() { this.sent = []; FakeWorker.last = this; }
  postMessage(msg) { this.sent.push(msg); }
  terminate() {}
  reply(msg) { this.onmessage({ data: msg }); }
}

async function startedClient(results) {
  globalThis.Worker = FakeWorker;
  const client = new EngineClient({ workerUrl: 'worker.js', onResult: (trace) => results.push(trace.tag), onError: (err, stage) => results.push(`error:${stage}:${err.message}`) });
  const started = client.start();
  FakeWorker.last.reply({ type: 'ready', variant: 'scalar' });
  await started;
  return { client, worker: FakeWorker.last };
}

test('client: a refused load rejects with the engine’s code and message; a translation sent before it is not shown', async () => {
  const results = [];
  const { client, worker } = await startedClient(results);
  client.translate({ text: 'old', scoreScale: 1 });
  const loading = client.load('file:x.alsc', new Uint8Array([1, 2, 3]));
  const load = worker.sent.find((m) => m.type === 'load');
  assert.equal(load.loadId, 1);
  assert.equal(load.bytes.byteLength, 3);
  // The worker answers in order: the old translation first, then the refusal.
  worker.reply({ type: 'result', id: worker.sent.find((m) => m.type === 'translate').id, trace: { tag: 'old model' }, workerMs: 1 });
  worker.reply({ type: 'error', stage: 'load', loadId: 1, code: 'AS_ERR_CHECKSUM', message: 'the model file is damaged (CRC-32 checksum mismatch)' });
  const err = await loading.catch((e) => e);
  assert.equal(err.code, 'AS_ERR_CHECKSUM');
  assert.equal(err.message, 'the model file is damaged (CRC-32 checksum mismatch)');
  assert.deepEqual(results, [], 'the result asked for before the load is not reported');
  assert.equal(client.busy, false);
  // The next translation goes through.
  client.translate({ text: 'again', scoreScale: 1 });
  const t = worker.sent.filter((m) => m.type === 'translate').at(-1);
  worker.reply({ type: 'result', id: t.id, trace: { tag: 'again' }, workerMs: 1 });
  assert.deepEqual(results, ['again']);
  client.stop();
});

test('client: an erasure request aborted by its signal asks the worker to stop it, rejects at once as cancelled; the worker’s late reply is dropped', async () => {
  const results = [];
  const { client, worker } = await startedClient(results);
  const ctrl = new AbortController();
  const asking = client.erasure({ sourceIds: [5, 6], targetIds: [7], scoreScale: 1, groups: [[0, 1], [1, 1]] }, { signal: ctrl.signal });
  const ask = worker.sent.find((m) => m.type === 'erasure');
  ctrl.abort();
  const err = await asking.catch((e) => e);
  assert.equal(err.cancelled, true);
  assert.deepEqual(worker.sent.at(-1), { type: 'cancel', id: ask.id });
  // The worker's answer to a cancel (or a map that was already on its way) goes nowhere: no error on the page.
  worker.reply({ type: 'error', stage: 'erasure', id: ask.id, message: 'cancelled by the page', cancelled: true });
  assert.deepEqual(results, []);
  // An answered request is not cancelled afterwards; a signal aborted before the request sends nothing.
  const ctrl2 = new AbortController();
  const answered = client.erasure({ sourceIds: [5], targetIds: [7], scoreScale: 1, groups: [[0, 1]] }, { signal: ctrl2.signal });
  const ask2 = worker.sent.at(-1);
  worker.reply({ type: 'erasure-result', id: ask2.id, method: 'mask', base: [], drop: [], erasable: [], T: 1, G: 1, workerMs: 1, cached: false });
  assert.equal((await answered).G, 1);
  ctrl2.abort();
  assert.equal(worker.sent.at(-1), ask2, 'no cancel after the answer');
  const before = worker.sent.length;
  assert.equal((await client.erasure({ sourceIds: [5], targetIds: [7], scoreScale: 1, groups: [[0, 1]] }, { signal: ctrl2.signal }).catch((e) => e)).cancelled, true);
  assert.equal(worker.sent.length, before);
  client.stop();
});

test('client: a load replaced by a newer one: its late answer is ignored, the newer one settles', async () => {
  const results = [];
  const { client, worker } = await startedClient(results);
  const first = client.load('file:a.alsc', new Uint8Array([1]));
  const second = client.load('en-fr', new Uint8Array([2]));
  assert.equal((await first.catch((e) => e)).message, 'superseded');
  worker.reply({ type: 'loaded', modelId: 'file:a.alsc', loadId: 1, info: { attention: 'dot' } });
  // Still waiting for the second: a stale 'loaded' must not settle it.
  let settled = null;
  second.then((info) => { settled = info; });
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(settled, null);
  worker.reply({ type: 'loaded', modelId: 'en-fr', loadId: 2, info: { attention: 'additive' } });
  assert.deepEqual(await second, { attention: 'additive' });
  // A translation in flight when the next result of an older request arrives keeps its place.
  client.translate({ text: 'a', scoreScale: 1 });
  const a = worker.sent.filter((m) => m.type === 'translate').at(-1);
  worker.reply({ type: 'result', id: a.id - 1, trace: { tag: 'stale' }, workerMs: 1 });
  assert.equal(client.busy, true, 'an unknown id does not clear the request in flight');
  worker.reply({ type: 'result', id: a.id, trace: { tag: 'a' }, workerMs: 1 });
  assert.deepEqual(results, ['a']);
  client.stop();
});

test('client: while newer requests wait, an answer for the same text is reported (the figure follows a drag), one for an old text is not; the waiting ones are coalesced', async () => {
  const results = [];
  const { client, worker } = await startedClient(results);
  const sent = () => worker.sent.filter((m) => m.type === 'translate');
  // A slider drag: one in flight, two newer values; only the latest of them is sent next.
  client.translate({ text: 'Open the file', sentence: 'Open the file', scoreScale: 1 });
  client.translate({ text: 'Open the file', sentence: 'Open the file', scoreScale: 0.5 });
  client.translate({ text: 'Open the file', sentence: 'Open the file', scoreScale: 0.25 });
  assert.equal(sent().length, 1, 'one request in flight');
  worker.reply({ type: 'result', id: sent()[0].id, trace: { tag: 'scale 1' }, workerMs: 1 });
  assert.deepEqual(results, ['scale 1'], 'reported although a newer value waits: it is newer than what is shown');
  assert.deepEqual(sent().map((m) => m.scoreScale), [1, 0.25], 'the waiting values coalesced to the latest');
  // A new sentence typed while the drag's last value is in flight: that answer is about the old text.
  client.translate({ text: 'Save', sentence: 'Save', scoreScale: 0.25 });
  worker.reply({ type: 'result', id: sent()[1].id, trace: { tag: 'old text' }, workerMs: 1 });
  assert.deepEqual(results, ['scale 1'], 'an answer for a text that has changed is not shown');
  worker.reply({ type: 'result', id: sent()[2].id, trace: { tag: 'Save' }, workerMs: 1 });
  assert.deepEqual(results, ['scale 1', 'Save']);
  // An error with a newer request waiting is replaced by that request's answer.
  client.translate({ text: 'Save', sentence: 'Save', scoreScale: 2 });
  client.translate({ text: 'Save', sentence: 'Save', scoreScale: 4 });
  worker.reply({ type: 'error', stage: 'translate', id: sent()[3].id, code: 'AS_ERR_BAD_OPTION', message: 'bad' });
  worker.reply({ type: 'result', id: sent()[4].id, trace: { tag: 'scale 4' }, workerMs: 1 });
  assert.deepEqual(results, ['scale 1', 'Save', 'scale 4']);
  client.stop();
});

test('client: loadUrl sends the url, not bytes; progress and downloaded reach only the newest load; a failed download comes back as a DownloadError in words', async () => {
  const { DownloadError } = await import('../../web/client.js');
  const results = [];
  const { client, worker } = await startedClient(results);
  const seen = [];
  const first = client.loadUrl('en-fr', { url: 'https://example.org/models/en-fr.alsc', sha256: 'ab', cacheName: 'alignscope-1', storeWhenSettled: true,
    onProgress: (loaded, total) => seen.push(['first', loaded, total]) });
  const sent = worker.sent.find((m) => m.type === 'load');
  assert.deepEqual({ ...sent }, { type: 'load', modelId: 'en-fr', loadId: 1, url: 'https://example.org/models/en-fr.alsc', sha256: 'ab', cacheName: 'alignscope-1', storeWhenSettled: true });
  const second = client.loadUrl('en-de', { url: 'https://example.org/models/en-de.alsc',
    onProgress: (loaded, total) => seen.push(['second', loaded, total]), onDownloaded: (d) => seen.push(['downloaded', d.bytes, d.from]),
    onTiming: (tm) => seen.push(['timing', tm.doneAt - tm.startAt]) });
  assert.equal((await first.catch((e) => e)).message, 'superseded');
  worker.reply({ type: 'progress', loadId: 1, loaded: 10, total: 100 }); // the superseded load's: nobody hears it
  worker.reply({ type: 'progress', loadId: 2, loaded: 50, total: 100 });
  worker.reply({ type: 'downloaded', loadId: 2, bytes: 100, from: 'cache', startedAt: 1, doneAt: 2 });
  worker.reply({ type: 'loaded', modelId: 'en-de', loadId: 2, info: { attention: 'additive' }, timing: { startAt: 3, doneAt: 5 } });
  assert.deepEqual(await second, { attention: 'additive' });
  assert.deepEqual(seen, [['second', 50, 100], ['downloaded', 100, 'cache'], ['timing', 2]]);
  // A download that failed in the worker: its kind, key and values, in this thread's words.
  const third = client.loadUrl('en-es', { url: 'https://example.org/models/en-es.alsc' });
  worker.reply({ type: 'error', stage: 'load', phase: 'download', loadId: 3, kind: 'http', key: 'download.http', values: { status: '404 Not Found', path: '/models/en-es.alsc' }, status: 404, message: 'download.http' });
  const err = await third.catch((e) => e);
  assert.ok(err instanceof DownloadError);
  assert.equal(err.kind, 'http');
  assert.equal(err.status, 404);
  assert.equal(err.message, 'the server answered 404 Not Found for /models/en-es.alsc');
  // settle(): once, and again to a worker made after it.
  client.settle();
  client.settle();
  assert.equal(worker.sent.filter((m) => m.type === 'settled').length, 1);
  client.stop();
  client.spawn();
  assert.deepEqual(FakeWorker.last.sent.map((m) => m.type), ['settled']);
  client.stop();
});

test('format-3 architectures in words; what a decoder without attention sees', async () => {
  const { architectureName, fixedSummary } = await import('../../web/lib/catalog.js');
  const all = { unidirectional: true, initFromEncoder: true, attentionBias: true, directOutput: true, sourceEos: true, tutorialTokenizer: true };
  assert.equal(architectureName({ architecture: all }), 'the PyTorch seq2seq tutorial’s architecture');
  assert.equal(architectureName({ architecture: { ...all, tutorialTokenizer: false, attentionBias: false, initFromEncoder: false, directOutput: false } }), 'one-direction encoder, reads </s> after the words');
  assert.equal(architectureName({ architecture: {} }), '', 'ours: nothing to add');
  assert.equal(architectureName({}), '', 'an engine before format 3');
  assert.equal(architectureName({ architecture: { layerNorm: true, subwords: true } }), 'layer-normalised GRUs');
  assert.equal(architectureName({ architecture: { ...all, layerNorm: true } }), 'the PyTorch seq2seq tutorial’s architecture, layer-normalised GRUs');
  assert.equal(fixedSummary({ architecture: { unidirectional: true } }).formula, 'c = h_S');
  assert.equal(fixedSummary({}).formula, 'c = [→h_S ; ←h_1]');
  assert.match(describeLocal({ name: 't.alsc', size: 83_696 }, { attention: 'additive', weightType: 'f32', parameterCount: 21_000, architecture: all }), /^Your file “t\.alsc” \(84 kB\) · additive attention \(Bahdanau\) · the PyTorch seq2seq tutorial’s architecture · f32 weights · 21 k parameters\./);
});

test('the sentence box is named after the model’s source language', async () => {
  const { sentenceLabel } = await import('../../web/lib/catalog.js');
  assert.equal(sentenceLabel('en'), 'English sentence');
  assert.equal(sentenceLabel('fr'), 'French sentence');
  assert.equal(sentenceLabel('xx'), 'Sentence (xx)');
  assert.equal(sentenceLabel(''), 'Sentence');
});

test('the report figure says "equal training budget" only when every line had the same number of updates', () => {
  const none = reportFigureText({ budgets: {} });
  assert.doesNotMatch(none.caption + none.alt, /equal|same number/i, 'no budgets: no claim');
  const equal = reportFigureText({ budgets: { additive: 6000, general: 6000, none: 6000 } });
  assert.match(equal.caption, /equal training budget \(6,000 updates each\)/);
  assert.match(equal.alt, /each trained for 6,000 updates/);
  const unequal = reportFigureText({ budgets: { additive: 6000, dot: 1000 } });
  assert.match(unequal.caption, /Not an equal training budget \(additive attention \(Bahdanau\): 6,000 updates; dot-product attention \(Luong\): 1,000 updates\)/);
  assert.doesNotMatch(unequal.caption, /, equal training budget/);
  assert.match(unequal.alt, /unequal budgets/);
  assert.match(reportFigureText({ budgets: { additive: 1, dot: 1 } }).caption, /\(1 update each\)/, 'one update, singular');
});

test('model cards and the model report: only plain file names inside models/', () => {
  const rows = comparisonRows({ ...CATALOG, models: [...CATALOG.models, { id: 'x', card: '../secret.md' }, { id: 'y', card: 'https://evil.example/card.md' }] });
  assert.deepEqual(rows.map((r) => r.card), ['en-fr.md', null, null, null, null, null]);
  assert.equal(reportOf(CATALOG), null, 'no report named: none shown');
  const good = { report: { figure: 'report/bleu-by-length.svg', text: 'REPORT.md', caption: 'Agrees with the paper.' } };
  assert.deepEqual(reportOf(good), { ...good.report, budgets: {} });
  const budgets = { additive: 6000, dot: 6000, none: 1000 };
  assert.deepEqual(reportOf({ report: { ...good.report, budgets } }).budgets, budgets);
  assert.deepEqual(reportOf({ report: { ...good.report, budgets: { additive: 6000, evil: 1, dot: '6000', none: 1.5, general: -1 } } }).budgets,
    { additive: 6000 }, 'known kinds with whole positive counts only');
  assert.deepEqual(reportOf({ report: { ...good.report, budgets: 'x' } }).budgets, {});
  for (const figure of ['../x.svg', '/etc/x.svg', 'https://evil.example/x.svg', 'report/x.png', 'javascript:alert(1)//.svg']) {
    assert.equal(reportOf({ report: { ...good.report, figure } }), null, figure);
  }
});

// The README states the repository's model bytes (issue: the total stays
// stated); this keeps that sentence true as models are added or retrained.
test('the README states the bytes and number of the committed models/*.alsc, and the default model\'s size', async () => {
  const { readFileSync, readdirSync, statSync } = await import('node:fs');
  const root = new URL('../../', import.meta.url);
  const readme = readFileSync(new URL('README.md', root), 'utf8').replace(/\s+/g, ' ');
  const files = readdirSync(new URL('models/', root)).filter((f) => f.endsWith('.alsc'));
  const total = files.reduce((n, f) => n + statSync(new URL(`models/${f}`, root)).size, 0);
  const stated = readme.match(/\*\*Model bytes in the repository:\*\* ([\d,]+) in (\d+) files/);
  assert.ok(stated, 'the README has its "Model bytes in the repository" sentence');
  assert.deepEqual([stated[1], Number(stated[2])], [total.toLocaleString('en-US'), files.length],
    `models/*.alsc: ${total.toLocaleString('en-US')} bytes in ${files.length} files`);
  const catalog = JSON.parse(readFileSync(new URL('models/index.json', root), 'utf8'));
  const def = catalog.models.find((m) => m.id === catalog.default);
  const size = statSync(new URL(`models/${def.file}`, root)).size.toLocaleString('en-US');
  assert.ok(readme.includes(`the default is ${size} bytes`), `the README gives the default model's ${size} bytes`);
});

// REPORT.md's last section lists the same files (models/train/report.py --bytes-only, run by every export).
test('models/REPORT.md lists every committed models/*.alsc with its bytes, and their total', async () => {
  const { readFileSync, readdirSync, statSync } = await import('node:fs');
  const root = new URL('../../', import.meta.url);
  const report = readFileSync(new URL('models/REPORT.md', root), 'utf8');
  const section = report.slice(report.indexOf('## Bytes in the repository'));
  const rows = [...section.matchAll(/^\| `([^`]+)` \| ([\d,]+) \|$/gm)].map((m) => [m[1], m[2]]);
  const files = readdirSync(new URL('models/', root)).filter((f) => f.endsWith('.alsc')).sort();
  const sizes = files.map((f) => statSync(new URL(`models/${f}`, root)).size);
  assert.deepEqual(rows, files.map((f, i) => [f, sizes[i].toLocaleString('en-US')]), 'run /usr/bin/python3 models/train/report.py --bytes-only');
  const total = sizes.reduce((a, b) => a + b, 0).toLocaleString('en-US');
  assert.ok(section.includes(`| **total** | **${total}** |`), `the total, ${total}`);
});

test('the "Trained on" line is in the UI language, its number in the locale\'s digits (it stayed English in fr/de/es)', async () => {
  const { trainedOnText } = await import('../../web/lib/catalog.js');
  const { setUiLanguage } = await import('../../web/i18n/all.js');
  const index = JSON.parse(fs.readFileSync(new URL('../../models/index.json', import.meta.url), 'utf8'));
  const entry = index.models.find((m) => m.id === index.default);
  assert.ok(Number.isInteger(entry.trainPairs), 'the catalogue gives the number (models/train/catalogue.py)');
  const english = entry.trainedOn;
  try {
    const lines = {};
    for (const lang of ['en', 'fr', 'de', 'es']) {
      setUiLanguage(lang);
      lines[lang] = trainedOnText(entry);
      const digits = new Intl.NumberFormat(lang).format(entry.trainPairs);
      assert.ok(lines[lang].includes(digits), `${lang}: ${lines[lang]} has ${digits}`);
    }
    assert.equal(lines.en, english, 'English: the catalogue\'s own line');
    for (const lang of ['fr', 'de', 'es']) assert.notEqual(lines[lang], english, `${lang} is not English`);
    assert.equal(trainedOnText({ trainedOn: 'A third party line' }), 'A third party line', 'an entry without the number keeps its line');
    assert.equal(trainedOnText(null), '');
  } finally { setUiLanguage('en'); }
});
