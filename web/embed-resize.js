// embed-resize.js - for the page AROUND an alignscope iframe (embed.html):
// sets each iframe's height to the content height it reports, so it never
// scrolls inside itself. Protocol: web/lib/embed-protocol.js (version 1).
//
//   <script src="https://YOUR.SITE/alignscope/embed-resize.js"></script>
//
// It trusts only messages from the origin it was itself loaded from (the
// alignscope site), sent by one of the page's iframes, in the version-1
// shape with a sane height; everything else is ignored. The README's inline
// snippet is the block below, word for word (tests/web/embed-protocol.test.mjs).
'use strict';
{
  const ALIGNSCOPE_ORIGIN = new URL(document.currentScript.src).origin;
  // --- snippet ---
  addEventListener('message', (event) => {
    const m = event.data;
    const frame = [...document.querySelectorAll('iframe')].find((f) => f.contentWindow === event.source);
    if (event.origin !== ALIGNSCOPE_ORIGIN || !frame || !m || m.type !== 'alignscope:height' || m.version !== 1) return;
    if (m.origin !== event.origin || !Number.isInteger(m.height) || m.height < 1 || m.height > 20000) return;
    frame.style.height = `${m.height}px`;
  });
  // --- end of snippet ---
}
