// heatmap-fit.js - the first-screen fit of the page's main heatmap. Pure:
// the room under the fold is measured by the view (views/heatmap.js) before
// a frame writes anything, and handed in here.

import { CONFIG } from '../config.js';
import { layoutHeatmap, firstScreenFloor } from './heatmap-layout.js';

/**
 * The box is as tall as the window less `reserve`: scrolled to, the whole
 * map is in view. But a map that starts on the first screen and nearly fits
 * under it (a short sentence on a laptop: 5 rows of 64 px reach 50 px below
 * a 768 px window) is shrunk to end above the fold, so the figure is whole
 * on opening, with the score-scale control in the card's header beside it
 * (a 12-word sentence at 1366 × 900), down to the floor heatmap-layout.js
 * firstScreenFloor sets (fitWhole, presenter mode: as far as cellMin); a
 * longer map keeps its cells and scrolls (screenMin: the floor's least, a
 * phone's smaller). `room`: the window's height less the scroll box's top in the
 * document (not the scroll position, so the cells do not change as the page
 * scrolls) less the margin to leave under the map (the view's marginPx, default
 * CONFIG.firstScreenMarginPx).
 * → { availHeight, cellMin }: the height to fit the cells to and the smallest cell (px).
 */
export function firstScreenFit(vm, measure, avail, boxFit, room, { labelPx, cellMax, cellMin: floor, fitWhole = false, screenMin = CONFIG.firstScreenCellMin }) {
  const boxOnly = { availHeight: boxFit, cellMin: floor };
  if (!(room > 0)) return boxOnly;
  const fitOpts = { labelPx, cellMax };
  const whole = layoutHeatmap(vm, measure, avail, { ...fitOpts, ...boxOnly });
  if (whole.height <= room) return boxOnly; // already above the fold
  // The first floor, then the last one (none in presenter mode: its floor is cellMin itself).
  const ratios = fitWhole ? [undefined] : [CONFIG.firstScreenShrinkMin, CONFIG.firstScreenShrinkLast];
  for (const ratio of ratios) {
    // Cells too small to shrink: the floor must not exceed the width's fit.
    const cellMin = firstScreenFloor(floor, whole.fitted, fitWhole, ratio, screenMin);
    if (cellMin === null) return boxOnly;
    // The slanted labels' height is estimated before the cell is known: fit, then take off what the
    // estimate missed. Cells are whole pixels, so take it off a whole pixel a row at a time: a map
    // 0.6 px over a room of 653.4 px got the same cells from 652.8 px, and was given up on.
    let availHeight = room;
    for (let tries = 0; tries < 3; tries += 1) {
      const shrunk = layoutHeatmap(vm, measure, avail, { ...fitOpts, availHeight, cellMin });
      if (shrunk.height <= room) return { availHeight, cellMin };
      availHeight -= shrunk.T * Math.ceil((shrunk.height - room) / shrunk.T);
    }
  }
  return boxOnly;
}
