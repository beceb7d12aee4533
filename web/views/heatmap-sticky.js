// heatmap-sticky.js - the heatmap's label strips that stay in view while a
// long sentence makes the map scroll: three small canvases stuck to the top
// and left edges of the scroll box (the source words, the target words, the
// corner) that repaint just the labels over the cells, and a › at the right
// edge while more of the map lies that way (touch screens hide scroll bars,
// and the entropy column is last). Which strips show is decided from the
// layout and the scroll box's size and scroll position as last observed (a
// ResizeObserver and the scroll event report them), never by reading
// layout in a frame.

import { sizeCanvas } from './heatmap-paint.js';

/** → { update(L, box) → changed, moreRight(L, box), paint(labels, L, dpr, bg), top, left, scrollTop, scrollLeft } */
export function createSticky({ colHead, rowHead, corner, moreRight, scroller }) {
  const s = {
    top: false,   // the source words' strip shows (the map scrolls down)
    left: false,  // the target words' strip shows (the map scrolls right)
    scrollTop: 0,
    scrollLeft: 0,
    /** Decide the strips for layout L in a box of client size { w, h }: true when that changed. */
    update(L, box) {
      if (!L || !box) return false;
      const top = L.height > box.h + 1;
      const left = L.width > box.w + 1;
      const changed = top !== s.top || left !== s.left;
      s.top = top;
      s.left = left;
      colHead.hidden = !top;
      rowHead.hidden = !left;
      corner.hidden = !(top && left);
      s.moreRight(L, box);
      return changed;
    },
    moreRight(L, box) {
      const more = !scroller.hidden && s.left && !!L && !!box && s.scrollLeft + box.w < L.width - 2;
      if (moreRight.hidden === more) moreRight.hidden = !more;
    },
    /** Copy the labels layer's edges onto the strips, on an opaque background. */
    paint(labels, L, dpr, bg) {
      const strip = (c, w, hgt) => {
        const x = sizeCanvas(c, w, hgt, dpr, { device: true });
        x.fillStyle = bg;
        x.fillRect(0, 0, c.width, c.height);
        x.drawImage(labels, 0, 0, c.width, c.height, 0, 0, c.width, c.height);
      };
      if (s.top) strip(colHead, L.width, L.gridY);
      if (s.left) strip(rowHead, L.gridX, L.height);
      if (s.top && s.left) strip(corner, L.gridX, L.gridY);
    },
  };
  return s;
}
