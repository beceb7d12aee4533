// models.js - "Compare the models": one row per catalogue model (attention
// kind, weights, download size, parameters, test BLEU, a note, its card)
// and the report's BLEU-by-length figure, inside the page's <details>.

import { h } from '../lib/dom.js';
import { comparisonRows, reportOf } from '../lib/catalog.js';

/**
 * Fills `container` (a <details>) for catalogue `cat`. modelsUrl(file): the
 * address of a file beside models/index.json; withFiles: whether such files
 * exist (the single-file build carries no cards and no report).
 */
export function renderComparison(container, cat, { modelsUrl, withFiles }) {
  const rows = comparisonRows(cat);
  const cols = [['Model', 'label'], ['Attention', 'attention'], ['Weights', 'weights'], ['Download', 'size'], ['Parameters', 'parameters'], ['Test BLEU', 'bleu']];
  const hasNotes = rows.some((r) => r.note);
  const hasCards = withFiles && rows.some((r) => r.card);
  const report = withFiles ? reportOf(cat) : null;
  container.replaceChildren(
    h('summary', null, rows.length === 1 ? 'About this site’s model: attention, size, BLEU' : `Compare the ${rows.length} models: attention, size, BLEU`),
    h('div', { class: 'as-table-wrap' },
      h('table', { class: 'as-table as-models-table' },
        h('caption', null, 'The models this site offers. BLEU: corpus BLEU on held-out test sentences (higher is better; the toy test models have none).'),
        h('thead', null, h('tr', null, cols.map(([name]) => h('th', { scope: 'col' }, name)),
          hasNotes ? h('th', { scope: 'col' }, 'Note') : null, hasCards ? h('th', { scope: 'col' }, 'Card') : null)),
        h('tbody', null, rows.map((r) => h('tr', { dataset: { model: r.id } },
          h('th', { scope: 'row' }, r.label, r.isDefault ? h('span', { class: 'as-muted' }, ' (default)') : null),
          cols.slice(1).map(([, k]) => h('td', null, r[k])),
          hasNotes ? h('td', { class: 'as-note-cell' }, r.note) : null,
          hasCards ? h('td', null, r.card ? h('a', { href: modelsUrl(r.card), 'aria-label': `Model card of ${r.label} (text)` }, 'card') : '—') : null))))),
    report ? h('figure', { class: 'as-report-figure' },
      h('img', { src: modelsUrl(report.figure), alt: 'Test BLEU by source sentence length for each attention kind and the no-attention baseline, trained for the same number of updates (details in the model report).', loading: 'lazy', width: 700, height: 400 }),
      h('figcaption', null, 'Bahdanau et al. 2015, Figure 2, on this site’s data: BLEU by source length, equal training budget. ',
        report.caption ? `${report.caption} ` : '',
        h('a', { href: modelsUrl(report.text) }, 'The model report (tables, intervals, caveats)'), '.')) : null);
}
