// presenter.js - presenter mode: the figure full screen in large type, for a
// projector at the back of a classroom. A button and the P key turn it on
// and off; Escape leaves it. Where full screen is refused (an iframe
// without allowfullscreen, some browsers), the widget fills the window.
//
// Escape in full screen is the browser's own: it leaves full screen without
// a keydown reaching the page. So presenter mode follows `fullscreenchange`:
// whenever the widget stops being the full-screen element (Escape, the
// browser's own control, F11, another element taking it), presenter mode
// ends too. Outside full screen the keydown handler below takes Escape:
// from a text field too, and with the focus anywhere on the document.

/**
 * keyTarget: where P and Escape are heard: the widget's element, or the
 * document for the page that is this widget alone (app.js), so the keys work
 * with the focus anywhere on it. P not while typing in a field; Escape from
 * anywhere while presenter mode is on.
 * @returns { toggle(on?), destroy() }
 */
export function createPresenter(store, { element, keyTarget = element }) {
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
  const onKey = (e) => {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'Escape' && store.get().presenter) { toggle(false); e.preventDefault(); return; }
    const t = e.composedPath?.()[0] ?? e.target;
    if (t instanceof HTMLElement && (t.isContentEditable || /^(TEXTAREA|INPUT|SELECT)$/.test(t.tagName))) return;
    if (e.key === 'p' || e.key === 'P') { toggle(); e.preventDefault(); }
  };
  keyTarget.addEventListener('keydown', onKey);
  // Escape with the focus outside the widget (nothing focused: the body) while it covers the screen.
  const outside = (e) => !(keyTarget.contains?.(e.target instanceof Node ? e.target : null));
  const onDocKey = (e) => { if (e.key === 'Escape' && store.get().presenter && outside(e)) onKey(e); };
  if (keyTarget !== doc()) doc().addEventListener('keydown', onDocKey);
  return {
    toggle,
    destroy() {
      doc().removeEventListener('fullscreenchange', onChange);
      keyTarget.removeEventListener('keydown', onKey);
      doc().removeEventListener('keydown', onDocKey);
    },
  };
}
