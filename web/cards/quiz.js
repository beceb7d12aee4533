// quiz.js - the "Predict, then reveal" card. Before each step is shown, the
// learner picks the source word they think the decoder will look at most
// (and, with "Also guess the word it writes", the word it writes); then the
// true α of that row (bars, as in the step-through) and the word appear,
// with the running score; after the last row, a summary of every step.
// The game lives in the store (controllers/quiz.js), the scoring in
// lib/quiz.js. The card is self-contained: while a quiz runs, the cards that
// would give the answer away (the translation, heatmap, step-through,
// slider, comparison and any other view of α) are hidden by alignscope.css,
// and the card says so. It puts no α of a row into the page before that
// row is revealed.
//
// Keyboard: the source words and the next-word choices are radio groups
// (one Tab stop each; ←/→ or ↑/↓ choose, Home/End, Enter confirms: from the
// source words it goes on to the word choices, or reveals); after a reveal
// the focus is on "Next step".

import { h, uid } from '../lib/dom.js';
import { fmt } from '../lib/math.js';
import { alphaRow, quizSummary } from '../lib/quiz.js';
import { t, num } from '../i18n/index.js';
import { paintWeight } from '../views/weight.js';

/**
 * ctx: { headingId, actions: { start(mode), leave(), select(j), guess(word), ready(), reveal(), next(), again(),
 *        setStep(step), link(mode) → { link } | { why } } }
 */
export function mount(store, { headingId, actions }) {
  const ids = { withWord: uid('qword'), startAt: uid('qstart'), prompt: uid('qprompt'), wordPrompt: uid('qwprompt'), summary: uid('qsum'), table: uid('qtab') };

  // ---------- setup (no quiz running) ----------
  const withWord = h('input', { type: 'checkbox', id: ids.withWord });
  const startAt = h('select', { id: ids.startAt, class: 'as-select as-quiz-start-at' });
  const startBtn = h('button', { type: 'button', class: 'as-btn as-btn-primary' }, t('quiz.start'));
  const unavailable = h('p', { class: 'as-small as-note', hidden: true });
  const last = h('p', { class: 'as-small', hidden: true });
  const setup = h('div', { class: 'as-quiz-setup' },
    h('p', { class: 'as-small' }, t('quiz.intro')),
    h('p', { class: 'as-small as-muted' }, t('quiz.hides')),
    h('div', { class: 'as-row as-wrap as-quiz-options' },
      h('label', { class: 'as-quiz-option', for: ids.withWord }, withWord, ` ${t('quiz.withWord')}`),
      h('span', { class: 'as-quiz-option' }, h('label', { for: ids.startAt }, t('quiz.startAt')), ' ', startAt)),
    unavailable,
    h('div', { class: 'as-row as-wrap' }, startBtn),
    last);

  // ---------- one step of the game ----------
  const counter = h('span', { class: 'as-quiz-counter as-strong' });
  const score = h('span', { class: 'as-quiz-score' });
  const soFar = h('p', { class: 'as-quiz-sofar' });
  const prompt = h('h3', { id: ids.prompt, class: 'as-step-head as-quiz-prompt' });
  const source = h('div', { class: 'as-quiz-source', role: 'radiogroup', 'aria-labelledby': ids.prompt });
  const wordPrompt = h('h3', { id: ids.wordPrompt, class: 'as-step-head as-quiz-prompt' });
  const words = h('div', { class: 'as-quiz-words', role: 'radiogroup', 'aria-labelledby': ids.wordPrompt });
  const wordBlock = h('div', { class: 'as-quiz-word-block' }, wordPrompt, words);
  const revealBtn = h('button', { type: 'button', class: 'as-btn as-btn-primary as-quiz-reveal' }, t('quiz.reveal'));
  const nextBtn = h('button', { type: 'button', class: 'as-btn as-btn-primary as-quiz-next', hidden: true }, t('quiz.next'));
  // What the reveal said, the next step, why Reveal waits: read out as it changes.
  const result = h('p', { class: 'as-quiz-result', role: 'status', 'aria-live': 'polite' });
  const waiting = h('p', { class: 'as-small as-note', hidden: true });
  const game = h('div', { class: 'as-quiz-game' },
    h('div', { class: 'as-quiz-status' }, counter, score),
    soFar, prompt, source, wordBlock,
    h('div', { class: 'as-row as-wrap' }, revealBtn, nextBtn),
    result,
    h('p', { class: 'as-small as-muted as-quiz-keys' }, t('quiz.keys')));

  // ---------- the summary ----------
  const summaryHead = h('h3', { id: ids.summary, class: 'as-quiz-summary-head', tabindex: '-1' }, t('quiz.summaryHead'));
  const totals = h('p', { class: 'as-quiz-totals' });
  const missLine = h('p', { class: 'as-quiz-misses' });
  const wordLine = h('p', { class: 'as-quiz-word-total' });
  const tableWrap = h('div', { class: 'as-quiz-table-wrap', tabindex: '0', role: 'region', 'aria-labelledby': ids.table });
  const againBtn = h('button', { type: 'button', class: 'as-btn as-btn-primary' }, t('quiz.again'));
  const summary = h('div', { class: 'as-quiz-summary', hidden: true },
    summaryHead, totals, missLine, wordLine, tableWrap);

  // ---------- what every running quiz has ----------
  const leaveBtn = h('button', { type: 'button', class: 'as-btn' }, t('quiz.leave'));
  const copyBtn = h('button', { type: 'button', class: 'as-btn as-btn-small' }, t('quiz.copy'));
  const linkField = h('input', { class: 'as-link', type: 'text', readonly: true, hidden: true, 'aria-label': t('quiz.linkLabel') });
  const linkWhy = h('p', { class: 'as-small as-note', hidden: true });
  const hiddenNote = h('p', { class: 'as-small as-muted as-quiz-hidden-note' }, t('quiz.hiddenNote'));
  const running = h('div', { class: 'as-quiz-running' }, hiddenNote, waiting, game, summary,
    h('div', { class: 'as-row as-wrap as-quiz-tools' }, againBtn, leaveBtn));

  const element = h('section', { class: 'as-card as-quiz-card', 'aria-labelledby': headingId },
    h('div', { class: 'as-card-head' }, h('h2', { id: headingId }, t('quiz.heading')), copyBtn),
    linkField, linkWhy, setup, running);

  // ---------- state of the view ----------
  let builtKey = '';   // the game whose source buttons are built
  let cols = [];       // per source column: { btn, bar, val, mark, text }
  let wordKey = '';    // the row whose word choices are built
  let wordBtns = [];   // [{ btn, word }]
  let shownRow = -1;   // the row the game shows (focus moves when it changes)
  let lastResult = null; // the last game's summary, for the setup's "Your last quiz"
  let copyTimer = null;
  let pendingFocus = null; // where the focus goes once the next state is drawn: 'source' | 'words' | 'next' | 'summary'
  let drawnPlay = null;    // the quizPlay the card shows (the store's is newer until the scheduler's next frame draws it)

  const st0 = () => store.get();
  const modeOf = () => (withWord.checked ? 'word' : 'source');

  // ---------- inputs ----------
  startBtn.addEventListener('click', () => {
    if (startBtn.getAttribute('aria-disabled') === 'true') return;
    // The first source word takes the focus once the game is drawn (renderGame).
    pendingFocus = 'source';
    actions.start(modeOf());
  });
  startAt.addEventListener('change', () => actions.setStep(Number(startAt.value)));
  leaveBtn.addEventListener('click', () => { actions.leave(); startBtn.focus(); });
  againBtn.addEventListener('click', () => { pendingFocus = 'source'; actions.again(); });
  revealBtn.addEventListener('click', () => tryReveal());
  nextBtn.addEventListener('click', () => { actions.next(); pendingFocus = store.get().quizPlay?.done ? 'summary' : 'source'; applyFocus(); });
  copyBtn.addEventListener('click', async () => {
    const st = st0();
    const r = actions.link(st.quiz ?? modeOf());
    linkWhy.hidden = !r.why;
    linkWhy.textContent = r.why ?? '';
    linkField.hidden = !r.link;
    if (!r.link) return;
    linkField.value = r.link;
    let copied = false;
    try { await navigator.clipboard.writeText(r.link); copied = true; } catch { /* no permission: the field is selected */ }
    linkField.focus();
    linkField.select();
    copyBtn.textContent = copied ? t('quiz.copied') : t('quiz.selectCopy');
    clearTimeout(copyTimer);
    copyTimer = setTimeout(() => { copyBtn.textContent = t('quiz.copy'); }, 1800);
  });

  // Focus moves only once the state asked for is drawn: right after a click
  // the store has the new step but the card still shows the old one (it is
  // drawn in the next frame), where "Next step" or the summary is still hidden.
  function applyFocus() {
    const p = st0().quizPlay;
    if (!pendingFocus || !p || p !== drawnPlay) return;
    if (pendingFocus === 'summary' && p.done) summaryHead.focus();
    else if (pendingFocus === 'source' && !p.done) (cols[p.pick ?? 0]?.btn ?? revealBtn).focus();
    else if (pendingFocus === 'words' && !p.done) (wordBtns.find((w) => w.word === p.word) ?? wordBtns[0])?.btn.focus();
    else if (pendingFocus === 'next') nextBtn.focus();
    else return;
    pendingFocus = null;
  }

  function tryReveal() {
    const p = st0().quizPlay;
    if (!p || p.revealed) return;
    if (!actions.ready()) {
      // Say what is missing (Reveal stays focusable: aria-disabled, not disabled).
      result.textContent = p.pick == null ? t('quiz.pickFirst') : t('quiz.pickWord');
      result.dataset.kind = 'missing';
      return;
    }
    actions.reveal();
    pendingFocus = 'next';
    applyFocus();
  }

  /** Arrow keys (from the focused choice, round the ends), Home and End move the choice within a radio group; Enter confirms. */
  function groupKeys(e, list, choose, confirm) {
    const p = st0().quizPlay;
    if (!p || p.revealed || p.done || !list.length) return;
    const n = list.length;
    const index = Math.max(0, list.findIndex((x) => x.btn === e.target));
    const moves = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
    let next = null;
    if (e.key in moves) next = (index + moves[e.key] + n) % n;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = n - 1;
    else if (e.key === 'Enter') {
      e.preventDefault();
      const focused = list.findIndex((x) => x.btn === e.target);
      if (focused >= 0) choose(focused);
      confirm();
      return;
    } else return;
    e.preventDefault();
    choose(next);
    list[next].btn.focus();
  }
  source.addEventListener('keydown', (e) => groupKeys(e, cols, (j) => actions.select(j), () => {
    const p = st0().quizPlay;
    if (p?.mode === 'word' && p.word == null) { pendingFocus = 'words'; applyFocus(); } else tryReveal();
  }));
  words.addEventListener('keydown', (e) => groupKeys(e, wordBtns, (k) => actions.guess(wordBtns[k].word), () => {
    if (st0().quizPlay?.pick == null) { pendingFocus = 'source'; applyFocus(); result.textContent = t('quiz.pickFirst'); result.dataset.kind = 'missing'; } else tryReveal();
  }));

  // ---------- building ----------
  function buildSource(m) {
    cols = m.colLabels.map((text, j) => {
      const bar = h('span', { class: 'as-bar' });
      const val = h('span', { class: 'as-bar-val', 'aria-hidden': 'true' });
      const barBox = h('span', { class: 'as-bar-box', 'aria-hidden': 'true', hidden: true }, bar);
      const chip = h('span', { class: 'as-chip' }, text);
      const mark = h('span', { class: 'as-quiz-mark', 'aria-hidden': 'true' });
      const btn = h('button', { type: 'button', role: 'radio', class: 'as-quiz-src', 'aria-checked': 'false', tabindex: j === 0 ? '0' : '-1' }, barBox, val, chip, mark);
      btn.addEventListener('click', () => { actions.select(j); });
      return { btn, bar, val, barBox, chip, mark, text };
    });
    source.replaceChildren(...cols.map((c) => c.btn));
  }

  function buildWords(choices) {
    wordBtns = choices.map((word, k) => {
      const btn = h('button', { type: 'button', role: 'radio', class: 'as-btn as-btn-small as-quiz-word', 'aria-checked': 'false', tabindex: k === 0 ? '0' : '-1' }, word);
      btn.addEventListener('click', () => actions.guess(word));
      return { btn, word };
    });
    words.replaceChildren(...wordBtns.map((w) => w.btn));
  }

  // ---------- rendering ----------
  const unit = (m) => (m.level === 'pieces' ? 'quiz.awayPieces' : 'quiz.awayWords');
  const scoreText = (m, results) => {
    const s = quizSummary(results);
    let text = t('quiz.score', { right: num(s.right), n: num(s.played) });
    if (s.words) text += t('quiz.scoreWords', { right: num(s.words.right), n: num(s.words.played) });
    if (s.misses.length) text += t('quiz.scoreOff', { gap: fmt(s.meanGap, 2), d: fmt(s.meanDistance, 1) });
    return { text, s };
  };

  function renderSetup(st) {
    const m = st.matrix;
    const none = st.info?.attention === 'none';
    const can = !!m?.alpha;
    unavailable.hidden = can;
    unavailable.textContent = none ? t('quiz.noAttention') : can ? '' : t('quiz.waiting');
    startBtn.setAttribute('aria-disabled', String(!can));
    startBtn.classList.toggle('as-btn-off', !can);
    // "Start at step": the rows of the figure, by the decoder step of their first piece.
    const opts = can ? m.rowGroups.map((g, r) => [String(g.first), num(r + 1)]) : [];
    const key = JSON.stringify(opts);
    if (startAt.dataset.key !== key) {
      startAt.dataset.key = key;
      startAt.replaceChildren(...opts.map(([v, label]) => h('option', { value: v }, label)));
    }
    startAt.disabled = !can;
    if (can) {
      const row = m.rowGroups.findIndex((g) => st.step >= g.first && st.step < g.first + g.count);
      startAt.value = String(m.rowGroups[Math.max(0, row)].first);
    }
    last.hidden = !lastResult;
    if (lastResult) last.textContent = t('quiz.last', { right: num(lastResult.right), n: num(lastResult.played) });
  }

  function renderGame(st) {
    const p = st.quizPlay;
    const m = st.matrix;
    drawnPlay = p;
    waiting.hidden = !!p;
    if (!p) {
      game.hidden = true;
      summary.hidden = true;
      againBtn.hidden = true;
      waiting.textContent = st.info?.attention === 'none' ? t('quiz.noAttention') : t('quiz.waiting');
      return;
    }
    if (p.key !== builtKey) { buildSource(m); builtKey = p.key; shownRow = -1; wordKey = ''; }
    game.hidden = p.done;
    summary.hidden = !p.done;
    againBtn.hidden = !p.done;
    if (p.done) { renderSummary(st); applyFocus(); return; }

    const pieces = m.level === 'pieces';
    const played = p.row - p.startRow + 1;
    const total = m.T - p.startRow;
    counter.textContent = t('quiz.counter', { i: num(played), n: num(total) });
    score.textContent = scoreText(m, p.results).text;
    prompt.textContent = t(pieces ? 'quiz.promptPieces' : 'quiz.prompt');

    // What it wrote so far: every row before this one (revealed, or before the start), then this one.
    const shown = m.rowLabels.slice(0, p.row).map((w) => h('span', { class: 'as-word' }, w));
    const current = p.revealed
      ? h('span', { class: 'as-word as-current' }, m.rowLabels[p.row])
      : h('span', { class: 'as-word as-quiz-blank', 'aria-label': t('quiz.blank') }, '?');
    soFar.replaceChildren(h('span', { class: 'as-small as-muted' }, t('quiz.soFar')), ' ', ...shown.flatMap((s) => [s, ' ']), current);

    // The source words; after the reveal, this row's α as bars (none before: not even in the page).
    const row = p.revealed ? alphaRow(m, p.row) : null;
    const r = p.revealed ? p.results[p.results.length - 1] : null;
    const focusIndex = p.pick ?? 0;
    source.classList.toggle('as-revealed', !!row);
    cols.forEach((c, j) => {
      const picked = p.pick === j;
      c.btn.setAttribute('aria-checked', String(picked));
      c.btn.tabIndex = j === focusIndex ? 0 : -1;
      c.btn.classList.toggle('as-picked', picked);
      c.btn.setAttribute('aria-disabled', String(p.revealed));
      c.barBox.hidden = !row;
      const best = !!row && row[j] === r.alphaBest;
      c.btn.classList.toggle('as-best', best);
      const marks = [picked && row ? t('quiz.markYou') : null, best ? t('quiz.markModel') : null].filter(Boolean);
      c.mark.replaceChildren(...marks.map((x) => h('span', null, x)));
      if (row) {
        const a = row[j];
        paintWeight(c, a);
        c.btn.setAttribute('aria-label', [t('quiz.srcRevealed', { word: c.text, a: fmt(a) }), ...marks].join(', '));
      } else {
        c.val.textContent = '';
        c.chip.style.removeProperty('background-color');
        c.chip.style.removeProperty('color');
        c.btn.removeAttribute('aria-label');
      }
    });

    // The next-word choices (the 'word' mode).
    wordBlock.hidden = p.mode !== 'word';
    if (p.mode === 'word') {
      wordPrompt.textContent = t(pieces ? 'quiz.wordPromptPieces' : 'quiz.wordPrompt');
      const wk = `${p.key}|${p.row}`;
      if (wk !== wordKey) { buildWords(p.choices ?? []); wordKey = wk; }
      const focusWord = Math.max(0, wordBtns.findIndex((w) => w.word === p.word));
      wordBtns.forEach((w, k) => {
        const on = p.word === w.word;
        w.btn.setAttribute('aria-checked', String(on));
        w.btn.tabIndex = k === focusWord ? 0 : -1;
        w.btn.setAttribute('aria-disabled', String(p.revealed));
        w.btn.classList.toggle('as-quiz-truth', p.revealed && w.word === p.truth);
      });
    }

    revealBtn.hidden = p.revealed;
    revealBtn.setAttribute('aria-disabled', String(!actions.ready()));
    nextBtn.hidden = !p.revealed;
    nextBtn.textContent = p.row >= m.T - 1 ? t('quiz.toSummary') : t('quiz.next');

    if (p.revealed) { result.textContent = resultText(m, r); result.dataset.kind = 'result'; }
    else if (p.row !== shownRow) { result.textContent = p.restarted ?? t('quiz.now', { i: num(played), n: num(total) }); result.dataset.kind = 'ask'; }
    shownRow = p.row;
    applyFocus();
  }

  function resultText(m, r) {
    const best = m.colLabels[r.best];
    let text = r.right
      ? t('quiz.right', { word: best, a: fmt(r.alphaBest) })
      : t('quiz.wrong', { pick: m.colLabels[r.picked], ap: fmt(r.alphaPicked), best, ab: fmt(r.alphaBest), gap: fmt(r.gap), away: t(unit(m), { n: r.distance }) });
    if (r.word) text += ` ${r.word.right ? t('quiz.wordRight', { word: r.word.truth }) : t('quiz.wordWrong', { word: r.word.truth, guess: r.word.guess })}`;
    return text;
  }

  // A word and its α (the number in a muted span: the word is what is read first).
  const alphaCell = (word, a) => h('td', { dataset: { alpha: String(a) } }, word, ' ', h('span', { class: 'as-muted as-quiz-alpha' }, fmt(a)));

  function renderSummary(st) {
    const p = st.quizPlay;
    const m = st.matrix;
    const s = quizSummary(p.results);
    lastResult = s;
    totals.textContent = t('quiz.summaryRight', { right: num(s.right), n: s.played, p: num(s.percent) });
    missLine.textContent = s.misses.length
      ? t(m.level === 'pieces' ? 'quiz.summaryMissesPieces' : 'quiz.summaryMissesWords', { gap: fmt(s.meanGap), max: fmt(s.maxGap), d: fmt(s.meanDistance, 1) })
      : t('quiz.summaryNoMisses');
    wordLine.hidden = !s.words;
    if (s.words) wordLine.textContent = t('quiz.summaryWords', { right: num(s.words.right), n: s.words.played });
    const withWord = p.mode === 'word';
    const head = h('tr', null, ...['quiz.colStep', 'quiz.colWrote', 'quiz.colPick', 'quiz.colBest', 'quiz.colOff', ...(withWord ? ['quiz.colWord'] : [])].map((k) => h('th', { scope: 'col' }, t(k))));
    const body = p.results.map((r) => h('tr', { class: r.right ? 'as-quiz-ok' : 'as-quiz-miss', dataset: { row: String(r.row), right: String(r.right) } },
      h('th', { scope: 'row' }, num(r.row + 1)),
      h('td', null, m.rowLabels[r.row]),
      alphaCell(m.colLabels[r.picked], r.alphaPicked),
      alphaCell(m.colLabels[r.best], r.alphaBest),
      h('td', { dataset: { gap: String(r.gap), distance: String(r.distance) } }, r.right ? t('quiz.cellRight') : t('quiz.cellOff', { gap: fmt(r.gap), away: t(unit(m), { n: r.distance }) })),
      withWord ? h('td', null, t(r.word.right ? 'quiz.cellWordRight' : 'quiz.cellWordWrong', { word: r.word.guess })) : null));
    tableWrap.replaceChildren(h('table', { class: 'as-table as-quiz-table' },
      h('caption', { id: ids.table }, t('quiz.tableCaption', { sentence: m.trace.text })),
      h('thead', null, head), h('tbody', null, body)));
    score.textContent = scoreText(m, p.results).text;
  }

  function render(st) {
    const on = !!st.quiz;
    setup.hidden = on;
    running.hidden = !on;
    element.dataset.phase = !on ? 'off' : !st.quizPlay ? 'waiting' : st.quizPlay.done ? 'done' : 'play';
    if (!on) { builtKey = ''; renderSetup(st); if (pendingFocus === 'source') pendingFocus = null; return; }
    renderGame(st);
  }

  const KEYS = ['quiz', 'quizPlay', 'matrix', 'info', 'step', 'status'];
  return {
    element,
    update(st, changed) {
      if (KEYS.some((k) => changed.has(k))) render(st);
      if (changed.has('local') || changed.has('quiz')) { linkField.hidden = true; linkWhy.hidden = true; }
    },
    destroy() { clearTimeout(copyTimer); },
  };
}
