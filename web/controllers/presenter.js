// presenter.js - presenter mode: the figure full screen in large type, for a
// projector at the back of a classroom. A button and the P key turn it on
// and off (Escape leaves it too). Where full screen is refused (an iframe
// without allowfullscreen, some browsers), the widget fills the window.

/** @returns { toggle(on?), destroy() } */
export function createPresenter(store, { element }) {
  let fullscreen = false;
  const fsElement = () => element.getRootNode().fullscreenElement ?? document.fullscreenElement ?? null;

  function toggle(on = !store.get().presenter) {
    if (on === store.get().presenter) return;
    store.set({ presenter: on });
    if (on && element.requestFullscreen && !fsElement()) {
      element.requestFullscreen().then(() => { fullscreen = true; }, () => { fullscreen = false; });
    } else if (!on && fullscreen && fsElement()) {
      fullscreen = false;
      document.exitFullscreen?.().catch(() => {});
    }
  }
  // Leaving full screen (Escape, the browser's own control) leaves presenter mode.
  const onChange = () => {
    if (fullscreen && !fsElement()) { fullscreen = false; store.set({ presenter: false }); }
  };
  document.addEventListener('fullscreenchange', onChange);
  return {
    toggle,
    destroy() { document.removeEventListener('fullscreenchange', onChange); },
  };
}
