// lesson.js - the lesson path's two views: the card (start the notes' path,
// open a teacher's lesson file, write one's own path with "Save this step")
// and the lesson bar, fixed at the bottom of the screen while a lesson runs
// (presenter mode too): where the lesson is, the step's title and its one
// paragraph (a polite live region: a screen reader reads each new step),
// Back, Next and End. The state is the store's (controllers/lesson.js moves
// it); the steps' words are i18n keys (the built-in path) or the teacher's.
//
// Keyboard: every control is a button, a field or a select; N / Page Down
// and B / Page Up step anywhere outside a text field (controllers/lesson.js).
// Starting a lesson puts the focus on Next; ending it, back on Start.

import { h, uid, download } from '../lib/dom.js';
import { LESSON_CARDS, lessonText, lessonFile } from '../lib/lesson.js';
import { t, num, uiLanguage } from '../i18n/index.js';

// Each card's own heading, for the builder's list.
const CARD_HEADING = { input: 'input.cardLabel', heat: 'heat.heading', slider: 'slider.title', steps: 'steps.heading', ribbons: 'ribbons.heading', model: 'model.heading', compare: 'compare.heading', beam: 'beam.heading', pin: 'pin.heading', erasure: 'erasure.heading', training: 'training.heading', theory: 'theory.heading', byhand: 'byhand.heading', mathcheck: 'math.heading', worksheet: 'worksheet.heading' };
const BUILTIN_TOTALS = { recap: 7, pitfall: 4 };

/** A step's words: { where (its place in the lesson), title, text } (pure but for the UI language). */
export function lessonStepWords(lesson, i) {
  const step = lesson.steps[i];
  const where = t('lesson.where', { i: num(i + 1), n: num(lesson.steps.length) });
  if (step.key) {
    return { where, kind: t(`lesson.kind.${step.kind}`, { n: num(step.n), total: num(BUILTIN_TOTALS[step.kind]) }), title: t(`${step.key}.title`), text: t(`${step.key}.text`) };
  }
  return { where, kind: lesson.title ?? '', title: step.title ?? '', text: lessonText(step, uiLanguage()) };
}

/**
 * The card. ctx: { headingId, actions: { startBuiltin(), openFile(file) → Promise<bool>, save({ card, text, title }) → bool,
 *   clearDraft(), draftLink() → { link } | { why } | null } }
 */
export function mount(store, { headingId, actions }) {
  const ids = { file: uid('lfile'), card: uid('lcard'), title: uid('ltitle'), text: uid('ltext'), link: uid('llink'), count: uid('lcount') };
  const startBtn = h('button', { type: 'button', class: 'as-btn as-btn-primary as-lesson-start' }, t('lesson.start'));
  startBtn.addEventListener('click', () => actions.startBuiltin());

  const fileInput = h('input', { type: 'file', id: ids.file, accept: '.json,application/json', class: 'as-lesson-file' });
  const fileError = h('p', { class: 'as-small as-note as-lesson-file-error', role: 'alert' });
  fileInput.addEventListener('change', async () => {
    const f = fileInput.files?.[0];
    if (!f) return;
    await actions.openFile(f);
    fileInput.value = '';
  });

  const cardSelect = h('select', { id: ids.card, class: 'as-select as-lesson-card-select' },
    ...LESSON_CARDS.map((a) => h('option', { value: a }, t(CARD_HEADING[a]))));
  cardSelect.value = 'heat';
  const titleInput = h('input', { type: 'text', id: ids.title, class: 'as-input as-lesson-title-input', maxlength: '120', autocomplete: 'off' });
  const textInput = h('textarea', { id: ids.text, class: 'as-lesson-text-input', rows: '3', maxlength: '600' });
  const saveBtn = h('button', { type: 'button', class: 'as-btn as-lesson-save' }, t('lesson.save'));
  const count = h('p', { class: 'as-small as-lesson-count', id: ids.count, 'aria-live': 'polite' });
  const linkField = h('input', { type: 'text', id: ids.link, class: 'as-input as-lesson-link', readonly: true });
  const linkWhy = h('p', { class: 'as-small as-note' });
  const fileBtn = h('button', { type: 'button', class: 'as-btn as-btn-small as-lesson-download' }, t('lesson.download'));
  const clearBtn = h('button', { type: 'button', class: 'as-btn as-btn-small as-lesson-clear' }, t('lesson.clear'));
  const result = h('div', { class: 'as-lesson-result', hidden: true },
    h('label', { for: ids.link }, t('lesson.linkLabel')), linkField, linkWhy, h('div', { class: 'as-row as-wrap' }, fileBtn, clearBtn));
  saveBtn.addEventListener('click', () => {
    if (!textInput.value.trim()) { count.textContent = t('lesson.needText'); textInput.focus(); return; }
    if (actions.save({ card: cardSelect.value, text: textInput.value, title: titleInput.value })) { textInput.value = ''; titleInput.value = ''; }
  });
  linkField.addEventListener('focus', () => linkField.select());
  fileBtn.addEventListener('click', () => download(new Blob([lessonFile({ title: null, steps: store.get().lessonDraft })], { type: 'application/json' }), 'lesson.json'));
  clearBtn.addEventListener('click', () => { actions.clearDraft(); saveBtn.focus(); });

  const element = h('section', { class: 'as-card as-lesson-card', 'aria-labelledby': headingId },
    h('h2', { id: headingId }, t('lesson.heading')),
    h('p', { class: 'as-small' }, t('lesson.intro')),
    h('div', { class: 'as-row as-wrap' }, startBtn),
    h('p', { class: 'as-small as-muted' }, t('lesson.keys')),
    h('h3', { class: 'as-lesson-sub' }, t('lesson.ownHeading')),
    h('p', { class: 'as-small' }, t('lesson.ownIntro')),
    h('div', { class: 'as-field' }, h('label', { for: ids.file }, t('lesson.fileLabel')), fileInput),
    fileError,
    h('div', { class: 'as-lesson-builder' },
      h('div', { class: 'as-field' }, h('label', { for: ids.card }, t('lesson.cardLabel')), cardSelect),
      h('div', { class: 'as-field' }, h('label', { for: ids.title }, t('lesson.titleLabel')), titleInput),
      h('div', { class: 'as-field' }, h('label', { for: ids.text }, t('lesson.textLabel')), textInput),
      h('div', { class: 'as-row as-wrap' }, saveBtn), count, result));

  let running = false;
  return {
    element,
    update(st, changed) {
      if (changed.has('lessonFileError')) fileError.textContent = st.lessonFileError ?? '';
      if (changed.has('lessonDraft') || changed.has('local')) {
        const n = st.lessonDraft.length;
        count.textContent = n ? t('lesson.saved', { n }) : '';
        result.hidden = !n;
        const made = n ? actions.draftLink() : null;
        linkField.value = made?.link ?? '';
        linkField.hidden = !made?.link;
        linkWhy.textContent = made?.why ?? '';
      }
      // The lesson ended (End, or a link without one): the focus comes back here from the bar.
      if (changed.has('lesson')) {
        if (running && !st.lesson && element.ownerDocument.activeElement === element.ownerDocument.body) startBtn.focus({ preventScroll: true });
        running = !!st.lesson;
      }
    },
  };
}

/** The lesson bar. ctx: { actions: { next(), back(), end() } } */
export function mountBar(store, { actions }) {
  const headingId = uid('lbar');
  const back = h('button', { type: 'button', class: 'as-btn as-lesson-back' }, t('lesson.back'));
  const next = h('button', { type: 'button', class: 'as-btn as-btn-primary as-lesson-next' }, t('lesson.next'));
  const end = h('button', { type: 'button', class: 'as-btn as-btn-small as-lesson-end' }, t('lesson.end'));
  back.addEventListener('click', () => actions.back());
  next.addEventListener('click', () => actions.next());
  end.addEventListener('click', () => actions.end());
  const where = h('span', { class: 'as-lesson-where' });
  const kind = h('span', { class: 'as-lesson-kind' });
  const title = h('strong', { class: 'as-lesson-title' });
  const text = h('p', { class: 'as-lesson-text' });
  const element = h('section', { class: 'as-lesson-bar', 'aria-labelledby': headingId, hidden: true },
    h('h2', { id: headingId, class: 'as-visually-hidden' }, t('lesson.barLabel')),
    h('div', { class: 'as-lesson-words', 'aria-live': 'polite', 'aria-atomic': 'true' },
      h('p', { class: 'as-lesson-head' }, where, kind, title), text),
    h('div', { class: 'as-lesson-nav' }, back, next, end));

  let shown = false;
  return {
    element,
    update(st, changed) {
      if (!changed.has('lesson') && !changed.has('lessonStep') && !changed.has('uiLang')) return;
      const lesson = st.lesson;
      element.hidden = !lesson;
      if (!lesson) { shown = false; return; }
      const i = Math.min(st.lessonStep, lesson.steps.length - 1);
      const w = lessonStepWords(lesson, i);
      element.dataset.step = String(i + 1);
      element.dataset.card = lesson.steps[i].card;
      where.textContent = w.where;
      kind.textContent = w.kind;
      kind.hidden = !w.kind;
      title.textContent = w.title;
      title.hidden = !w.title;
      text.textContent = w.text;
      back.disabled = i === 0;
      next.disabled = i === lesson.steps.length - 1;
      // A lesson just started: the focus on Next (Enter goes on); at the last step, on End.
      const doc = element.ownerDocument;
      if (!shown) { shown = true; if (!element.contains(doc.activeElement)) next.focus({ preventScroll: true }); }
      if (doc.activeElement === next && next.disabled) end.focus({ preventScroll: true });
      if (doc.activeElement === back && back.disabled) next.focus({ preventScroll: true });
    },
  };
}
