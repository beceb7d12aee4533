// share.js - the sharing controller: the shareable state as a link (the
// URL hash), kept in the address bar when the widget owns the page, and
// applied back when the hash changes (a pasted link, the back button).

import { serializeShareState, parseShareString, noticePatch } from '../state.js';
import { t } from '../i18n/index.js';

const SHARED = ['sentence', 'model', 'scale', 'step', 'local', 'pieces', 'colour', 'compare', 'uiLang', 'pin', 'beam', 'beamLp', 'quiz', 'mathD', 'mathKeys', 'mathSeed', 'sheet', 'lesson', 'lessonStep', 'winD'];

/** Why there is no link while a model file from the reader's disk is in use. */
export const shareWhyText = (st) => t('share.why', { name: st.local.name });

/** Why the single-file page, opened from a disk, has no link to give (its shareBase is ''). */
export const noHostedCopyText = () => t('share.noHosted');

/**
 * @param opts { syncUrl, shareBase ('' = no hosted copy to link to), apply(patch) — how a parsed hash is applied (the widget's setState) }
 * @returns { link(extra?), linkOrWhy(extra?), linkTo(hash), copy() → Promise<{ link, copied }|null>, destroy() }
 */
export function createShare(store, { syncUrl, shareBase, apply }) {
  let urlTimer = null;
  // extra: shareable values that differ from the page's (the quiz card's link to a quiz not yet started).
  const link = (extra = null) => `${shareBase.split('#')[0]}#${serializeShareState(extra ? { ...store.get(), ...extra } : store.get())}`;

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
    /** A link (with `extra` shareable values: the quiz card's link to a quiz not yet started), or why there can be none: { link } | { why }. */
    linkOrWhy(extra = null) {
      const st = store.get();
      if (st.local) return { why: shareWhyText(st) };
      if (!shareBase) return { why: noHostedCopyText() };
      return { link: link(extra) };
    },
    /** A link to the page with this hash alone (a teacher's lesson path), or why there can be none: { link } | { why }. */
    linkTo(hash) {
      return shareBase ? { link: `${shareBase.split('#')[0]}#${hash}` } : { why: noHostedCopyText() };
    },
    /** "Copy link": the link into the store (shown in a field) and onto the clipboard, or why not. */
    async copy() {
      const st = store.get();
      if (st.local) { store.set(noticePatch(st, 'share', shareWhyText(st))); return null; }
      if (!shareBase) { store.set(noticePatch(st, 'share', noHostedCopyText())); return null; }
      const l = link();
      store.set({ ...noticePatch(st, 'share', null), link: l });
      let copied = false;
      try { await navigator.clipboard.writeText(l); copied = true; } catch { /* file:// or no permission: the field is selectable */ }
      return { link: l, copied };
    },
    destroy() { unsubscribe(); clearTimeout(urlTimer); if (syncUrl) removeEventListener('hashchange', onHashChange); },
  };
}
