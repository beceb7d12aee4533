// animation.js - the step-through as a film for slides: one frame per
// decoder step, each with the heatmap (that step's row marked), the ribbons
// at that step, and a caption (the sentence, the model, the scale, the step).
// Two encodings:
//   GIF   gifenc (MIT, web/vendor/gifenc.js, copied from node_modules by
//         web/tools/vendor.mjs), loaded only when asked for; one palette of
//         256 colours per frame;
//   WebM  the canvas's captureStream() recorded by MediaRecorder, in real
//         time: each frame is held RIBBONS.frameMs, so a 10-step sentence
//         takes 11 s to record.
// The frames are painted on canvas (a canvas that has drawn an SVG image
// records nothing), one at a time (never all held at once); between frames
// the page gets a turn, and onProgress(done, total) says how far it got.

import { CONFIG } from '../config.js';
import { paint } from './heatmap.js';
import { layoutHeatmap, fontsFor } from './heatmap-layout.js';
import { exportLayout, paintRibbons, measureAt } from './ribbons.js';
import { wrapLines } from '../lib/ribbons.js';
import { RIBBONS } from '../theme.js';
import { t as tr } from '../i18n/index.js';

const nextTurn = () => new Promise((r) => setTimeout(r, 0));
const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/**
 * The film's painter for matrix m: { width, height, frames, paintFrame(ctx, i) }.
 * Frame i shows row i. caption(i) -> lines of text under the figures.
 * colors: the theme's (theme.js); colour: the heatmap's colour mode.
 */
export function filmOf(m, { colors, colour = 'absolute', caption = () => [] }) {
  const measure = measureAt();
  const labelFont = fontsFor().label;
  const mctx = document.createElement('canvas').getContext('2d');
  mctx.font = labelFont;
  // The ribbons set the width (every word legible), within the frame's bounds; the heatmap fits it.
  const probe = exportLayout(m, measure);
  const avail = Math.min(RIBBONS.frameMaxWidth, Math.max(RIBBONS.frameMinWidth, probe.width));
  const HL = layoutHeatmap(m, (s) => mctx.measureText(s).width, avail, { cellMax: CONFIG.cellMax });
  const width = Math.max(avail, HL.width, probe.width);
  const X = exportLayout(m, measure, { width });
  const capPx = RIBBONS.captionPx;
  const lineH = Math.round(capPx * 1.45);
  const pad = RIBBONS.pad * 2;
  // The caption's height is the tallest frame's, so every frame has one size.
  const lines = Array.from({ length: m.T }, (_, i) => caption(i).flatMap((c) => wrapLines(c, (s) => measure(s, capPx), width - 2 * pad)));
  const capH = Math.max(...lines.map((l) => l.length)) * lineH;
  const ribbonsY = HL.height;
  const height = ribbonsY + X.height + capH + pad;
  return {
    width, height, frames: m.T,
    async paintFrame(ctx, i) {
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.fillStyle = colors.bg;
      ctx.fillRect(0, 0, width, height);
      ctx.save();
      ctx.translate(Math.floor((width - HL.width) / 2), 0);
      paint(ctx, m, HL, colors, { background: true, marked: i, colour });
      ctx.restore();
      paintRibbons(ctx, m, i, X, { colors, y: ribbonsY });
      ctx.font = `${capPx}px ${CONFIG.labelFamily}`;
      ctx.fillStyle = colors.muted;
      ctx.textAlign = 'left';
      ctx.textBaseline = 'alphabetic';
      lines[i].forEach((line, k) => ctx.fillText(line, pad, ribbonsY + X.height + (k + 0.8) * lineH));
    },
  };
}

function canvasFor(film) {
  const c = document.createElement('canvas');
  c.width = film.width;
  c.height = film.height;
  return c;
}

/** The film as an animated GIF (looping). Resolves with a Blob of type image/gif. */
export async function filmGIF(film, { onProgress = () => {}, frameMs = RIBBONS.frameMs } = {}) {
  let lib;
  try {
    lib = await import('../vendor/gifenc.js');
  } catch (err) {
    throw new Error(tr('ribbons.gifMissing', { why: err.message }));
  }
  const { GIFEncoder, quantize, applyPalette } = lib;
  const c = canvasFor(film);
  const ctx = c.getContext('2d', { willReadFrequently: true });
  const gif = GIFEncoder();
  for (let i = 0; i < film.frames; i++) {
    await film.paintFrame(ctx, i);
    const { data } = ctx.getImageData(0, 0, film.width, film.height);
    const palette = quantize(data, 256);
    gif.writeFrame(applyPalette(data, palette), film.width, film.height, { palette, delay: frameMs, repeat: 0 });
    onProgress(i + 1, film.frames);
    await nextTurn();
  }
  gif.finish();
  return new Blob([gif.bytes()], { type: 'image/gif' });
}

/** The WebM type this browser records, or null (no MediaRecorder, no canvas capture, no VP8/VP9). */
export function webmType() {
  if (typeof MediaRecorder !== 'function' || typeof HTMLCanvasElement === 'undefined' || !HTMLCanvasElement.prototype.captureStream) return null;
  return ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm'].find((m) => MediaRecorder.isTypeSupported(m)) ?? null;
}

/** The film as WebM, recorded in real time (frameMs a frame). Resolves with a Blob of type video/webm. */
export async function filmWebM(film, { onProgress = () => {}, frameMs = RIBBONS.frameMs } = {}) {
  const mimeType = webmType();
  if (!mimeType) throw new Error(tr('ribbons.noWebm'));
  // The recorded canvas gets each frame whole, copied from one painted off screen:
  // a frame being painted is never captured half-done.
  const shown = canvasFor(film);
  const off = canvasFor(film);
  const shownCtx = shown.getContext('2d');
  const offCtx = off.getContext('2d');
  const stream = shown.captureStream(0);
  const [track] = stream.getVideoTracks();
  const recorder = new MediaRecorder(stream, { mimeType, videoBitsPerSecond: 4_000_000 });
  const chunks = [];
  recorder.addEventListener('dataavailable', (e) => { if (e.data.size) chunks.push(e.data); });
  const stopped = new Promise((resolve, reject) => {
    recorder.addEventListener('stop', resolve);
    recorder.addEventListener('error', (e) => reject(e.error ?? new Error(tr('ribbons.recordFailed'))));
  });
  try {
    await film.paintFrame(offCtx, 0);
    recorder.start();
    const t0 = performance.now();
    for (let i = 0; i < film.frames; i++) {
      await sleep(t0 + i * frameMs - performance.now());
      shownCtx.drawImage(off, 0, 0);
      track.requestFrame();
      onProgress(i + 1, film.frames);
      if (i + 1 < film.frames) await film.paintFrame(offCtx, i + 1);
    }
    // The last frame is held as long as the others.
    await sleep(t0 + film.frames * frameMs - performance.now());
    shownCtx.drawImage(off, 0, 0);
    track.requestFrame();
    await nextTurn();
  } finally {
    if (recorder.state !== 'inactive') recorder.stop();
    track.stop();
  }
  await stopped;
  return new Blob(chunks, { type: 'video/webm' });
}
