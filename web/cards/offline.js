// offline.js - the offline card (full view of a served page): how many
// models this browser keeps for offline use, and "Make all models available
// offline" with its progress and, when it fails, why (controllers/offline.js).

import { h } from '../lib/dom.js';
import { formatBytes } from '../client.js';
import { t, num } from '../i18n/index.js';

/** ctx: { headingId, actions: { makeAllAvailable() } } */
export function mount(store, { headingId, actions }) {
  const button = h('button', { type: 'button', class: 'as-btn as-offline-all' }, t('offline.button'));
  const bar = h('progress', { class: 'as-offline-progress', max: '1', hidden: true });
  const status = h('p', { class: 'as-small as-offline-status', role: 'status', 'aria-live': 'polite' });
  const element = h('section', { class: 'as-card as-offline-card', 'aria-labelledby': headingId },
    h('h2', { id: headingId, class: 'as-card-title' }, t('offline.heading')),
    h('p', { class: 'as-small as-muted' }, t('offline.intro')),
    h('div', { class: 'as-toolbar' }, button), bar, status);
  button.addEventListener('click', () => actions.makeAllAvailable());

  return {
    element,
    update(st, changed) {
      if (!changed.has('offline') && !changed.has('catalog')) return;
      const o = st.offline ?? {};
      if (o.supported === false) {
        button.hidden = true;
        status.textContent = t('offline.unsupported');
        return;
      }
      button.hidden = false;
      button.disabled = !!o.busy;
      bar.hidden = !o.busy;
      if (o.busy && o.size) { bar.max = o.size; bar.value = Math.min(o.size, o.loaded ?? 0); }
      const total = st.catalog?.models.length ?? 0;
      const size = st.catalog?.models.reduce((n, m) => n + (m.bytes || 0), 0) ?? 0;
      status.dataset.error = o.error ? 'true' : 'false';
      status.textContent = o.message ?? (o.stored != null ? t('offline.count', { stored: num(o.stored), n: total, size: formatBytes(size) }) : '');
    },
  };
}
