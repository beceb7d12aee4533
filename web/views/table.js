// table.js - the attention matrix as a real table, for screen readers and
// for anyone who prefers numbers to colours. New source words build a new
// table, at once; a re-decode of the same words (the slider) rewrites the
// numbers and the target words in place, adding or removing rows at the end.

import { h } from '../lib/dom.js';
import { fmt } from '../lib/math.js';

/**
 * frame: the widget's frameQueue (lib/frame.js); in-place updates wait for
 * it. (While the table is not shown, alignscope.css keeps it off screen
 * with content-visibility: auto: rewriting its numbers then costs no layout.)
 */
export function render(container, { captionId, frame = null } = {}) {
  const wrap = h('div', { class: 'as-table-wrap' });
  container.append(wrap);
  let marked = -1;     // the row marked in the table
  let wanted = -1;     // the row to mark (kept while there is no table)
  let body = null;
  let caption = null;
  let rows = [];       // per target row: { tr, th, cells: td[S + 1] } (entropy last)
  let colKey = '';
  const captionText = (vm) => `Attention weights α for “${vm.trace?.text ?? vm.colLabels.join(' ')}” → “${vm.trace?.translation ?? ''}”: each row is one target ${vm.level === 'pieces' ? 'piece' : 'word'} and sums to 1 over the ${vm.S} source ${vm.level === 'pieces' ? 'pieces' : 'words'}.`;

  function newRow(S, t) {
    const cells = Array.from({ length: S + 1 }, () => h('td'));
    const th = h('th', { scope: 'row' });
    return { tr: h('tr', { dataset: { row: String(t) } }, th, cells), th, cells };
  }

  function build(vm) {
    caption = h('caption', { id: captionId });
    const headRow = h('tr', null, h('th', { scope: 'col' }, 'target ↓ / source →'), vm.colLabels.map((w) => h('th', { scope: 'col' }, w)), h('th', { scope: 'col' }, 'entropy (bits)'));
    body = h('tbody');
    rows = [];
    wrap.replaceChildren(h('table', { class: 'as-table as-matrix' }, caption, h('thead', null, headRow), body));
    marked = -1;
  }

  function fill(vm) {
    caption.textContent = captionText(vm);
    while (rows.length > vm.T) { rows.pop().tr.remove(); if (marked >= rows.length) marked = -1; }
    while (rows.length < vm.T) { const r = newRow(vm.S, rows.length); rows.push(r); body.append(r.tr); }
    for (let t = 0; t < vm.T; t++) {
      const r = rows[t];
      if (r.th.textContent !== vm.rowLabels[t]) r.th.textContent = vm.rowLabels[t];
      for (let j = 0; j < vm.S; j++) r.cells[j].textContent = fmt(vm.alpha[t * vm.S + j]);
      r.cells[vm.S].textContent = fmt(vm.entropies[t], 2);
    }
    mark();
  }

  function mark() {
    if (!body || wanted === marked) return;
    rows[marked]?.tr.removeAttribute('aria-current');
    rows[wanted]?.tr.setAttribute('aria-current', 'step');
    marked = rows[wanted] ? wanted : -1;
  }

  return {
    update(vm) {
      frame?.drop('table');
      if (!vm || vm.message || !vm.alpha) {
        wrap.replaceChildren();
        body = null;
        rows = [];
        colKey = '';
        return;
      }
      const key = JSON.stringify(vm.colLabels);
      if (key !== colKey) { build(vm); colKey = key; fill(vm); return; }
      if (frame) frame.add('table', () => fill(vm));
      else fill(vm);
    },
    setMarkedRow(t) {
      wanted = t;
      mark();
    },
  };
}
