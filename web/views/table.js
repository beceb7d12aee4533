// table.js - the attention matrix as a real table, for screen readers and
// for anyone who prefers numbers to colours. A new matrix of the same shape
// and words (the slider, a re-decode) rewrites only the numbers.

import { h } from '../lib/dom.js';
import { fmt } from '../lib/math.js';

export function render(container, { captionId } = {}) {
  const wrap = h('div', { class: 'as-table-wrap' });
  container.append(wrap);
  let marked = -1;     // the row marked in the table
  let wanted = -1;     // the row to mark (kept while there is no table)
  let body = null;
  let caption = null;
  let cells = [];      // cells[t][j] (td), entropy cell last
  let shapeKey = '';
  const keyOf = (vm) => JSON.stringify([vm.rowLabels, vm.colLabels]);
  const captionText = (vm) => `Attention weights α for “${vm.trace?.text ?? vm.colLabels.join(' ')}” → “${vm.trace?.translation ?? ''}”: each row is one target ${vm.level === 'pieces' ? 'piece' : 'word'} and sums to 1 over the ${vm.S} source ${vm.level === 'pieces' ? 'pieces' : 'words'}.`;

  function build(vm) {
    caption = h('caption', { id: captionId }, captionText(vm));
    const headRow = h('tr', null, h('th', { scope: 'col' }, 'target ↓ / source →'), vm.colLabels.map((w) => h('th', { scope: 'col' }, w)), h('th', { scope: 'col' }, 'entropy (bits)'));
    body = h('tbody');
    cells = [];
    for (let t = 0; t < vm.T; t++) {
      const row = [];
      for (let j = 0; j <= vm.S; j++) row.push(h('td'));
      cells.push(row);
      body.append(h('tr', { dataset: { row: String(t) } }, h('th', { scope: 'row' }, vm.rowLabels[t]), row));
    }
    wrap.replaceChildren(h('table', { class: 'as-table as-matrix' }, caption, h('thead', null, headRow), body));
  }

  return {
    update(vm) {
      if (!vm || vm.message || !vm.alpha) {
        wrap.replaceChildren();
        body = null;
        shapeKey = '';
        return;
      }
      const key = keyOf(vm);
      if (key !== shapeKey) { build(vm); shapeKey = key; marked = -1; }
      else caption.textContent = captionText(vm);
      for (let t = 0; t < vm.T; t++) {
        const row = cells[t];
        for (let j = 0; j < vm.S; j++) row[j].textContent = fmt(vm.alpha[t * vm.S + j]);
        row[vm.S].textContent = fmt(vm.entropies[t], 2);
      }
      mark();
    },
    setMarkedRow(t) {
      wanted = t;
      mark();
    },
  };

  function mark() {
    if (!body || wanted === marked) return;
    body.rows[marked]?.removeAttribute('aria-current');
    body.rows[wanted]?.setAttribute('aria-current', 'step');
    marked = wanted;
  }
}
