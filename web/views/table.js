// table.js - the attention matrix as a real table, for screen readers and
// for anyone who prefers numbers to colours.

import { h } from '../lib/dom.js';
import { fmt } from '../lib/math.js';

export function render(container, { captionId } = {}) {
  const wrap = h('div', { class: 'as-table-wrap' });
  container.append(wrap);
  let marked = -1;
  let body = null;
  return {
    update(vm) {
      wrap.replaceChildren();
      body = null;
      if (!vm || vm.message) return;
      const caption = h('caption', { id: captionId }, `Attention weights α for “${vm.trace?.text ?? vm.colLabels.join(' ')}” → “${vm.trace?.translation ?? ''}”: each row is one target word and sums to 1 over the ${vm.S} source words.`);
      const headRow = h('tr', null, h('th', { scope: 'col' }, 'target ↓ / source →'), vm.colLabels.map((w) => h('th', { scope: 'col' }, w)), h('th', { scope: 'col' }, 'entropy (bits)'));
      body = h('tbody');
      for (let t = 0; t < vm.T; t++) {
        const cells = [];
        for (let j = 0; j < vm.S; j++) cells.push(h('td', null, fmt(vm.alpha[t * vm.S + j])));
        body.append(h('tr', { dataset: { row: String(t) } }, h('th', { scope: 'row' }, vm.rowLabels[t]), cells, h('td', null, fmt(vm.entropies[t], 2))));
      }
      wrap.append(h('table', { class: 'as-table as-matrix' }, caption, h('thead', null, headRow), body));
      this.setMarkedRow(marked);
    },
    setMarkedRow(t) {
      marked = t;
      if (!body) return;
      for (const tr of body.rows) {
        if (Number(tr.dataset.row) === t) tr.setAttribute('aria-current', 'step');
        else tr.removeAttribute('aria-current');
      }
    },
  };
}
