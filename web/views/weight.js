// weight.js - one source word's weight α drawn as the step-through's finger
// draws it (cards/steps.js) and the quiz's reveal does (cards/quiz.js): a
// bar as tall as α, its value, and a chip in the heatmap's colour.

import { viridis, rgb, textOn } from '../lib/colormap.js';
import { fmt } from '../lib/math.js';

/** parts: { bar, val, chip } elements; a: the weight in [0, 1]. */
export function paintWeight({ bar, val, chip }, a) {
  const colour = viridis(a);
  bar.style.height = `${Math.max(1, a * 100)}%`;
  val.textContent = fmt(a, 2);
  chip.style.backgroundColor = rgb(colour);
  chip.style.color = textOn(colour);
}
