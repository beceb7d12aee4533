// table.js - the attention matrix as a real table, for screen readers and
// for anyone who prefers numbers to colours. New source words build a new
// table, at once; a re-decode of the same words (the slider) updates it in
// place: the same cells, and only those whose text changed are written
// (each cell's last text is kept here, so nothing is read back from the
// DOM), rows added or removed at the end. Numbers go through one cached
// formatter (lib/math.js fixedFormatter), not an Intl call each.

import { h } from '../lib/dom.js';
import { fixedFormatter } from '../lib/math.js';
import { t as tr } from '../i18n/index.js';

/**
 * frame: the widget's render scheduler (lib/scheduler.js); in-place updates wait for
 * it. (While the table is not shown, alignscope.css keeps it off screen
 * with content-visibility: auto: rewriting its numbers then costs no layout.)
 */
export function render(container, { captionId, frame = null } = {}) {
  // A table wider than its box scrolls, and the keyboard must reach it to
  // scroll it (axe: scrollable-region-focusable): a Tab stop while it is
  // shown (setShown(true)). While it sits off screen for screen readers only,
  // tabindex -1, or Chromium makes the scroller an invisible Tab stop that
  // scrolls the page.
  const wrap = h('div', { class: 'as-table-wrap', tabindex: '-1', role: 'region', 'aria-labelledby': captionId });
  // The marked row in words: a screen reader hears the step move (the row's
  // aria-current alone is only read when the reader is on that row).
  const live = h('p', { class: 'as-visually-hidden as-table-live', role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true' });
  container.append(wrap, live);
  let lastVm = null;
  let marked = -1;     // the row marked in the table
  let wanted = -1;     // the row to mark (kept while there is no table)
  let body = null;
  let caption = null;
  let rows = [];       // per target row: { tr, th, cells: Text[S + 1] (entropy last), texts: string[S + 1] }
  const f3 = fixedFormatter(3);
  const f2 = fixedFormatter(2);
  let colKey = '';
  const captionText = (vm) => tr(vm.level === 'pieces' ? 'table.captionPieces' : 'table.caption', { source: vm.trace?.text ?? vm.colLabels.join(' '), translation: vm.trace?.translation ?? '', S: vm.S });

  function newRow(S, t) {
    // Each cell holds one text node whose data is rewritten (no node is replaced).
    const cells = Array.from({ length: S + 1 }, () => document.createTextNode(''));
    const th = h('th', { scope: 'row' });
    return { tr: h('tr', { dataset: { row: String(t) } }, th, cells.map((c) => h('td', null, c))), th, cells, texts: new Array(S + 1).fill('') };
  }
  const put = (r, j, text) => { if (r.texts[j] !== text) { r.texts[j] = text; r.cells[j].data = text; } };

  function build(vm) {
    caption = h('caption', { id: captionId });
    const headRow = h('tr', null, h('th', { scope: 'col' }, tr('table.corner')), vm.colLabels.map((w) => h('th', { scope: 'col' }, w)), h('th', { scope: 'col' }, tr('table.entropy')));
    body = h('tbody');
    rows = [];
    wrap.replaceChildren(h('table', { class: 'as-table as-matrix' }, caption, h('thead', null, headRow), body));
    marked = -1;
  }

  function fill(vm) {
    lastVm = vm;
    const cap = captionText(vm);
    if (caption.textContent !== cap) caption.textContent = cap;
    while (rows.length > vm.T) { rows.pop().tr.remove(); if (marked >= rows.length) marked = -1; }
    while (rows.length < vm.T) { const r = newRow(vm.S, rows.length); rows.push(r); body.append(r.tr); }
    for (let t = 0; t < vm.T; t++) {
      const r = rows[t];
      if (r.th.textContent !== vm.rowLabels[t]) r.th.textContent = vm.rowLabels[t];
      for (let j = 0; j < vm.S; j++) put(r, j, f3(vm.alpha[t * vm.S + j]));
      put(r, vm.S, f2(vm.entropies[t]));
    }
    mark();
  }

  function mark() {
    if (!body || wanted === marked) return;
    rows[marked]?.tr.removeAttribute('aria-current');
    rows[wanted]?.tr.setAttribute('aria-current', 'step');
    marked = rows[wanted] ? wanted : -1;
    live.textContent = marked >= 0 && lastVm ? tr('table.current', { t: marked + 1, of: lastVm.T, row: lastVm.rowLabels[marked] }) : '';
  }

  return {
    update(vm) {
      frame?.drop('table');
      if (!vm || vm.message || !vm.alpha) {
        wrap.replaceChildren();
        live.textContent = '';
        lastVm = null;
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
    setShown(on) { wrap.tabIndex = on ? 0 : -1; },
    setMarkedRow(t) {
      wanted = t;
      mark();
    },
  };
}
