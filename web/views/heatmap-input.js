// heatmap-input.js - what the reader does to the heatmap: hover a cell or a
// word (its row or column highlighted, its value read out), click or tap to
// pick a cell or a row (the step), two fingers or Ctrl + wheel to zoom, and
// the keyboard (arrows move a cursor, Enter picks, + − 0 zoom).

import { CONFIG } from '../config.js';
import { hitTest } from './heatmap-layout.js';

/**
 * s: the view's state, read and written here: { vm, L, opts: { zoom }, hover, active, marked, sticky }.
 * on: { draw(), readout(cur), tapped(cur|null) (a finger's tap on a cell, or anything else), pick(t, j|null), zoom(z) }.
 */
export function attachInput({ canvas, scroller }, s, on) {
  let pointerAt = -1e9; // time of the last pointerdown: a focus that follows it is the pointer's
  /** Pointer position in heatmap coordinates; over a stuck label strip, the label's. */
  function pointAt(e) {
    const r = canvas.getBoundingClientRect();
    let x = e.clientX - r.left;
    let y = e.clientY - r.top;
    const sr = scroller.getBoundingClientRect();
    if (s.sticky.top && scroller.scrollTop > 0 && e.clientY - sr.top < s.L.gridY) y = e.clientY - sr.top;
    if (s.sticky.left && scroller.scrollLeft > 0 && e.clientX - sr.left < s.L.gridX) x = e.clientX - sr.left;
    return [x, y];
  }

  // Two pointers on the map: pinch to zoom (one pointer scrolls as usual).
  const pointers = new Map();
  let pinch = null;
  const spread = () => { const [a, b] = [...pointers.values()]; return Math.hypot(a.x - b.x, a.y - b.y); };
  scroller.addEventListener('pointerdown', (e) => {
    pointerAt = performance.now();
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (pointers.size === 2) pinch = { d0: spread(), z0: s.opts.zoom };
  });
  scroller.addEventListener('pointermove', (e) => {
    if (!pointers.has(e.pointerId)) return;
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (pinch && pointers.size === 2 && pinch.d0 > 0) on.zoom(pinch.z0 * (spread() / pinch.d0));
  });
  const lift = (e) => { pointers.delete(e.pointerId); if (pointers.size < 2) pinch = null; };
  scroller.addEventListener('pointerup', lift);
  scroller.addEventListener('pointercancel', lift);
  scroller.addEventListener('wheel', (e) => {
    if (!e.ctrlKey || !s.vm) return;
    e.preventDefault();
    on.zoom(s.opts.zoom * (e.deltaY < 0 ? CONFIG.zoomStep : 1 / CONFIG.zoomStep));
  }, { passive: false });

  canvas.addEventListener('pointermove', (e) => {
    if (!s.L || e.pointerType === 'touch') return;
    const hit = hitTest(s.L, ...pointAt(e));
    if (JSON.stringify(hit) !== JSON.stringify(s.hover)) {
      s.hover = hit;
      canvas.style.cursor = hit && (hit.kind === 'cell' || hit.kind === 'row') ? 'pointer' : 'default';
      on.draw();
      on.readout(s.hover || s.active);
    }
  });
  canvas.addEventListener('pointerleave', () => { if (!s.hover) return; s.hover = null; on.draw(); on.readout(s.active); });
  // A click or a tap selects what is under it: a cell (its value in the
  // readout, the step view to its row) or a row label (the step).
  canvas.addEventListener('click', (e) => {
    if (!s.L || pinch) return;
    const hit = hitTest(s.L, ...pointAt(e));
    if (!hit || hit.t == null) return;
    if (hit.kind === 'cell') s.active = { kind: 'cell', t: hit.t, j: hit.j, picked: true };
    // A finger hides the cell it taps: its value, large, above it.
    on.tapped?.(e.pointerType === 'touch' && hit.kind === 'cell' ? s.active : null);
    on.draw();
    on.readout(hit.kind === 'cell' ? s.active : hit);
    on.pick(hit.t, hit.kind === 'cell' ? hit.j : null);
  });
  canvas.addEventListener('focus', () => {
    // Focus from the keyboard starts the cursor on the current step's row;
    // focus that a click or a tap brings leaves the choice to that click.
    if (performance.now() - pointerAt < 800) return;
    if (!s.active && s.vm) s.active = { kind: 'cell', t: Math.max(0, s.marked), j: 0 };
    on.draw();
    on.readout(s.active);
  });
  canvas.addEventListener('blur', () => on.draw());
  canvas.addEventListener('keydown', (e) => {
    if (!s.vm) return;
    // + and − zoom, 0 fits (as the buttons do).
    const zoomKeys = { '+': CONFIG.zoomStep, '=': CONFIG.zoomStep, '-': 1 / CONFIG.zoomStep, '0': 0 };
    if (e.key in zoomKeys && !e.ctrlKey && !e.metaKey && !e.altKey) {
      on.zoom(zoomKeys[e.key] ? s.opts.zoom * zoomKeys[e.key] : 1);
      e.preventDefault();
      return;
    }
    if (!s.active) return;
    const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0], Home: [0, -1e9], End: [0, 1e9] };
    if (moves[e.key]) {
      on.tapped?.(null);
      const [dt, dj] = moves[e.key];
      s.active = { kind: 'cell', t: Math.min(s.vm.T - 1, Math.max(0, s.active.t + dt)), j: Math.min(s.vm.S - 1, Math.max(0, s.active.j + dj)) };
      e.preventDefault();
      e.stopPropagation();
      on.draw();
      on.readout(s.active);
      scrollCellIntoView(s.active);
    } else if (e.key === 'Enter') {
      on.pick(s.active.t, s.active.j);
      e.preventDefault();
    }
  });

  // The stuck label strips cover gridX px on the left and gridY px on top.
  // (A key press, not a frame: reading the scroll box here forces nothing a frame would not.)
  function scrollCellIntoView({ t, j }) {
    const L = s.L;
    if (!L) return;
    const x = L.gridX + j * L.cell;
    const y = L.gridY + t * L.cell;
    if (x < scroller.scrollLeft + L.gridX) scroller.scrollLeft = Math.max(0, x - L.gridX);
    else if (x + L.cell > scroller.scrollLeft + scroller.clientWidth) scroller.scrollLeft = x + L.cell - scroller.clientWidth + 8;
    if (y + L.cell > scroller.scrollTop + scroller.clientHeight) scroller.scrollTop = y + L.cell - scroller.clientHeight + 8;
    else if (y < scroller.scrollTop + L.gridY) scroller.scrollTop = Math.max(0, y - L.gridY);
  }
}
