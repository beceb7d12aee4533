// heatmap-fit.test.mjs - the first-screen fit of the main heatmap
// (web/views/heatmap-fit.js): wherever some cell size lets the whole map end
// inside the room under its top, the fitted map does, for rooms of any
// fraction of a pixel (the room is the window less the box's top in the
// document, which is rarely whole). Presenter mode (fitWhole, down to its
// cellMin) and the page's first screen (down to its floor) alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstScreenFit } from '../../web/views/heatmap-fit.js';
import { layoutHeatmap, firstScreenFloor } from '../../web/views/heatmap-layout.js';
import { CONFIG } from '../../web/config.js';

// The default model's 15-word example of the page's list ("On Sundays we usually visit my
// grandparents, who live in a village near the river."), its words and its translation's.
const vm = {
  colLabels: 'On Sundays we usually visit my grandparents , who live in a village near the river .'.split(' '),
  rowLabels: 'Sur Super , nous avons habituellement les visages visuels , qui vivent dans un village près de la rivière . </s>'.split(' '),
};
// Text about as wide as a sans-serif's at labelPx: 0.55 em a character.
const measureAt = (labelPx) => (s) => Array.from(s).length * 0.55 * labelPx;

function sweep({ labelPx, cellMax, cellMin, fitWhole, avail, boxFit, from, to }) {
  const measure = measureAt(labelPx);
  const opts = { labelPx, cellMax, cellMin, fitWhole, screenMin: CONFIG.firstScreenCellMin };
  const whole = layoutHeatmap(vm, measure, avail, { labelPx, cellMax, cellMin, availHeight: boxFit });
  const floor = fitWhole ? cellMin : firstScreenFloor(cellMin, whole.fitted, false, CONFIG.firstScreenShrinkLast, CONFIG.firstScreenCellMin);
  // The smallest map the fit may draw: at its floor.
  const least = layoutHeatmap(vm, measure, avail, { labelPx, cellMax, cellMin: floor, availHeight: 1 });
  let checked = 0;
  for (let room = from; room <= to; room += 0.07) {
    if (least.height > room || whole.height <= room) continue;
    const fit = firstScreenFit(vm, measure, avail, boxFit, room, opts);
    const L = layoutHeatmap(vm, measure, avail, { labelPx, cellMax, ...fit });
    assert.ok(L.height <= room, `room ${room.toFixed(2)} px: the map is ${L.height} px (cells ${L.cell} px, fit ${JSON.stringify(fit)})`);
    checked += 1;
  }
  return checked;
}

test('presenter mode at 1920 × 1080: a 21-row map ends inside any room it can fit, fractional rooms too (it was drawn whole-box, 300 px past the screen)', () => {
  const n = sweep({ labelPx: CONFIG.labelPxPresenter, cellMax: CONFIG.cellMaxPresenter, cellMin: CONFIG.cellMinPresenter, fitWhole: true, avail: 1092, boxFit: 1080 - CONFIG.heatBoxReservePresenterPx, from: 400, to: 960 });
  assert.ok(n > 1000, `${n} rooms checked`);
});

test('presenter mode at 1280 × 720 and the first screen at 1366 × 900: the same', () => {
  const a = sweep({ labelPx: 16, cellMax: CONFIG.cellMaxPresenter, cellMin: CONFIG.cellMinPresenter, fitWhole: true, avail: 700, boxFit: 720 - CONFIG.heatBoxReservePresenterPx, from: 250, to: 610 });
  const b = sweep({ labelPx: CONFIG.labelPx, cellMax: CONFIG.cellMax, cellMin: CONFIG.cellMin, fitWhole: false, avail: 703, boxFit: 900 - CONFIG.heatBoxReservePx, from: 300, to: 800 });
  assert.ok(a > 500 && b > 100, `${a} and ${b} rooms checked`);
});
