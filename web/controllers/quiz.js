// quiz.js - the predict-then-reveal game (cards/quiz.js draws it; lib/quiz.js
// scores it). It follows the store: while `quiz` is a mode ('source' or
// 'word'; the link's quiz=) and the figure matrix has α, there is a game in
// `quizPlay`, and the other cards that would give the answer away are hidden
// (alignscope.css, on the widget's data-quiz="on"). A new matrix (another
// sentence, model, scale, or words/pieces) starts a new game; the same
// translation made again keeps the game. The quiz never moves the
// step-through's `step`: the link's step is where a game starts.
//
//   quizPlay: {
//     key,        what the game is of (lib/quiz.js matrixKey: text, translation, level, α)
//     mode,       'source' | 'word'
//     startRow,   the first row played (the matrix row of the link's step)
//     row,        the row being asked now (startRow … T−1)
//     pick,       the source column selected for this row, or null
//     word,       the next-word guess selected for this row, or null
//     choices,    the next-word choices of this row (lib/quiz.js wordChoices), or null
//     truth,      which of them it wrote, or null
//     revealed,   this row's answer is shown
//     results,    [scoreStep(…) + { row }], one per revealed row
//     done,       every row was played: the summary is shown
//     restarted,  why the game began again (a new translation), or null
//   }

import { CONFIG } from '../config.js';
import { noticePatch } from '../state.js';
import { startRow, alphaRow, scoreStep, wordChoices, matrixKey } from '../lib/quiz.js';
import { t, num } from '../i18n/index.js';

/** What a game is of: a new key is a new game. */
const keyOf = (st) => matrixKey(st.matrix);

/**
 * @param store the widget's store
 * @returns { start(mode), leave(), select(j), guess(word), reveal(), next(), again(), destroy() }
 */
export function createQuiz(store) {
  // The decoder step a new game starts at: the link's (read before the first
  // translation clamps `step` to it), then the step the page is asked to show.
  let asked = store.get().step;

  const set = (patch) => store.set(patch);
  const play = () => store.get().quizPlay;
  const patchPlay = (values) => set({ quizPlay: { ...play(), ...values } });

  function rowState(st, row) {
    const w = st.quiz === 'word' ? wordChoices(st.matrix, row, CONFIG.quizWordChoices) : null;
    return { row, pick: null, word: null, revealed: false, choices: w?.choices ?? null, truth: w?.truth ?? null };
  }

  function newGame(st, restarted = null) {
    const m = st.matrix;
    const step = asked ?? st.step;
    asked = null;
    const start = startRow(m, step);
    const notice = start.beyond ? t('quiz.stepBeyond', { asked: num(step + 1), n: num(m.trace.T) }) : null;
    set({
      ...noticePatch(st, 'quizStep', notice),
      quizPlay: { key: keyOf(st), mode: st.quiz, startRow: start.row, results: [], done: false, restarted, ...rowState(st, start.row) },
    });
  }

  function follow(st, changed) {
    // A step asked for from outside (a link, the "Start at step" list), not the clamp of a new translation.
    if (changed.has('step') && !changed.has('trace')) asked = st.step;
    if (!st.quiz || !st.matrix?.alpha) {
      if (st.quizPlay) set({ quizPlay: null });
      return;
    }
    const p = st.quizPlay;
    const key = keyOf(st);
    if (p && p.key === key && p.mode === st.quiz) return;
    newGame(st, p && p.key !== key ? t('quiz.restarted') : null);
  }

  /** True when this row has what the reveal needs. */
  function ready() {
    const p = play();
    return !!p && !p.revealed && !p.done && p.pick != null && (p.mode !== 'word' || p.word != null);
  }

  const unsubscribe = store.subscribe((st, changed) => {
    if (['quiz', 'matrix', 'step'].some((k) => changed.has(k))) follow(st, changed);
  });
  follow(store.get(), new Set(['quiz']));

  return {
    /** Begin a game in `mode` at the step-through's step. */
    start(mode) {
      asked = store.get().step;
      set({ quiz: mode === 'word' ? 'word' : 'source', quizPlay: null, ...noticePatch(store.get(), 'quizLink', null) });
    },
    /** End the quiz: the other cards come back, and the quiz's notices go. */
    leave() {
      const { quizLink, quizStep, ...notices } = store.get().notices;
      set({ quiz: null, quizPlay: null, notices });
    },
    /** Select source column j for this row (before the reveal). */
    select(j) {
      const p = play();
      if (!p || p.revealed || p.done || !(j >= 0 && j < store.get().matrix.S)) return;
      if (p.pick !== j) patchPlay({ pick: j });
    },
    /** Select a next-word guess for this row (the 'word' mode). */
    guess(word) {
      const p = play();
      if (!p || p.revealed || p.done || !p.choices?.includes(word)) return;
      if (p.word !== word) patchPlay({ word });
    },
    ready,
    /** Show this row's true α and word, and score the guess. */
    reveal() {
      if (!ready()) return;
      const p = play();
      const m = store.get().matrix;
      const r = scoreStep(alphaRow(m, p.row), p.pick, p.mode === 'word' ? { guess: p.word, truth: p.truth } : null);
      patchPlay({ revealed: true, restarted: null, results: [...p.results, { ...r, row: p.row }] });
    },
    /** On to the next row, or to the summary after the last. */
    next() {
      const p = play();
      const st = store.get();
      if (!p || !p.revealed || p.done) return;
      if (p.row >= st.matrix.T - 1) patchPlay({ done: true });
      else patchPlay(rowState(st, p.row + 1));
    },
    /** The same game again, from its first row. */
    again() {
      const p = play();
      const st = store.get();
      if (!p) return;
      patchPlay({ results: [], done: false, restarted: null, ...rowState(st, p.startRow) });
    },
    destroy() { unsubscribe(); },
  };
}
