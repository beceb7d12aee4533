// ui.js - builds one complete alignscope widget into a root node and wires
// state → worker → views. Used by the page (app.js), the custom element
// (alignscope.js) and the iframe embed (embed.html); every mount has its own
// worker, its own state and its own element ids, so several can share a page.

import { CONFIG } from './config.js';
import { h, uid, download } from './lib/dom.js';
import { rowEntropies, fmt } from './lib/math.js';
import { createStore, defaultShareState, serializeShareState, parseShareString, scaleFor, resolveModel } from './state.js';
import { EngineClient, fetchWithProgress, fromBase64, formatBytes, DownloadError } from './client.js';
import * as heatmapView from './views/heatmap.js';
import * as tableView from './views/table.js';
import * as sliderView from './views/slider.js';
import * as stepsView from './views/steps.js';
import * as byhandView from './views/byhand.js';
import * as theoryView from './views/theory.js';
import * as modelsView from './views/models.js';
import { matrixCSV, matrixJSON, heatmapSVG, heatmapPNG } from './views/export.js';
import { themeColors } from './views/heatmap.js';
import { viridis, hex } from './lib/colormap.js';
import { optionText, describeEntry, describeLocal, fixedSummary, sentenceLabel } from './lib/catalog.js';

// The picker's value while a model file from the reader's disk is in use
// (catalogue ids cannot contain ':', so it never collides with one).
const LOCAL = 'file:';

// In the single-file build modules are blob: URLs, which cannot be a base for
// relative URLs; everything there comes packed in ALIGNSCOPE_INLINE instead.
const MODULE_BASE = (() => {
  try { return new URL('./', import.meta.url); } catch { return new URL('./', location.href); }
})();

// A tiny module with one SIMD instruction: validates only where wasm SIMD exists.
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);
function simdInBrowser() {
  try { return WebAssembly.validate(SIMD_PROBE); } catch { return false; }
}

/**
 * @param {HTMLElement} root        where to build the widget (light DOM or a shadow root's child)
 * @param {object} opts
 *   view: 'full'|'heatmap'|'steps'; initial: partial share state;
 *   syncUrl: keep location.hash in step with the state (the page and embed.html);
 *   shareBase: URL that shared links point to; inline: the single-file build's packed bytes;
 *   localFiles: offer "Open a model file…" and take a .alsc file dropped anywhere on the page.
 */
export function mountAlignscope(root, opts = {}) {
  const inline = opts.inline ?? globalThis.ALIGNSCOPE_INLINE ?? null;
  const base = opts.base ? new URL(opts.base, location.href) : MODULE_BASE;
  const shareBase = opts.shareBase ?? new URL('index.html', base).href;
  // A model value that is not an id (a URL, a path, a file from someone's
  // disk) never reaches the store.
  const { rejectedModel, fileModel, ...initial } = opts.initial || {};
  const localFiles = !!opts.localFiles;
  const store = createStore({
    ...defaultShareState(),
    ...initial,
    // runtime state
    // local: { name, size } while a model file from the reader's disk is in use.
    info: null, trace: null, catalog: null, status: 'starting', error: null, local: null,
  });
  const view = store.get().view;

  // ---------- DOM skeleton ----------
  const ids = { input: uid('sentence'), model: uid('model'), tableCap: uid('tablecap'), hint: uid('hint'), notice: uid('notice'), link: uid('link'), modelInfo: uid('modelinfo'), fileHint: uid('filehint'), shareWhy: uid('sharewhy') };
  const sentence = h('textarea', { id: ids.input, class: 'as-input', rows: '2', dir: 'auto', maxlength: String(CONFIG.maxSentenceChars), spellcheck: 'false', 'aria-describedby': `${ids.hint} ${ids.notice}`, autocomplete: 'off' });
  // Named after the model's source language (a converted tutorial model reads French).
  const sentenceLabelEl = h('label', { for: ids.input }, 'English sentence');
  const modelSelect = h('select', { id: ids.model, class: 'as-select', 'aria-describedby': ids.modelInfo });
  // What the chosen model is: attention kind, size, weights, BLEU (or, for a
  // file from disk, its name and what the engine read from it). Announced
  // when it changes, so a screen reader hears which model is now in use.
  const modelInfo = h('p', { id: ids.modelInfo, class: 'as-model-info as-small', 'aria-live': 'polite' });
  const comparison = view === 'full' ? h('details', { class: 'as-models as-small' }) : null;
  // The file control: a real button (focus, Enter/Space, a screen reader's
  // name) that opens the system's file chooser of a hidden file input.
  const fileInput = localFiles ? h('input', { type: 'file', class: 'as-file-input', accept: '.alsc', hidden: true }) : null;
  const openFileBtn = localFiles ? h('button', { type: 'button', class: 'as-btn as-open-file', 'aria-describedby': ids.fileHint }, 'Open a model file…') : null;
  const fileHint = localFiles ? h('span', { id: ids.fileHint, class: 'as-small as-muted as-file-hint' }, 'Loads an alignscope .alsc model from your device (or drop one on the page). The file stays on your device.') : null;
  const hint = h('p', { id: ids.hint, class: 'as-small as-muted' });
  // Messages about the input (too long, cut, a refused model): one line each, by topic.
  const notice = h('div', { id: ids.notice, class: 'as-notice as-small', role: 'status', 'aria-live': 'polite' });
  const notices = new Map();
  function setNotice(topic, text) {
    if (text) notices.set(topic, text); else notices.delete(topic);
    notice.replaceChildren(...[...notices].map(([k, v]) => h('p', { class: 'as-note', dataset: { topic: k } }, v)));
  }
  const progress = h('progress', { class: 'as-progress', max: '1' });
  const statusText = h('span', { class: 'as-status-text' });
  const retry = h('button', { type: 'button', class: 'as-btn as-btn-small', hidden: true }, 'Retry');
  const status = h('div', { class: 'as-status', role: 'status' }, progress, statusText, retry);
  const translation = h('p', { class: 'as-translation', 'aria-live': 'polite', 'aria-atomic': 'true' });
  const perf = h('p', { class: 'as-perf as-small as-muted', 'aria-hidden': 'true' });

  const inputCard = h('section', { class: 'as-card as-input-card', 'aria-label': 'Sentence and translation' },
    h('div', { class: 'as-input-row' },
      h('div', { class: 'as-field as-grow' }, sentenceLabelEl, sentence, hint),
      h('div', { class: 'as-field as-model-field' }, h('label', { for: ids.model }, 'Model'),
        h('div', { class: 'as-model-row' }, modelSelect, openFileBtn, fileInput),
        modelInfo, fileHint)),
    comparison, notice, status,
    h('div', { class: 'as-translation-box' }, h('span', { class: 'as-small as-muted as-label' }, 'Translation'), translation),
    perf);

  const legend = h('div', { class: 'as-legend', 'aria-hidden': 'true' },
    h('span', null, 'α = 0'), h('span', { class: 'as-legend-bar', style: { 'background-image': `linear-gradient(to right, ${Array.from({ length: 11 }, (_, i) => hex(viridis(i / 10))).join(', ')})` } }), h('span', null, '1'),
    h('span', { class: 'as-small as-muted' }, 'each row sums to 1 over the source words'));
  const tableToggle = h('button', { type: 'button', class: 'as-btn as-btn-small', 'aria-pressed': 'false' }, 'Numbers table');
  const exportButtons = ['PNG', 'SVG', 'CSV', 'JSON'].map((fmtName) => h('button', { type: 'button', class: 'as-btn as-btn-small', dataset: { export: fmtName.toLowerCase() } }, fmtName));
  const copyBtn = h('button', { type: 'button', class: 'as-btn as-btn-small as-btn-primary', 'aria-describedby': ids.shareWhy }, 'Copy link');
  // Why there is no link while a file from disk is in use (a link cannot carry it).
  const shareWhy = h('p', { id: ids.shareWhy, class: 'as-small as-note as-share-why', hidden: true });
  const heatIntro = h('p', { class: 'as-small as-muted' }, 'Rows: the translation, one decoder step each. Columns: your words. Colour: how much of the step’s attention went to that word. Click a row to jump the step view there.');
  const linkField = h('input', { id: ids.link, class: 'as-link', type: 'text', readonly: true, hidden: true, 'aria-label': 'Link to this view' });
  const heatBox = h('div', { class: 'as-heat-box' });
  const tableBox = h('div', { class: 'as-table-box as-visually-hidden' });
  const heatCard = h('section', { class: 'as-card as-heat-card', 'aria-labelledby': `${ids.input}-ht` },
    h('div', { class: 'as-card-head' },
      h('h2', { id: `${ids.input}-ht` }, 'Alignment heatmap'),
      h('div', { class: 'as-toolbar', role: 'toolbar', 'aria-label': 'Heatmap tools' }, tableToggle, h('span', { class: 'as-sep', 'aria-hidden': 'true' }), h('span', { class: 'as-small as-muted' }, 'Export'), exportButtons, copyBtn)),
    shareWhy, heatIntro, legend, linkField, heatBox, tableBox);

  const sliderBox = h('div', { class: 'as-slider' });
  const sliderCard = h('section', { class: 'as-card as-slider-card', 'aria-labelledby': `${ids.input}-st` },
    h('h2', { id: `${ids.input}-st` }, 'The √d slider'),
    h('p', { class: 'as-small' }, 'Scores are divided by this number before the softmax. Drag it and watch the rows of the heatmap sharpen or flatten, and the translation change.'),
    sliderBox);

  const stepsBox = h('div');
  const stepsCard = h('section', { class: 'as-card as-steps-card', 'aria-labelledby': `${ids.input}-sp` },
    h('h2', { id: `${ids.input}-sp` }, 'Step through the decoder'),
    stepsBox);

  const theoryBox = h('div');
  const theoryCard = h('section', { class: 'as-card as-theory-card', 'aria-labelledby': `${ids.input}-th` },
    h('h2', { id: `${ids.input}-th` }, 'How attention computes'), theoryBox);
  const byhandBox = h('div');
  const byhandCard = h('section', { class: 'as-card as-byhand-card', 'aria-labelledby': `${ids.input}-bh` },
    h('h2', { id: `${ids.input}-bh` }, 'Attention by hand'), byhandBox);

  const wrapper = h('div', { class: 'as-root', dataset: { view } });
  if (opts.theme === 'dark' || opts.theme === 'light') wrapper.dataset.theme = opts.theme;
  const grid = h('div', { class: 'as-grid' });
  grid.append(inputCard);
  if (view === 'full' || view === 'heatmap') grid.append(h('div', { class: 'as-pair' }, heatCard, sliderCard));
  if (view === 'full' || view === 'steps') grid.append(stepsCard);
  if (view === 'full') grid.append(theoryCard, byhandCard);
  wrapper.append(grid);
  root.append(wrapper);

  // ---------- views ----------
  const heatmap = heatmapView.render(heatBox, { onPickRow: (t) => store.set({ step: t }) });
  const table = tableView.render(tableBox, { captionId: ids.tableCap });
  const slider = sliderView.render(sliderBox, { onChange: (rel) => { store.set({ scale: rel }); requestTranslation(); } });
  const steps = stepsView.render(stepsBox, { onStep: (t) => store.set({ step: t }) });
  const theory = view === 'full' ? theoryView.render(theoryBox) : null;
  if (view === 'full') byhandView.render(byhandBox);

  // ---------- worker ----------
  let firstHeatmap = true;
  let vm = null;
  const client = new EngineClient({
    workerUrl: inline?.workerUrl ?? new URL('worker.js', MODULE_BASE),
    workerType: inline?.workerType ?? 'module',
    onResult(trace, params, roundTripMs, workerMs) {
      perf.textContent = `Decoded in ${fmt(trace.elapsedMs ?? workerMs, 1)} ms in the worker · ${fmt(roundTripMs, 1)} ms round trip${trace.encoderReused ? ' · encoder reused' : ''}`;
      perf.dataset.roundTripMs = String(roundTripMs);
      perf.dataset.workerMs = String(workerMs);
      perf.dataset.count = String(Number(perf.dataset.count || 0) + 1);
      store.set({ trace, error: null, status: 'ready' });
    },
    onError(err, stage) {
      if (stage === 'translate') store.set({ trace: null, error: { stage, message: friendlyTranslateError(err) }, status: 'ready' });
      else store.set({ error: { stage, message: err.message }, status: 'failed' });
    },
  });

  function friendlyTranslateError(err) {
    const info = store.get().info;
    if (/long|INPUT_TOO_LONG/i.test(`${err.code} ${err.message}`)) return `This sentence has more than ${info?.maxSourceTokens ?? CONFIG.maxSourceTokens} source tokens, the most this model reads. Shorten it to see its alignment. (${err.message})`;
    if (/empty|no tokens/i.test(`${err.code} ${err.message}`)) {
      return store.get().sentence.trim()
        ? 'This text has no words the model can read (only invisible or control characters). Type a sentence to see how the model aligns it.'
        : 'Type a sentence to see how the model aligns it.';
    }
    return `The engine could not translate this: ${err.message}`;
  }

  function requestTranslation() {
    const st = store.get();
    if (!st.info || st.status === 'failed' || st.status === 'loading' || st.status === 'checking') return;
    const text = st.sentence;
    if (!text.trim()) {
      store.set({ trace: null, error: { stage: 'translate', message: 'Type a sentence to see how the model aligns it.' } });
      return;
    }
    client.translate({ text, scoreScale: scaleFor(st.info, st.scale).scoreScale, topK: CONFIG.topK });
  }

  async function boot() {
    store.set({ status: 'starting', error: null });
    try {
      let wasmBytes;
      let variant;
      if (inline?.wasm) {
        variant = inline.wasm.simd && simdInBrowser() ? 'simd' : 'scalar';
        wasmBytes = fromBase64(inline.wasm[variant]);
      }
      const started = client.start({ wasmBytes, variant });
      const catalog = store.get().catalog ?? await loadCatalog();
      store.set({ catalog });
      fillModelSelect(catalog);
      await started;
      await loadModel();
    } catch (err) {
      store.set({ status: 'failed', error: { stage: 'init', message: err.message } });
    }
  }

  async function loadCatalog() {
    if (inline?.index) return inline.index;
    const url = new URL('models/index.json', base);
    let res;
    try {
      res = await fetch(url, { signal: AbortSignal.timeout(CONFIG.catalogTimeoutMs) });
    } catch (err) {
      throw new Error(err.name === 'TimeoutError'
        ? `The model list (${url.pathname}) did not arrive within ${CONFIG.catalogTimeoutMs / 1000} s. Check your connection and press Retry.`
        : `Could not download the model list (${url.pathname}): the network request failed; you may be offline. Press Retry when you are back online.`);
    }
    if (!res.ok) throw new Error(`Could not load the model list (${res.status} from ${url.pathname}).`);
    const cat = await res.json();
    if (!cat || !Array.isArray(cat.models) || cat.models.length === 0) throw new Error('The model list is empty or malformed.');
    return cat;
  }

  // The picker: one option per catalogue model, its text saying what a
  // teacher weighs (attention kind, size, BLEU, weights); then, once one has
  // been opened, the reader's own file.
  let localOption = null;
  function fillModelSelect(cat) {
    modelSelect.replaceChildren(...cat.models.map((m) => h('option', { value: m.id }, optionText(m))), localOption ?? []);
    if (comparison) fillComparison(cat);
    checkModel(store.get().model, pending.rejected, pending.fileModel);
    pending = {};
  }

  function fillComparison(cat) {
    // Cards and the report are files beside index.json; the single-file build carries neither.
    modelsView.renderComparison(comparison, cat, { modelsUrl: (f) => new URL(`models/${f}`, base).href, withFiles: !inline?.index });
  }

  // Models are chosen only by id from this site's catalogue. Anything else
  // (a URL, a path, an id that is not listed, a link made with a file from a
  // disk) is refused visibly, and the default model is shown instead.
  let pending = { rejected: rejectedModel ?? null, fileModel: fileModel ?? null };
  function checkModel(model, rejected = null, fromFile = null) {
    const cat = store.get().catalog;
    if (!cat) {
      pending = { rejected: rejected ?? pending.rejected, fileModel: fromFile ?? pending.fileModel };
      return model;
    }
    const r = resolveModel(cat, model, { rejected, fileModel: fromFile, canOpenFiles: localFiles });
    setNotice('model', r.notice);
    if (!store.get().local) modelSelect.value = r.model;
    store.set({ model: r.model });
    return r.model;
  }

  let loadSeq = 0;
  let loadAbort = null;
  async function loadModel() {
    const seq = ++loadSeq;
    loadAbort?.abort();
    loadAbort = new AbortController();
    const st = store.get();
    const entry = st.catalog.models.find((m) => m.id === st.model);
    const name = entry?.label || st.model;
    modelSelect.value = st.model;
    setNotice('file', null);
    setNotice('share', null);
    store.set({ status: 'loading', info: null, trace: null, error: null, local: null });
    progress.value = 0;
    let stage = 'download';
    try {
      let bytes;
      if (inline?.models?.[entry.id]) bytes = fromBase64(inline.models[entry.id]);
      else {
        const expected = entry.bytes || 0;
        statusText.textContent = `Downloading the model ${name}${expected ? ` (${formatBytes(expected)})` : ''}…`;
        bytes = await fetchWithProgress(new URL(`models/${entry.file}`, base), (loaded, total) => {
          if (seq !== loadSeq) return;
          const t = total || expected;
          if (t) { progress.max = t; progress.value = Math.min(t, loaded); } else progress.removeAttribute('value');
          const pct = t ? ` (${Math.floor((100 * Math.min(loaded, t)) / t)} %)` : '';
          statusText.textContent = `Downloading the model ${name}: ${formatBytes(loaded)}${t ? ` of ${formatBytes(t)}` : ''}${pct}…`;
          progress.setAttribute('aria-valuetext', statusText.textContent);
        }, { signal: loadAbort.signal });
      }
      if (seq !== loadSeq) return;
      stage = 'check';
      progress.removeAttribute('value');
      statusText.textContent = `Checking the model (size, checksum) and starting it…`;
      const info = await client.load(entry.id, bytes);
      if (seq !== loadSeq) return;
      store.set({ info, status: 'ready' });
      requestTranslation();
    } catch (err) {
      if (seq !== loadSeq) return;
      store.set({ status: 'failed', error: { stage: 'load', message: loadErrorMessage(name, stage, err) } });
    }
  }

  /** What went wrong while fetching or opening a model, in words, with what to do next. */
  function loadErrorMessage(name, stage, err) {
    const head = `Could not load the model “${name}”:`;
    if (err instanceof DownloadError) {
      const what = err.kind === 'http' ? `${err.message}.`
        : err.kind === 'stalled' ? `${err.message}.`
          : err.kind === 'truncated' ? `${err.message}; the file is incomplete.`
            : `${err.message}.`;
      return `${head} ${what} Press Retry to download it again.`;
    }
    if (stage === 'check' && err.code) {
      const damaged = /SIZE_MISMATCH|TOO_SHORT|CHECKSUM|BAD_MAGIC|TRUNCATED/.test(err.code);
      return `${head} ${damaged ? 'the downloaded file is damaged or incomplete' : 'the engine refused it'} (${err.message}). Press Retry to download it again.`;
    }
    return `${head} ${err.message}`;
  }

  // ---------- a model file from the reader's disk ----------
  // The engine checks the file (magic, version, every size, checksum) and
  // either takes it or refuses it with a code and a message; refused, it
  // keeps the model it had, and so does the page: the sentence, the slider,
  // the step and the translation on screen stay as they were.
  let localModel = null; // { name, size, bytes } of the last file the engine took
  const fileName = (file) => { const n = Array.from(String(file?.name || 'model file')); return n.length > 120 ? `${n.slice(0, 119).join('')}…` : n.join(''); };

  async function loadLocalFile(file) {
    if (!file) return;
    const name = fileName(file);
    const refuse = (why) => setNotice('file', `The model file “${name}” was not loaded: ${why}`);
    const busy = engineBusy();
    if (busy) return refuse(busy);
    if (file.size > CONFIG.maxModelFileBytes) return refuse(`it is ${formatBytes(file.size)}, more than the ${formatBytes(CONFIG.maxModelFileBytes)} this page opens (alignscope models are a few MB to a few tens of MB). Nothing changed.`);
    let bytes;
    try {
      bytes = new Uint8Array(await file.arrayBuffer());
    } catch (err) {
      return refuse(`it could not be read from your device (${err.message}). Nothing changed.`);
    }
    return openLocal({ name, size: bytes.length, bytes });
  }

  /** Why no model can be opened right now, or null. */
  function engineBusy() {
    const st = store.get();
    if (!client.worker || st.status === 'starting') return `the translation engine ${st.status === 'starting' ? 'is still starting. Try again in a moment.' : 'is not running. Press Retry first.'}`;
    if (st.status === 'loading' || st.status === 'checking') return 'another model is still loading. Try again once it has loaded.';
    return null;
  }

  async function openLocal(local) {
    const busy = engineBusy();
    if (busy) {
      setNotice('file', `The model file “${local.name}” was not loaded: ${busy}`);
      modelSelect.value = store.get().local ? LOCAL : store.get().model;
      return;
    }
    const before = store.get();
    const seq = ++loadSeq; // picking a model from the list meanwhile wins
    const current = before.info ? activeName(before) : null;
    setNotice('file', null);
    store.set({ status: 'checking' });
    statusText.textContent = `Checking the model file “${local.name}” (${formatBytes(local.size)}): format, sizes, checksum…`;
    try {
      const info = await client.load(`${LOCAL}${local.name}`, local.bytes);
      if (seq !== loadSeq) return;
      localModel = local;
      setLocalOption(local, info);
      setNotice('model', null);
      setNotice('share', null);
      store.set({ info, trace: null, local: { name: local.name, size: local.size }, status: 'ready', error: null });
      requestTranslation();
    } catch (err) {
      if (seq !== loadSeq) return;
      store.set({ status: before.status, error: before.error });
      modelSelect.value = before.local ? LOCAL : before.model;
      setNotice('file', `The model file “${local.name}” was not loaded. The engine says: ${err.message}${/[.!?]$/.test(err.message) ? '' : '.'}${fileHintFor(err.code)}${current ? ` Still using “${current}”; your sentence and settings are unchanged.` : ''}`);
      requestTranslation(); // the load dropped any translation in flight
    }
  }

  const activeName = (st) => (st.local ? st.local.name : st.catalog?.models.find((m) => m.id === st.model)?.label || st.model);

  /** What the reader can do about a refused file, by the engine's code. */
  function fileHintFor(code) {
    if (code === 'AS_ERR_BAD_MAGIC') return ' Choose a .alsc file written by alignscope’s exporter or converter.';
    if (code === 'AS_ERR_VERSION_TOO_NEW') return ' It was written by a newer alignscope than this page.';
    if (/TOO_SHORT|SIZE_MISMATCH|CHECKSUM/.test(code ?? '')) return ' The file is damaged or incomplete: export or download it again.';
    return '';
  }

  function setLocalOption(local, info) {
    localOption = h('optgroup', { label: 'From your device' },
      h('option', { value: LOCAL }, `Your file: ${local.name} — ${info.attention === 'none' ? 'no attention' : info.attention?.replace('_', ' ')} · ${formatBytes(local.size)}`));
    modelSelect.querySelector('optgroup')?.remove();
    modelSelect.append(localOption);
    modelSelect.value = LOCAL;
  }

  // ---------- rendering from state ----------
  function buildVM(trace, info) {
    const rowLabels = trace.target.map((w) => (w.isEnd ? '</s>' : w.text));
    const colLabels = trace.source.map((w) => w.text);
    return { info, trace, T: trace.T, S: trace.S, words: trace.source.filter((w) => !w.isEnd).length, rowLabels, colLabels, target: trace.target, alpha: trace.alpha, entropies: rowEntropies(trace.alpha, trace.T, trace.S) };
  }

  function renderStatus(st) {
    const failed = st.status === 'failed';
    const busy = st.status === 'starting' || st.status === 'loading' || st.status === 'checking';
    progress.hidden = !busy;
    retry.hidden = !failed;
    status.classList.toggle('as-error', failed);
    status.hidden = !busy && !failed;
    if (st.status === 'starting') { statusText.textContent = 'Starting the translation engine…'; progress.removeAttribute('value'); }
    if (failed) statusText.textContent = st.error?.message ?? 'Something went wrong.';
    sentence.setAttribute('aria-busy', busy ? 'true' : 'false');
  }

  function renderHint(st) {
    const max = st.info?.maxSourceTokens;
    const S = st.trace?.words; // the reader's words; a tutorial model's appended </s> is not one
    hint.textContent = max
      ? `${S != null ? `${S} source token${S === 1 ? '' : 's'} · ` : ''}limit ${max} tokens (the model refuses longer input) · ${st.sentence.length} / ${CONFIG.maxSentenceChars} characters`
      : `Up to ${CONFIG.maxSentenceChars} characters.`;
  }

  function renderModelInfo(st) {
    const entry = st.catalog?.models.find((m) => m.id === st.model);
    modelInfo.textContent = st.local ? describeLocal(st.local, st.info) : entry ? describeEntry(entry) : '';
    modelInfo.dataset.attention = st.info?.attention ?? entry?.attention ?? '';
    const source = st.info?.sourceLanguage ?? (st.local ? null : entry?.source);
    if (source) sentenceLabelEl.textContent = sentenceLabel(source);
  }

  // A link cannot carry a file from the reader's disk: while one is in use,
  // "Copy link" explains that instead of copying something else.
  const shareWhyText = (st) => `Links cannot carry a model file from your device: anyone opening a link would see a model from this site’s list, not “${st.local.name}”. “Copy link” is off while it is in use; pick a model from the list to share a link.`;
  function renderShare(st) {
    // aria-disabled, not disabled: the button stays focusable, so keyboard and
    // screen-reader users reach it and hear why it does nothing.
    if (st.local) copyBtn.setAttribute('aria-disabled', 'true'); else copyBtn.removeAttribute('aria-disabled');
    copyBtn.classList.toggle('as-btn-off', !!st.local);
    shareWhy.hidden = !st.local;
    shareWhy.textContent = st.local ? shareWhyText(st) : '';
    if (st.local) linkField.hidden = true;
  }

  function render(st, changed) {
    if (changed.has('status') || changed.has('error')) renderStatus(st);
    if (changed.has('info')) theory?.update(st.info);
    if (['info', 'local', 'model', 'catalog'].some((k) => changed.has(k))) renderModelInfo(st);
    if (changed.has('local')) renderShare(st);
    if (changed.has('info')) {
      // No attention: no weights, so no colour scale and nothing to tabulate.
      const none = st.info?.attention === 'none';
      legend.hidden = none;
      heatIntro.hidden = none;
      tableToggle.disabled = none;
      if (none && !tableBox.classList.contains('as-visually-hidden')) tableToggle.click();
    }
    if (changed.has('trace') || changed.has('error') || changed.has('info') || changed.has('status')) {
      if (st.trace && st.info) {
        vm = buildVM(st.trace, st.info);
        translation.textContent = st.trace.translation || '(empty translation)';
        translation.classList.remove('as-muted');
        const step = Math.min(st.step, vm.T - 1);
        if (step !== st.step) queueMicrotask(() => store.set({ step })); // a shorter translation: clamp
        if (!vm.alpha) {
          const fixed = fixedSummary(st.info);
          heatmap.update({ message: `This model has no attention (the no-attention baseline): the decoder sees only a fixed summary of the source, ${fixed.formula} (${fixed.words}), the same vector at every step. So there is no alignment to show: no weights α, no heatmap. Switch to an attention model to compare.` });
          table.update(null);
          exportButtons.forEach((b) => { b.disabled = true; });
        } else {
          heatmap.update(vm);
          table.update(vm);
          exportButtons.forEach((b) => { b.disabled = false; });
          if (firstHeatmap) { firstHeatmap = false; performance.mark('alignscope:first-heatmap'); }
        }
        heatmap.setMarkedRow(step);
        table.setMarkedRow(step);
        steps.update(vm, step);
        wrapper.dataset.ready = 'true';
      } else {
        vm = null;
        const msg = st.error?.stage === 'translate' ? st.error.message : st.status === 'failed' ? 'The heatmap appears once the model has loaded.' : 'Loading…';
        heatmap.update({ message: msg });
        table.update(null);
        steps.update(null, 0);
        exportButtons.forEach((b) => { b.disabled = true; });
        if (st.error?.stage === 'translate') { translation.textContent = '—'; translation.classList.add('as-muted'); }
      }
      slider.update({ info: st.info, scale: st.scale, entropies: vm?.entropies, S: vm?.S });
      // The step-only layout has no heatmap box to show why there is no picture.
      if (view === 'steps') setNotice('translate', !st.trace && st.error?.stage === 'translate' ? st.error.message : null);
    } else if (changed.has('scale')) {
      slider.update({ info: st.info, scale: st.scale, entropies: vm?.entropies, S: vm?.S });
    }
    if (changed.has('step') && vm) {
      heatmap.setMarkedRow(st.step);
      table.setMarkedRow(st.step);
      steps.setStep(st.step);
    }
    if (changed.has('sentence') && sentence.value !== st.sentence) sentence.value = st.sentence;
    if ((changed.has('model') || changed.has('local')) && st.catalog && st.status !== 'checking') {
      const want = st.local ? LOCAL : st.model;
      if (modelSelect.value !== want) modelSelect.value = want;
    }
    renderHint(st);
    if (opts.syncUrl && ['sentence', 'model', 'scale', 'step', 'local'].some((k) => changed.has(k))) scheduleUrlSync();
    if (linkField.hidden === false && ['sentence', 'model', 'scale', 'step'].some((k) => changed.has(k))) linkField.value = shareLink();
  }
  store.subscribe(render);
  // Canvas colours come from CSS variables: repaint when the theme changes.
  const darkQuery = matchMedia('(prefers-color-scheme: dark)');
  const repaint = () => heatmap.redraw();
  wrapper.addEventListener('as-theme', repaint);
  darkQuery.addEventListener('change', repaint);

  // ---------- inputs ----------
  let typingTimer = null;
  sentence.value = store.get().sentence;
  const cutNotice = `The text was cut at ${CONFIG.maxSentenceChars} characters, the most alignscope takes; the model itself reads at most ${CONFIG.maxSourceTokens} words and punctuation marks.`;
  // maxlength cuts a long paste silently: say so.
  sentence.addEventListener('beforeinput', (e) => {
    const inserted = e.data ?? e.dataTransfer?.getData('text/plain') ?? '';
    const selected = Math.abs((sentence.selectionEnd ?? 0) - (sentence.selectionStart ?? 0));
    if (sentence.value.length - selected + inserted.length > CONFIG.maxSentenceChars) setNotice('cut', cutNotice);
  });
  sentence.addEventListener('input', () => {
    if (sentence.value.length > CONFIG.maxSentenceChars) {
      sentence.value = sentence.value.slice(0, CONFIG.maxSentenceChars); // set from script: maxlength does not apply
      setNotice('cut', cutNotice);
    } else if (sentence.value.length < CONFIG.maxSentenceChars) setNotice('cut', null);
    clearTimeout(typingTimer);
    typingTimer = setTimeout(() => {
      store.set({ sentence: sentence.value.slice(0, CONFIG.maxSentenceChars) });
      requestTranslation();
    }, CONFIG.typingPauseMs);
  });
  modelSelect.addEventListener('change', () => {
    setNotice('model', null);
    if (modelSelect.value === LOCAL) {
      if (localModel) openLocal(localModel);
      return;
    }
    store.set({ model: modelSelect.value });
    loadModel();
  });
  if (localFiles) {
    openFileBtn.addEventListener('click', () => fileInput.click());
    fileInput.addEventListener('change', () => {
      const file = fileInput.files?.[0];
      fileInput.value = ''; // choosing the same file again is a new choice
      loadLocalFile(file);
    });
  }

  // Drop a .alsc file anywhere on the page. Only drags that carry files are
  // taken (text dragged into the sentence box behaves as usual), and a file
  // dropped anywhere never makes the browser navigate away from the page.
  const dropHint = localFiles ? h('div', { class: 'as-drop', hidden: true, 'aria-hidden': 'true' }, h('p', null, 'Drop the model file (.alsc) to load it')) : null;
  let dragDepth = 0;
  const carriesFiles = (e) => Array.from(e.dataTransfer?.types ?? []).includes('Files');
  const onDragEnter = (e) => { if (!carriesFiles(e)) return; e.preventDefault(); dragDepth += 1; dropHint.hidden = false; };
  const onDragOver = (e) => { if (!carriesFiles(e)) return; e.preventDefault(); e.dataTransfer.dropEffect = 'copy'; dropHint.hidden = false; };
  const onDragLeave = (e) => { if (!carriesFiles(e)) return; dragDepth = Math.max(0, dragDepth - 1); if (dragDepth === 0) dropHint.hidden = true; };
  const onDrop = (e) => {
    if (!carriesFiles(e)) return;
    e.preventDefault();
    dragDepth = 0;
    dropHint.hidden = true;
    const files = Array.from(e.dataTransfer.files ?? []);
    if (files.length === 1) loadLocalFile(files[0]);
    else setNotice('file', `${files.length} files were dropped: drop one model file (.alsc) at a time.`);
  };
  const dragEvents = [['dragenter', onDragEnter], ['dragover', onDragOver], ['dragleave', onDragLeave], ['drop', onDrop]];
  if (localFiles) {
    wrapper.append(dropHint);
    for (const [type, fn] of dragEvents) addEventListener(type, fn);
  }
  retry.addEventListener('click', () => {
    const st = store.get();
    if (client.worker && st.error?.stage === 'load') loadModel();
    else boot();
  });
  tableToggle.addEventListener('click', () => {
    const on = tableBox.classList.toggle('as-visually-hidden') === false;
    tableToggle.setAttribute('aria-pressed', String(on));
  });
  const modelTag = () => { const st = store.get(); return st.local ? `${LOCAL}${st.local.name}` : st.model; };
  const fileStem = () => `alignscope-${(store.get().local?.name.replace(/\.alsc$/i, '') ?? store.get().model).replace(/[^A-Za-z0-9_.-]+/g, '-').slice(0, 40)}-${store.get().sentence.trim().toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'sentence'}`;
  const exportMeta = () => {
    const st = store.get();
    const sc = scaleFor(st.info, st.scale);
    // The sentence the matrix was computed for (typing may have moved on).
    return { model: modelTag(), sentence: vm?.trace?.text ?? st.sentence, translation: st.trace?.translation, attention: st.info?.attention, divisor: sc.divisor, scoreScale: sc.scoreScale, keyDim: st.info?.keyDim };
  };
  const measureCtx = document.createElement('canvas').getContext('2d');
  measureCtx.font = CONFIG.labelFont;
  for (const b of exportButtons) {
    b.addEventListener('click', async () => {
      if (!vm?.alpha) return;
      const kind = b.dataset.export;
      if (kind === 'csv') download(new Blob([matrixCSV(vm)], { type: 'text/csv' }), `${fileStem()}.csv`);
      if (kind === 'json') download(new Blob([matrixJSON(vm, exportMeta())], { type: 'application/json' }), `${fileStem()}.json`);
      if (kind === 'svg') {
        const dark = getComputedStyle(wrapper).getPropertyValue('--as-is-dark').trim() === '1';
        download(new Blob([heatmapSVG(vm, (s) => measureCtx.measureText(s).width, { dark, title: `${store.get().sentence} → ${vm.trace.translation}` })], { type: 'image/svg+xml' }), `${fileStem()}.svg`);
      }
      if (kind === 'png') download(await heatmapPNG(vm, themeColors(wrapper)), `${fileStem()}.png`);
    });
  }
  function shareLink() {
    return `${shareBase.split('#')[0]}#${serializeShareState(store.get())}`;
  }
  copyBtn.addEventListener('click', async () => {
    if (store.get().local) {
      setNotice('share', shareWhyText(store.get()));
      return;
    }
    setNotice('share', null);
    const link = shareLink();
    linkField.hidden = false;
    linkField.value = link;
    let copied = false;
    try { await navigator.clipboard.writeText(link); copied = true; } catch { /* file:// or no permission: the field below is selectable */ }
    linkField.focus();
    linkField.select();
    copyBtn.textContent = copied ? 'Copied ✓' : 'Select & copy ↓';
    setTimeout(() => { copyBtn.textContent = 'Copy link'; }, 1800);
  });

  let urlTimer = null;
  function scheduleUrlSync() {
    clearTimeout(urlTimer);
    urlTimer = setTimeout(() => {
      const hash = `#${serializeShareState(store.get())}`;
      if (location.hash !== hash) history.replaceState(null, '', hash);
    }, 150);
  }
  const onHashChange = () => {
    const parsed = parseShareString(location.hash);
    api.setState(parsed);
  };
  if (opts.syncUrl) addEventListener('hashchange', onHashChange);

  // ---------- public API ----------
  const api = {
    store,
    element: wrapper,
    /** Apply a partial share state (attributes, a pasted link). */
    setState(patch) {
      const before = store.get();
      if (patch.rejectedModel != null) checkModel(before.model, patch.rejectedModel);
      // A link made with a file from a disk: say why this shows another model
      // (unless the reader has a file of their own open right now).
      if (patch.fileModel != null && !before.local) checkModel(before.model, null, patch.fileModel);
      const next = {};
      for (const k of ['sentence', 'model', 'scale', 'step']) if (patch[k] !== undefined && patch[k] !== before[k]) next[k] = patch[k];
      if (!Object.keys(next).length) return;
      store.set(next);
      if (next.model && before.catalog && checkModel(next.model) !== before.model) loadModel();
      else if (next.sentence !== undefined || next.scale !== undefined) requestTranslation();
    },
    step(delta) {
      if (!vm) return;
      store.set({ step: Math.max(0, Math.min(vm.T - 1, store.get().step + delta)) });
    },
    shareLink,
    setTheme(theme) {
      if (theme === 'dark' || theme === 'light') wrapper.dataset.theme = theme; else delete wrapper.dataset.theme;
      requestAnimationFrame(repaint);
    },
    destroy() {
      steps.stop();
      heatmap.destroy();
      client.stop();
      clearTimeout(typingTimer);
      clearTimeout(urlTimer);
      loadAbort?.abort();
      if (opts.syncUrl) removeEventListener('hashchange', onHashChange);
      if (localFiles) for (const [type, fn] of dragEvents) removeEventListener(type, fn);
      darkQuery.removeEventListener('change', repaint);
      wrapper.remove();
    },
  };
  render(store.get(), new Set(['status', 'trace', 'info', 'sentence']));
  boot();
  return api;
}
