// presenter.js - presenter mode: the figure full screen in large type, for a
// projector at the back of a classroom. A button and the P key turn it on
// and off; Escape leaves it. Where full screen is refused (an iframe
// without allowfullscreen, some browsers), the widget fills the window.
//
// Escape in full screen is the browser's own: it leaves full screen without
// a keydown reaching the page. So presenter mode follows `fullscreenchange`:
// whenever the widget stops being the full-screen element (Escape, the
// browser's own control, F11, another element taking it), presenter mode
// ends too. Outside full screen, ui.js's keydown handler takes Escape.

/** @returns { toggle(on?), destroy() } */
export function createPresenter(store, { element }) {
  let fullscreen = false; // the widget is (or was asked to become) the full-screen element
  const doc = () => element.ownerDocument ?? document;
  const fsElement = () => element.getRootNode().fullscreenElement ?? doc().fullscreenElement ?? null;

  function toggle(on = !store.get().presenter) {
    if (on === store.get().presenter) return;
    store.set({ presenter: on });
    if (on && element.requestFullscreen && !fsElement()) {
      element.requestFullscreen().catch(() => { fullscreen = false; });
    } else if (!on && fullscreen && fsElement()) {
      fullscreen = false;
      doc().exitFullscreen?.().catch(() => {});
    }
  }
  // Entering full screen marks it; leaving it, by whatever means, leaves presenter mode.
  const onChange = () => {
    const mine = fsElement() === element || element.contains(fsElement());
    if (mine) { fullscreen = true; return; }
    if (fullscreen) { fullscreen = false; if (store.get().presenter) store.set({ presenter: false }); }
  };
  doc().addEventListener('fullscreenchange', onChange);
  return {
    toggle,
    /** For tests: what a fullscreenchange now would do (the same handler). */
    onFullscreenChange: onChange,
    destroy() { doc().removeEventListener('fullscreenchange', onChange); },
  };
}
