// model.js - the model card: the picker (what each model is: attention
// kind, size, BLEU, weights), the line that describes the chosen one, "Open
// a model file…" (and the overlay while a file is dragged over the page),
// and "Compare the models": one row per catalogue model (attention kind,
// weights, download size, parameters, test BLEU, a note, its card) with the
// report's BLEU-by-length figure. Loading is the model controller's
// (controllers/models.js); this card shows it and asks for it.

import { h } from '../lib/dom.js';
import { comparisonRows, reportOf, reportFigureText, optionText, describeEntry, describeLocal } from '../lib/catalog.js';
import { formatBytes } from '../client.js';
import { LOCAL } from '../controllers/models.js';
import { t } from '../i18n/index.js';

/**
 * ctx: { ids: { model, modelInfo, fileHint }, headingId, localFiles, full (the comparison),
 *        modelsUrl(file), withFiles, actions: { pick(id), openFile(file) } }
 */
export function mount(store, { ids, headingId, localFiles, full, modelsUrl, withFiles, actions }) {
  const select = h('select', { id: ids.model, class: 'as-select', 'aria-describedby': ids.modelInfo });
  // What the chosen model is: attention kind, size, weights, BLEU (or, for a
  // file from disk, its name and what the engine read from it). Announced
  // when it changes, so a screen reader hears which model is now in use.
  const info = h('p', { id: ids.modelInfo, class: 'as-model-info as-small', 'aria-live': 'polite' });
  const comparison = full ? h('details', { class: 'as-models as-small' }) : null;
  // The file control: a real button (focus, Enter/Space, a screen reader's
  // name) that opens the system's file chooser of a hidden file input.
  const fileInput = localFiles ? h('input', { type: 'file', class: 'as-file-input', accept: '.alsc', hidden: true }) : null;
  const openBtn = localFiles ? h('button', { type: 'button', class: 'as-btn as-open-file', 'aria-describedby': ids.fileHint }, t('model.open')) : null;
  const fileHint = localFiles ? h('span', { id: ids.fileHint, class: 'as-small as-muted as-file-hint' }, t('model.openHint')) : null;
  const drop = localFiles ? h('div', { class: 'as-drop', hidden: true, 'aria-hidden': 'true' }, h('p', null, t('model.drop'))) : null;
  const element = h('section', { class: 'as-card as-model-card', 'aria-labelledby': headingId },
    h('h2', { id: headingId, class: 'as-visually-hidden' }, t('model.heading')),
    h('div', { class: 'as-field as-model-field' }, h('label', { for: ids.model }, t('model.label')),
      h('div', { class: 'as-model-row' }, select, openBtn, fileInput),
      info, fileHint),
    comparison, drop);

  select.addEventListener('change', () => actions.pick(select.value));
  if (localFiles) {
    openBtn.addEventListener('click', () => fileInput.click());
    fileInput.addEventListener('change', () => {
      const file = fileInput.files?.[0];
      fileInput.value = ''; // choosing the same file again is a new choice
      actions.openFile(file);
    });
  }

  let localOption = null;
  function fill(cat) {
    select.replaceChildren(...cat.models.map((m) => h('option', { value: m.id }, optionText(m))), localOption ?? []);
    if (comparison) renderComparison(comparison, cat, { modelsUrl, withFiles });
  }
  function setLocalOption(local) {
    localOption = h('optgroup', { label: t('model.fromDevice') },
      h('option', { value: LOCAL }, t('model.yourFileOption', { name: local.name, attention: local.info.attention === 'none' ? t('attention.noneShort') : local.info.attention?.replace('_', ' '), size: formatBytes(local.size) })));
    select.querySelector('optgroup')?.remove();
    select.append(localOption);
  }

  return {
    element,
    update(st, changed) {
      if (changed.has('catalog') && st.catalog) fill(st.catalog);
      if (changed.has('localFile') && st.localFile) setLocalOption(st.localFile);
      if (['model', 'local', 'catalog', 'pickerRev', 'localFile'].some((k) => changed.has(k)) && st.catalog && st.status !== 'checking') {
        const want = st.local ? LOCAL : st.model;
        if (select.value !== want) select.value = want;
        select.title = select.selectedOptions[0]?.textContent ?? '';
      }
      if (['info', 'local', 'model', 'catalog'].some((k) => changed.has(k))) {
        const entry = st.catalog?.models.find((m) => m.id === st.model);
        info.textContent = st.local ? describeLocal(st.local, st.info) : entry ? describeEntry(entry) : '';
        info.dataset.attention = st.info?.attention ?? entry?.attention ?? '';
      }
      if (drop && changed.has('dragging')) drop.hidden = !st.dragging;
    },
  };
}

/**
 * Fills `container` (a <details>) for catalogue `cat`. modelsUrl(file): the
 * address of a file beside models/index.json; withFiles: whether such files
 * exist (the single-file build carries no cards and no report).
 */
function renderComparison(container, cat, { modelsUrl, withFiles }) {
  const rows = comparisonRows(cat);
  const cols = ['label', 'attention', 'weights', 'size', 'parameters', 'updates', 'time', 'bleu', 'teacher'].map((k) => [t(`models.col.${k}`), k]);
  const hasNotes = rows.some((r) => r.note);
  const hasCards = withFiles && rows.some((r) => r.card);
  const report = withFiles ? reportOf(cat) : null;
  const figure = report ? reportFigureText(report) : null;
  container.replaceChildren(
    h('summary', null, rows.length === 1 ? t('models.aboutOne') : t('models.compare', { n: rows.length })),
    h('div', { class: 'as-table-wrap', tabindex: '0', role: 'region', 'aria-label': t('models.region') },
      h('table', { class: 'as-table as-models-table' },
        h('caption', null, t('models.caption')),
        h('thead', null, h('tr', null, cols.map(([name]) => h('th', { scope: 'col' }, name)),
          hasNotes ? h('th', { scope: 'col' }, t('models.col.note')) : null, hasCards ? h('th', { scope: 'col' }, t('models.col.card')) : null)),
        h('tbody', null, rows.map((r) => h('tr', { dataset: { model: r.id } },
          h('th', { scope: 'row' }, r.label, r.isDefault ? h('span', { class: 'as-muted' }, t('models.default')) : null),
          cols.slice(1).map(([, k]) => h('td', null, r[k])),
          hasNotes ? h('td', { class: 'as-note-cell' }, r.note) : null,
          hasCards ? h('td', null, r.card ? h('a', { href: modelsUrl(r.card), 'aria-label': t('models.cardLabel', { name: r.label }) }, t('models.card')) : '—') : null))))),
    report ? h('figure', { class: 'as-report-figure' },
      h('img', { src: modelsUrl(report.figure), alt: figure.alt, loading: 'lazy', width: 700, height: 400 }),
      h('figcaption', null, `${figure.caption} `,
        report.caption ? `${report.caption} ` : '',
        h('a', { href: modelsUrl(report.text) }, t('models.report')), '.')) : null);
}
