// heatmap-readout.js - the heatmap's readout line in words: what the cell,
// row or column under the pointer (or the keyboard cursor) holds. Pure.

import { t as tr, num } from '../i18n/index.js';
import { fmt } from '../lib/math.js';
import { colourValue } from '../theme.js';

/**
 * vm: the matrix shown ({ alpha, T, S, rowLabels, colLabels, entropies, rowMax, difference? });
 * cur: { kind: 'cell'|'row'|'col', t?, j? } or null; colour: 'absolute'|'row'.
 */
export function describe(vm, cur, colour) {
  if (!vm || !cur) return '\u00a0';
  if (vm.difference) return describeDifference(vm, cur);
  if (vm.erasure) return describeErasure(vm, cur);
  const { t, j } = cur;
  if (cur.kind === 'row' || (t != null && j == null)) {
    const row = Array.from(vm.alpha.subarray(t * vm.S, (t + 1) * vm.S));
    const best = row.indexOf(Math.max(...row));
    return tr('heat.readRow', { t: num(t + 1), row: vm.rowLabels[t], col: vm.colLabels[best], a: fmt(row[best]), h: fmt(vm.entropies[t], 2) });
  }
  if (cur.kind === 'col') {
    let best = 0;
    for (let tt = 1; tt < vm.T; tt++) if (vm.alpha[tt * vm.S + j] > vm.alpha[best * vm.S + j]) best = tt;
    return tr('heat.readCol', { j: num(j + 1), col: vm.colLabels[j], row: vm.rowLabels[best], a: fmt(vm.alpha[best * vm.S + j]) });
  }
  const a = vm.alpha[t * vm.S + j];
  const rel = colour === 'row' ? tr('heat.readCellRel', { r: fmt(colourValue(a, vm.rowMax[t], 'row'), 2) }) : '';
  return tr('heat.readCell', { row: vm.rowLabels[t], col: vm.colLabels[j], a: fmt(a), rel, t: num(t + 1), j: num(j + 1) });
}

// A difference map (lib/compare.js): cells are α_A − α_B, the side column ½ Σ |α_A − α_B|.
function describeDifference(vm, cur) {
  const { t, j } = cur;
  const signed = (x) => `${x > 0 ? '+' : x < 0 ? '−' : ''}${fmt(Math.abs(x))}`;
  if (cur.kind === 'row' || (t != null && j == null)) {
    const row = Array.from(vm.alpha.subarray(t * vm.S, (t + 1) * vm.S));
    const best = row.reduce((b, x, k) => (Math.abs(x) > Math.abs(row[b]) ? k : b), 0);
    return tr('heat.diffReadRow', { t: num(t + 1), row: vm.rowLabels[t], col: vm.colLabels[best], d: signed(row[best]), tv: fmt(vm.entropies[t], 2) });
  }
  if (cur.kind === 'col') {
    let best = 0;
    for (let tt = 1; tt < vm.T; tt++) if (Math.abs(vm.alpha[tt * vm.S + j]) > Math.abs(vm.alpha[best * vm.S + j])) best = tt;
    return tr('heat.diffReadCol', { j: num(j + 1), col: vm.colLabels[j], row: vm.rowLabels[best], d: signed(vm.alpha[best * vm.S + j]) });
  }
  return tr('heat.diffReadCell', { row: vm.rowLabels[t], col: vm.colLabels[j], d: signed(vm.alpha[t * vm.S + j]), t: num(t + 1), j: num(j + 1) });
}

// An erasure map (cards/erasure.js): cells are the drop in log p (nats) when the column is removed, the side column the row's ρ.
const nats = (x) => (Number.isFinite(x) ? `${x > 0 ? '+' : x < 0 ? '−' : ''}${fmt(Math.abs(x), 2)}` : tr('erasure.notErasable'));
function describeErasure(vm, cur) {
  const { t, j } = cur;
  const at = (tt, jj) => vm.alpha[tt * vm.S + jj];
  const better = (x, y) => Number.isFinite(x) && (!Number.isFinite(y) || x > y);
  if (cur.kind === 'row' || (t != null && j == null)) {
    let best = 0;
    for (let k = 1; k < vm.S; k++) if (better(at(t, k), at(t, best))) best = k;
    return tr('erasure.readRow', { t: num(t + 1), row: vm.rowLabels[t], col: vm.colLabels[best], d: nats(at(t, best)), rho: Number.isFinite(vm.entropies[t]) ? fmt(vm.entropies[t], 2) : '—' });
  }
  if (cur.kind === 'col') {
    let best = 0;
    for (let tt = 1; tt < vm.T; tt++) if (better(at(tt, j), at(best, j))) best = tt;
    return tr('erasure.readCol', { j: num(j + 1), col: vm.colLabels[j], row: vm.rowLabels[best], d: nats(at(best, j)) });
  }
  return tr('erasure.readCell', { row: vm.rowLabels[t], col: vm.colLabels[j], d: nats(at(t, j)), t: num(t + 1), j: num(j + 1) });
}

/** A cell's number alone, as its map means it (α, α_A − α_B, or the drop in nats): the tap bubble's. */
export function cellValue(vm, t, j) {
  const x = vm.alpha[t * vm.S + j];
  if (vm.difference) return `${x > 0 ? '+' : x < 0 ? '−' : ''}${fmt(Math.abs(x))}`;
  if (vm.erasure) return nats(x);
  return fmt(x);
}

/** The canvas's accessible name: what the figure is, in one line. */
export function canvasLabel(vm, colour) {
  if (vm.difference) return tr('heat.diffCanvasLabel', { T: num(vm.T), S: num(vm.S) });
  if (vm.erasure) return tr('erasure.canvasLabel', { T: num(vm.T), S: num(vm.S), m: fmt(vm.erasure.scale, 2) });
  return tr('heat.canvasLabel', { T: num(vm.T), S: num(vm.S), row: colour === 'row' ? tr('heat.canvasRow') : '' });
}
