// embed-protocol.js - how embed.html tells the page around its iframe how
// tall its content is, so that the iframe never scrolls inside itself.
// Version 1 (README, "An iframe"):
//
//   iframe → parent, with postMessage(message, '*') whenever the height changes:
//   { type: 'alignscope:height', version: 1, origin: <the iframe's location.origin>, height: <CSS px, integer> }
//
// The height is not secret, hence '*'. The parent must check event.origin
// (the browser's word for who sent it) against the alignscope site it
// embeds, that the message's origin says the same, that event.source is that
// iframe's window, and that the height is a sane number; web/embed-resize.js
// is that check, and the README's snippet is a copy of it (tested).
// A later version that changes the fields gets a new number; parents
// ignore versions they do not know.

export const HEIGHT_MESSAGE = Object.freeze({ type: 'alignscope:height', version: 1 });
export const MAX_EMBED_HEIGHT = 20000; // the snippet's sanity bound, CSS px

/** The message for a content height in CSS px. */
export function heightMessage(height, origin = location.origin) {
  return { ...HEIGHT_MESSAGE, origin, height: Math.ceil(height) };
}

/**
 * Post the document's height to the parent whenever it changes (a
 * ResizeObserver on <html>). Returns a function that stops it.
 */
export function postContentHeight(win = window) {
  if (win.parent === win) return () => {};
  const root = win.document.documentElement;
  let last = -1;
  const post = () => {
    const height = Math.ceil(root.getBoundingClientRect().height);
    if (height === last) return;
    last = height;
    win.parent.postMessage(heightMessage(height, win.location.origin), '*');
  };
  const ro = new ResizeObserver(post);
  ro.observe(root);
  post();
  return () => ro.disconnect();
}
