#!/usr/bin/env node
// icons.mjs - the app icons (gen/icon-192.png, gen/icon-512.png) drawn
// here: a 4 × 4 attention heatmap whose bright cells run down the
// diagonal, as a monotone alignment does, on the page's dark background.
// PNG written by hand (zlib deflate + CRC-32), so no image library is needed.

import { writeIfChanged } from './write-if-changed.mjs';
import path from 'node:path';
import zlib from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

// α of the drawn heatmap: rows = target words, columns = source words.
const ALPHA = [[0.86, 0.08, 0.04, 0.02], [0.1, 0.72, 0.14, 0.04], [0.04, 0.2, 0.66, 0.1], [0.02, 0.04, 0.12, 0.82]];
const BG = [15, 18, 22];
const LOW = [32, 44, 64];
const HIGH = [255, 196, 64];

/** The icon as an RGB PNG of size × size pixels. */
export function iconPng(size) {
  const margin = Math.round(size * 0.14); // inside the maskable safe zone
  const gap = Math.max(2, Math.round(size * 0.02));
  const cell = Math.floor((size - 2 * margin - 3 * gap) / 4);
  const raw = Buffer.alloc(size * (1 + size * 3));
  for (let y = 0; y < size; y++) {
    raw[y * (1 + size * 3)] = 0; // filter: none
    for (let x = 0; x < size; x++) {
      let c = BG;
      const cx = x - margin; const cy = y - margin;
      const col = Math.floor(cx / (cell + gap)); const row = Math.floor(cy / (cell + gap));
      if (cx >= 0 && cy >= 0 && col < 4 && row < 4 && cx % (cell + gap) < cell && cy % (cell + gap) < cell) {
        const a = ALPHA[row][col];
        c = LOW.map((l, i) => Math.round(l + (HIGH[i] - l) * a));
      }
      raw.set(c, y * (1 + size * 3) + 1 + x * 3);
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0); ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; ihdr[9] = 2; // 8-bit RGB
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** ROOT/gen/icon-192.png and icon-512.png (the manifest's icons). */
export function writeIcons(root) {
  for (const size of [192, 512]) writeIfChanged(path.join(root, 'gen', `icon-${size}.png`), iconPng(size));
}
