// offline.js - the offline card (full view of a served page): how many
// models this browser keeps for offline use, and "Make all models available
// offline" with its progress and, when it fails, why (controllers/offline.js).

import { h } from '../lib/dom.js';
import { formatBytes } from '../client.js';

/** ctx: { headingId, actions: { makeAllAvailable() } } */
export function mount(store, { headingId, actions }) {
  const button = h('button', { type: 'button', class: 'as-btn as-offline-all' }, 'Make all models available offline');
  const bar = h('progress', { class: 'as-offline-progress', max: '1', hidden: true });
  const status = h('p', { class: 'as-small as-offline-status', role: 'status', 'aria-live': 'polite' });
  const element = h('section', { class: 'as-card as-offline-card', 'aria-labelledby': headingId },
    h('h2', { id: headingId, class: 'as-card-title' }, 'Offline'),
    h('p', { class: 'as-small as-muted' }, 'After one visit this page works without a network: the page, the engine and every model you opened stay in this browser. To take the others along too (for a classroom without Wi-Fi), store them all now.'),
    h('div', { class: 'as-toolbar' }, button), bar, status);
  button.addEventListener('click', () => actions.makeAllAvailable());

  return {
    element,
    update(st, changed) {
      if (!changed.has('offline') && !changed.has('catalog')) return;
      const o = st.offline ?? {};
      if (o.supported === false) {
        button.hidden = true;
        status.textContent = 'This copy cannot keep models for offline use: the browser allows that only for pages served over https (or from localhost). Opened from a file, dist/alignscope-standalone.html holds the default model.';
        return;
      }
      button.hidden = false;
      button.disabled = !!o.busy;
      bar.hidden = !o.busy;
      if (o.busy && o.size) { bar.max = o.size; bar.value = Math.min(o.size, o.loaded ?? 0); }
      const total = st.catalog?.models.length ?? 0;
      const size = st.catalog?.models.reduce((n, m) => n + (m.bytes || 0), 0) ?? 0;
      status.dataset.error = o.error ? 'true' : 'false';
      status.textContent = o.message ?? (o.stored != null ? `${o.stored} of ${total} models are available offline (all of them: ${formatBytes(size)}).` : '');
    },
  };
}
