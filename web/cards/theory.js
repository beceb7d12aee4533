// theory.js - the teaching card: the formulas (the loaded model's kind
// highlighted), the query/key/value reading, and the pitfalls every student meets.

import { h } from '../lib/dom.js';
import { formula } from '../lib/formula.js';
import { t, tParts } from '../i18n/index.js';

const KINDS = [
  { kind: 'additive', score: 'e_{tj} = v_a^{⊤} tanh(W_a s_{t−1} + U_a h_j)' },
  { kind: 'dot', score: 'e_{tj} = s_{t−1}^{⊤} h_j' },
  { kind: 'general', score: 'e_{tj} = s_{t−1}^{⊤} W h_j' },
  { kind: 'scaled_dot', score: 'e_{tj} = s_{t−1}^{⊤} h_j ÷ √d' },
];

export function mount(store, { headingId }) {
  const container = h('div');
  const element = h('section', { class: 'as-card as-theory-card', 'aria-labelledby': headingId },
    h('h2', { id: headingId }, t('theory.heading')), container);
  const cards = KINDS.map((k) => {
    const badge = h('span', { class: 'as-badge', hidden: true }, t('theory.thisModel'));
    const el = h('li', { class: 'as-kind', dataset: { kind: k.kind } },
      h('div', { class: 'as-kind-head' }, h('strong', null, t(`theory.kind.${k.kind}`)), badge),
      formula(k.score),
      h('p', { class: 'as-small as-muted' }, t(`theory.kind.${k.kind}.note`)));
    return { ...k, el, badge };
  });
  const noneNote = h('p', { class: 'as-note', hidden: true },
    t('theory.none'));

  container.append(
    h('div', { class: 'as-theory-grid' },
      h('section', null,
        h('h3', null, t('theory.scores')),
        h('p', null, t('theory.scoresText')),
        h('ol', { class: 'as-kinds' }, cards.map((c) => c.el)),
        h('p', { class: 'as-formula-line' }, formula('α_{tj} = exp(e_{tj}) ÷ Σ_k exp(e_{tk})'), h('span', { class: 'as-muted as-small' }, `   ${t('theory.softmaxNote')}`)),
        h('p', { class: 'as-formula-line' }, formula('c_t = Σ_j α_{tj} h_j'), h('span', { class: 'as-muted as-small' }, `   ${t('theory.contextNote')}`)),
        noneNote),
      h('section', null,
        h('h3', null, t('theory.dict')),
        h('p', null, ...tParts('theory.dictText', {
          query: h('strong', null, t('theory.query')), key: h('strong', null, t('theory.key')), values: h('strong', null, t('theory.values')),
          s: h('span', null, 's', h('sub', null, 't−1')), h: h('span', null, 'h', h('sub', null, 'j')),
        })),
        h('p', null, t('theory.hard')),
        h('h3', null, t('theory.why')),
        h('p', null, t('theory.whyText'))),
      h('section', { class: 'as-pitfalls' },
        h('h3', null, t('theory.pitfalls')),
        h('ul', null,
          h('li', null, h('strong', null, `${t('theory.pit1')} `), ...tParts('theory.pit1Text', { a: h('span', null, 'α', h('sub', null, 't')), c: h('span', null, 'c', h('sub', null, 't')) })),
          h('li', null, h('strong', null, `${t('theory.pit2')} `), t('theory.pit2Text')),
          h('li', null, h('strong', null, `${t('theory.pit3')} `), t('theory.pit3Text')),
          h('li', null, h('strong', null, `${t('theory.pit4')} `), t('theory.pit4Text'))))));

  return {
    element,
    update(st, changed) {
      if (!changed.has('info')) return;
      const kind = st.info?.attention;
      for (const c of cards) {
        const on = c.kind === kind;
        c.el.classList.toggle('as-active', on);
        c.badge.hidden = !on;
        if (on) c.el.setAttribute('aria-current', 'true'); else c.el.removeAttribute('aria-current');
      }
      noneNote.hidden = kind !== 'none';
    },
  };
}
