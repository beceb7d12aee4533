// presenter.js - presenter mode: the figure full screen in large type, for a
// projector at the back of a classroom. A button and the P key turn it on
// and off (Escape leaves it too). Where full screen is refused (an iframe
// without allowfullscreen, some browsers), the widget fills the window.

/**
 * keyTarget: where P and Escape are heard: the widget's element, or the
 * document for the page that is this widget alone (app.js), so the keys work
 * with the focus anywhere on it. Not while typing in a field.
 * @returns { toggle(on?), destroy() }
 */
export function createPresenter(store, { element, keyTarget = element }) {
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
  const onKey = (e) => {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    const t = e.composedPath?.()[0] ?? e.target;
    if (t instanceof HTMLElement && (t.isContentEditable || /^(TEXTAREA|INPUT|SELECT)$/.test(t.tagName))) return;
    if (e.key === 'p' || e.key === 'P') { toggle(); e.preventDefault(); }
    else if (e.key === 'Escape' && store.get().presenter) { toggle(false); e.preventDefault(); }
  };
  keyTarget.addEventListener('keydown', onKey);
  return {
    toggle,
    destroy() { document.removeEventListener('fullscreenchange', onChange); keyTarget.removeEventListener('keydown', onKey); },
  };
}
