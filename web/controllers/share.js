// share.js - the sharing controller: the shareable state as a link (the
// URL hash), kept in the address bar when the widget owns the page, and
// applied back when the hash changes (a pasted link, the back button).

import { serializeShareState, parseShareString, noticePatch } from '../state.js';

const SHARED = ['sentence', 'model', 'scale', 'step', 'local', 'pieces', 'colour', 'compare'];

/** Why there is no link while a model file from the reader's disk is in use. */
export const shareWhyText = (st) => `Links cannot carry a model file from your device: anyone opening a link would see a model from this site’s list, not “${st.local.name}”. “Copy link” is off while it is in use; pick a model from the list to share a link.`;

/** Why the single-file page, opened from a disk, has no link to give (its shareBase is ''). */
export const noHostedCopyText = 'This page was opened from a file on this device, so a link to it would open only here. A link needs a hosted copy: put dist/ on a web server (a course site, GitHub Pages) and copy the link there, or have this file rebuilt with that address (ALIGNSCOPE_SHARE_BASE=https://… ./build.sh dist); its links then open the same view there.';

/**
 * @param opts { syncUrl, shareBase ('' = no hosted copy to link to), apply(patch) — how a parsed hash is applied (the widget's setState) }
 * @returns { link(), copy() → Promise<{ link, copied }|null>, destroy() }
 */
export function createShare(store, { syncUrl, shareBase, apply }) {
  let urlTimer = null;
  const link = () => `${shareBase.split('#')[0]}#${serializeShareState(store.get())}`;

  const unsubscribe = store.subscribe((st, changed) => {
    if (syncUrl && SHARED.some((k) => changed.has(k))) {
      clearTimeout(urlTimer);
      urlTimer = setTimeout(() => {
        const hash = `#${serializeShareState(store.get())}`;
        if (location.hash !== hash) history.replaceState(null, '', hash);
      }, 150);
    }
    if (st.link != null && SHARED.some((k) => changed.has(k))) store.set({ link: st.local ? null : link() });
  });
  const onHashChange = () => apply(parseShareString(location.hash));
  if (syncUrl) addEventListener('hashchange', onHashChange);

  return {
    link,
    /** "Copy link": the link into the store (shown in a field) and onto the clipboard, or why not. */
    async copy() {
      const st = store.get();
      if (st.local) { store.set(noticePatch(st, 'share', shareWhyText(st))); return null; }
      if (!shareBase) { store.set(noticePatch(st, 'share', noHostedCopyText)); return null; }
      const l = link();
      store.set({ ...noticePatch(st, 'share', null), link: l });
      let copied = false;
      try { await navigator.clipboard.writeText(l); copied = true; } catch { /* file:// or no permission: the field is selectable */ }
      return { link: l, copied };
    },
    destroy() { unsubscribe(); clearTimeout(urlTimer); if (syncUrl) removeEventListener('hashchange', onHashChange); },
  };
}
