// table.js - the attention matrix as a real table, for screen readers and
// for anyone who prefers numbers to colours. A new matrix of the same shape
// and words (the slider, a re-decode) rewrites only the numbers.

import { h } from '../lib/dom.js';
import { fmt } from '../lib/math.js';

/**
 * frame: the widget's frameQueue (lib/frame.js); numbers of a same-shape
 * matrix wait for it. isShown(): whether the table is on screen; while it
 * is not (it is then only read by screen readers), new numbers of the same
 * words wait until the slider has been still for SETTLE_MS: a table of a
 * thousand cells laid out on every tick of a drag costs a frame.
 */
const SETTLE_MS = 150;
export function render(container, { captionId, frame = null, isShown = () => true } = {}) {
  const wrap = h('div', { class: 'as-table-wrap' });
  container.append(wrap);
  let marked = -1;     // the row marked in the table
  let wanted = -1;     // the row to mark (kept while there is no table)
  let body = null;
  let caption = null;
  let cells = [];      // cells[t][j] (td), entropy cell last
  let shapeKey = '';
  let settleTimer = null;
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
        frame?.drop('table');
        clearTimeout(settleTimer);
        wrap.replaceChildren();
        body = null;
        shapeKey = '';
        return;
      }
      const key = keyOf(vm);
      const fill = () => {
        caption.textContent = captionText(vm);
        for (let t = 0; t < vm.T; t++) {
          const row = cells[t];
          for (let j = 0; j < vm.S; j++) row[j].textContent = fmt(vm.alpha[t * vm.S + j]);
          row[vm.S].textContent = fmt(vm.entropies[t], 2);
        }
      };
      clearTimeout(settleTimer);
      if (key !== shapeKey) {
        // New words: a new table, now. The same words (the slider): new numbers, in the next frame.
        frame?.drop('table');
        build(vm);
        shapeKey = key;
        marked = -1;
        fill();
        mark();
      } else if (!isShown()) settleTimer = setTimeout(fill, SETTLE_MS);
      else if (frame) frame.add('table', fill);
      else fill();
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
