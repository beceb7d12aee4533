// input.js - the sentence card: the sentence box with its live token count,
// the notices about the input, the engine's status (progress, errors,
// Retry), the translation, and, for a text longer than the model reads, the
// notice and the picker of its sentences, and how the translation is
// decoded (beam search by default; greedy one click away, as `beam=1` in a
// link). The presenter-mode button lives here, at the top of every layout.

import { CONFIG } from '../config.js';
import { h } from '../lib/dom.js';
import { fmt } from '../lib/math.js';
import { excerpt, cutText } from '../lib/sentences.js';
import { sentenceLabel, trainedOnText } from '../lib/catalog.js';
import { noticePatch } from '../state.js';
import { VARIANT_NAMES, DEFAULT_BEAM_WIDTH } from '../engine.js';
import { formatLengthPenalty } from '../lib/beam.js';
import { decodingOf } from '../controllers/translation.js';
import { t, num } from '../i18n/index.js';

const BUSY = new Set(['starting', 'loading', 'checking']);

/** ctx: { ids: { input, hint, notice }, frame (the widget's render scheduler), actions: { retry(), presenter(on?) } } */
export function mount(store, { ids, frame = null, actions }) {
  const sentence = h('textarea', { id: ids.input, class: 'as-input', rows: '2', dir: 'auto', maxlength: String(CONFIG.maxSentenceChars), spellcheck: 'false', 'aria-describedby': `${ids.hint} ${ids.notice}`, autocomplete: 'off' });
  // Named after the model's source language (a converted tutorial model reads French).
  const label = h('label', { for: ids.input }, t('input.sentenceLabel'));
  const presenterBtn = h('button', { type: 'button', class: 'as-btn as-btn-small as-presenter-btn', 'aria-pressed': 'false', 'aria-keyshortcuts': 'P', title: t('input.presenterTitle') }, t('input.presenter'));
  const hint = h('p', { id: ids.hint, class: 'as-small as-muted as-hint' });
  // Messages about the input (too long, cut, a refused model): one line each, by topic.
  const notice = h('div', { id: ids.notice, class: 'as-notice as-small', role: 'status', 'aria-live': 'polite' });
  const progress = h('progress', { class: 'as-progress', max: '1' });
  const statusText = h('span', { class: 'as-status-text' });
  const retry = h('button', { type: 'button', class: 'as-btn as-btn-small', hidden: true }, t('input.retry'));
  const status = h('div', { class: 'as-status', role: 'status' }, progress, statusText, retry);
  const translation = h('p', { class: 'as-translation', 'aria-live': 'polite', 'aria-atomic': 'true' });
  // Shown instead of the translation while a quiz runs (alignscope.css, data-quiz="on"): it would give the answers away.
  const quizVeil = h('p', { class: 'as-quiz-veil as-muted' }, t('quiz.veil'));
  // Over the token limit: what is shown instead, and the sentences to choose from.
  const longNote = h('p', { class: 'as-long-note as-small', hidden: true, 'aria-live': 'polite' });
  const parts = h('div', { class: 'as-parts', role: 'group', 'aria-label': t('input.partsLabel'), hidden: true });
  const perf = h('p', { class: 'as-perf as-small as-muted', 'aria-hidden': 'true' });
  // How the translation is decoded, and the other way one click away.
  const decodingText = h('span', { class: 'as-decoding-text' });
  const decodingBtn = h('button', { type: 'button', class: 'as-btn as-btn-small as-decoding-btn' });
  const decoding = h('p', { class: 'as-decoding as-small' }, decodingText, ' ', decodingBtn);
  // What the model was trained on and what to expect of it (the catalogue's
  // trainedOn, from its metrics), beside every translation it makes.
  const trainedOn = h('p', { class: 'as-trained-on as-small as-muted' });
  // The lesson's sentences and those models/train/examples.py picked from the
  // teacher's set (models/examples/, committed; web/tools/assemble.mjs).
  // Folded by default: open, they would push the figure off a phone's first screen.
  const examplesLabelId = `${ids.input}-examples`;
  const examplesSummary = h('summary', { id: examplesLabelId, class: 'as-small' });
  const examplesList = h('div', { class: 'as-examples-list', role: 'group', 'aria-labelledby': examplesLabelId });
  const examples = h('details', { class: 'as-examples', hidden: true }, examplesSummary, examplesList);

  const element = h('section', { class: 'as-card as-input-card', 'aria-label': t('input.cardLabel') },
    h('div', { class: 'as-input-grid' },
      h('div', { class: 'as-field as-sentence-field' },
        h('div', { class: 'as-label-row' }, label, presenterBtn),
        sentence, hint, examples),
      h('div', { class: 'as-translation-box' },
        h('div', { class: 'as-translation-head' }, h('span', { class: 'as-small as-muted as-label' }, t('input.translation')), decoding),
        translation, quizVeil, longNote, parts, perf, trainedOn)),
    notice, status);

  // ---------- inputs ----------
  let typingTimer = null;
  // The box grows with its text (alignscope.css: field-sizing, up to its
  // max-height). Where the browser has no field-sizing, the same by script:
  // reading scrollHeight lays the page out, so only there.
  const grows = globalThis.CSS?.supports?.('field-sizing', 'content') ?? true;
  const fitHeight = grows ? () => {} : () => {
    sentence.style.height = 'auto';
    sentence.style.height = `${sentence.scrollHeight + sentence.offsetHeight - sentence.clientHeight}px`;
  };
  // What the box showed (a card built again for a new UI language keeps the typing).
  sentence.value = store.get().draft ?? store.get().sentence;
  if (!grows) requestAnimationFrame(fitHeight); // once the card is on the page
  const cutNotice = t('input.cut', { chars: num(CONFIG.maxSentenceChars), tokens: num(CONFIG.maxSourceTokens) });
  const setNotice = (topic, text) => store.set(noticePatch(store.get(), topic, text));
  // maxlength cuts a long paste silently: say so.
  sentence.addEventListener('beforeinput', (e) => {
    const inserted = e.data ?? e.dataTransfer?.getData('text/plain') ?? '';
    const selected = Math.abs((sentence.selectionEnd ?? 0) - (sentence.selectionStart ?? 0));
    if (sentence.value.length - selected + inserted.length > CONFIG.maxSentenceChars) setNotice('cut', cutNotice);
  });
  sentence.addEventListener('input', () => {
    if (sentence.value.length > CONFIG.maxSentenceChars) {
      sentence.value = cutText(sentence.value, CONFIG.maxSentenceChars); // set from script: maxlength does not apply; never half a character
      setNotice('cut', cutNotice);
    } else if (sentence.value.length < CONFIG.maxSentenceChars && store.get().notices.cut) setNotice('cut', null);
    fitHeight();
    store.set({ draft: sentence.value });
    clearTimeout(typingTimer);
    typingTimer = setTimeout(() => store.set({ sentence: cutText(sentence.value, CONFIG.maxSentenceChars), part: 0 }), CONFIG.typingPauseMs);
  });
  retry.addEventListener('click', () => actions.retry());
  presenterBtn.addEventListener('click', () => actions.presenter());

  // ---------- rendering ----------
  function renderStatus(st) {
    const failed = st.status === 'failed';
    const busy = BUSY.has(st.status);
    progress.hidden = !busy;
    retry.hidden = !failed;
    status.classList.toggle('as-error', failed);
    status.hidden = !busy && !failed;
    if (failed) statusText.textContent = st.error?.message ?? t('input.wrong');
    else if (busy && st.progress) {
      statusText.textContent = st.progress.text;
      if (st.progress.max) { progress.max = st.progress.max; progress.value = st.progress.value ?? 0; } else progress.removeAttribute('value');
      progress.setAttribute('aria-valuetext', st.progress.text);
    }
    sentence.setAttribute('aria-busy', busy ? 'true' : 'false');
  }

  function renderHint(st) {
    const max = st.info?.maxSourceTokens;
    const chars = t('input.chars', { n: (st.draft ?? st.sentence).length, max: num(CONFIG.maxSentenceChars) });
    const c = st.tokenCount;
    const current = c && c.text === (st.draft ?? st.sentence);
    hint.classList.toggle('as-over', !!(current && c.count > c.max));
    hint.textContent = max
      ? `${current ? `${t('input.tokens', { n: c.count, max: num(c.max) })}${c.count > c.max ? t('input.tokensOver') : ''}` : t('input.tokenLimit', { n: max })} · ${chars}`
      : t('input.upTo', { n: CONFIG.maxSentenceChars });
  }

  function renderLong(st) {
    const p = st.plan;
    const over = !!p?.over && st.sentence === st.translated?.sentence;
    longNote.hidden = !over;
    parts.hidden = !over || p.parts.length < 2;
    if (!over) { parts.replaceChildren(); return; }
    const part = p.parts[st.part] ?? p.parts[0];
    const max = num(p.max);
    const which = p.parts.length > 1 ? t('input.long.sentence', { i: num(st.part + 1), n: p.parts.length }) : t('input.long.beginning');
    longNote.textContent = t('input.long', { n: p.count, max, which, cut: part.cut ? t('input.long.cut', { max }) : '', pick: p.parts.length > 1 ? t('input.long.pick') : '' });
    const key = JSON.stringify([st.sentence.length, p.parts]);
    if (parts.dataset.key !== key) {
      parts.dataset.key = key;
      parts.replaceChildren(...p.parts.slice(0, CONFIG.maxSentenceChoices).map((q, i) => {
        const b = h('button', { type: 'button', class: 'as-btn as-btn-small as-part', dataset: { part: String(i) } }, `${num(i + 1)}. ${excerpt(st.sentence, q)}`);
        b.addEventListener('click', () => store.set({ part: i, step: 0 }));
        return b;
      }), p.parts.length > CONFIG.maxSentenceChoices ? h('span', { class: 'as-small as-muted' }, t('input.firstParts', { first: num(CONFIG.maxSentenceChoices), n: p.parts.length })) : null);
    }
    for (const b of parts.querySelectorAll('button')) b.setAttribute('aria-pressed', String(Number(b.dataset.part) === st.part));
  }

  function renderModelNotes(st) {
    const entry = st.local ? null : st.catalog?.models.find((m) => m.id === st.model);
    trainedOn.textContent = trainedOnText(entry);
    trainedOn.hidden = !trainedOn.textContent;
    const list = entry?.examples ?? [];
    examples.hidden = !list.length;
    if (examples.dataset.model === (entry?.id ?? '')) return;
    examples.dataset.model = entry?.id ?? '';
    examplesSummary.textContent = t('input.examples');
    examplesList.replaceChildren(...list.map((e) => {
      const b = h('button', { type: 'button', class: 'as-btn as-btn-small as-example', title: e.shows.length ? t('input.exampleShows', { what: e.shows.join(', '), set: e.set }) : e.set }, e.text);
      b.addEventListener('click', () => { sentence.value = e.text; fitHeight(); store.set({ draft: e.text, sentence: e.text, part: 0, step: 0 }); });
      return b;
    }));
  }

  // Greedy is width 1; back from it is the default beam (null: the link then says nothing).
  decodingBtn.addEventListener('click', () => {
    const greedy = decodingOf(store.get()).beamWidth === 1;
    const st = store.get();
    store.set({ beam: greedy ? null : 1, ...noticePatch({ ...st, ...noticePatch(st, 'beam', null) }, 'beamLp', null) });
  });
  function renderDecoding(st) {
    const { beamWidth, lengthPenalty } = decodingOf(st);
    const greedy = beamWidth === 1;
    decoding.dataset.width = String(beamWidth);
    decodingText.textContent = greedy ? t('input.decodingGreedy') : t('input.decodingBeam', { k: num(beamWidth), lp: formatLengthPenalty(lengthPenalty) });
    decodingBtn.textContent = greedy ? t('input.useBeam', { k: num(st.beam > 1 ? st.beam : DEFAULT_BEAM_WIDTH) }) : t('input.useGreedy');
  }
  renderDecoding(store.get());

  function renderTranslation(st) {
    if (st.trace && st.info) {
      translation.textContent = st.trace.translation || t('input.emptyTranslation');
      translation.classList.remove('as-muted');
    } else if (st.error?.stage === 'translate') {
      translation.textContent = '—';
      translation.classList.add('as-muted');
    }
    const tm = st.timing;
    // The time belongs to the translation on screen: none without one.
    // …and which build of the engine made it (picked by feature detection, models.js).
    const build = st.build ? t('input.build', { name: VARIANT_NAMES[st.build] ? t(`input.variant.${st.build}`) : st.build }) : '';
    perf.textContent = tm && st.trace ? `${t('input.perf', { worker: fmt(tm.elapsedMs, 1), trip: fmt(tm.roundTripMs, 1), build })}${tm.encoderReused ? t('input.perfReused') : ''}` : '';
    if (st.build) perf.dataset.build = st.build;
    // The count of results drawn (tests wait on it): set in the same animation
    // frame as the table, the step view and the heatmap of this result.
    const count = () => {
      perf.dataset.roundTripMs = String(tm.roundTripMs);
      perf.dataset.workerMs = String(tm.workerMs);
      perf.dataset.count = String(tm.count);
    };
    if (tm) { if (frame) frame.add('count', count); else count(); }
  }

  return {
    element,
    update(st, changed) {
      if (changed.has('status') || changed.has('error') || changed.has('progress')) renderStatus(st);
      if (changed.has('notices')) notice.replaceChildren(...Object.entries(st.notices).map(([k, v]) => h('p', { class: 'as-note', dataset: { topic: k } }, v)));
      if (changed.has('sentence') && sentence.value !== st.sentence && !(st.draft != null && sentence.value === st.draft)) { sentence.value = st.sentence; fitHeight(); }
      if (['info', 'local', 'model', 'catalog'].some((k) => changed.has(k))) {
        const source = st.info?.sourceLanguage ?? (st.local ? null : st.catalog?.models.find((m) => m.id === st.model)?.source);
        if (source) label.textContent = sentenceLabel(source);
      }
      if (['trace', 'error', 'timing', 'info', 'build'].some((k) => changed.has(k))) renderTranslation(st);
      if (changed.has('beam') || changed.has('beamLp') || changed.has('uiLang')) renderDecoding(st);
      if (['model', 'local', 'catalog'].some((k) => changed.has(k))) renderModelNotes(st);
      if (['plan', 'part', 'translated', 'sentence'].some((k) => changed.has(k))) renderLong(st);
      if (['tokenCount', 'draft', 'sentence', 'info'].some((k) => changed.has(k))) renderHint(st);
      if (changed.has('presenter')) {
        presenterBtn.setAttribute('aria-pressed', String(!!st.presenter));
        presenterBtn.textContent = st.presenter ? t('input.presenterLeave') : t('input.presenter');
      }
    },
    /** Commit typing that waits for its pause now (the card is about to be built again). */
    flush() {
      if (!typingTimer) return;
      clearTimeout(typingTimer);
      typingTimer = null;
      if (sentence.value !== store.get().sentence) store.set({ sentence: cutText(sentence.value, CONFIG.maxSentenceChars), part: 0 });
    },
    destroy() { clearTimeout(typingTimer); },
  };
}
