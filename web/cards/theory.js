// theory.js - the teaching card: the formulas (the loaded model's kind
// highlighted), the query/key/value reading, and the pitfalls every student meets.

import { h } from '../lib/dom.js';
import { formula } from '../lib/formula.js';

const KINDS = [
  { kind: 'additive', name: 'Additive (Bahdanau)', score: 'e_{tj} = v_a^{⊤} tanh(W_a s_{t−1} + U_a h_j)', note: 'A one-hidden-layer network scores each pair; the projections are added before the tanh.' },
  { kind: 'dot', name: 'Dot (Luong)', score: 'e_{tj} = s_{t−1}^{⊤} h_j', note: 'No parameters: one matrix multiply scores every position at once.' },
  { kind: 'general', name: 'General (Luong)', score: 'e_{tj} = s_{t−1}^{⊤} W h_j', note: 'A learned bilinear form between decoder and encoder states.' },
  { kind: 'scaled_dot', name: 'Scaled dot product (Transformer)', score: 'e_{tj} = s_{t−1}^{⊤} h_j ÷ √d', note: 'Dividing by √d keeps the scores’ spread from growing with the dimension d, so the softmax does not saturate.' },
];

export function mount(store, { headingId }) {
  const container = h('div');
  const element = h('section', { class: 'as-card as-theory-card', 'aria-labelledby': headingId },
    h('h2', { id: headingId }, 'How attention computes'), container);
  const cards = KINDS.map((k) => {
    const badge = h('span', { class: 'as-badge', hidden: true }, 'this model');
    const el = h('li', { class: 'as-kind', dataset: { kind: k.kind } },
      h('div', { class: 'as-kind-head' }, h('strong', null, k.name), badge),
      formula(k.score),
      h('p', { class: 'as-small as-muted' }, k.note));
    return { ...k, el, badge };
  });
  const noneNote = h('p', { class: 'as-note', hidden: true },
    'The loaded model has no attention (the baseline): the decoder gets one fixed vector c = [→h_S ; ←h_1] at every step. There are no weights α and so no alignment to show; compare its translations of long sentences with an attention model.');

  container.append(
    h('div', { class: 'as-theory-grid' },
      h('section', null,
        h('h3', null, 'Scores, weights, context'),
        h('p', null, 'At every output step t the decoder scores each source position j, turns the scores into weights with a softmax over the source positions, and blends the encoder states with those weights:'),
        h('ol', { class: 'as-kinds' }, cards.map((c) => c.el)),
        h('p', { class: 'as-formula-line' }, formula('α_{tj} = exp(e_{tj}) ÷ Σ_k exp(e_{tk})'), h('span', { class: 'as-muted as-small' }, '   softmax over the S source positions')),
        h('p', { class: 'as-formula-line' }, formula('c_t = Σ_j α_{tj} h_j'), h('span', { class: 'as-muted as-small' }, '   one vector: the weighted sum of encoder states')),
        noneNote),
      h('section', null,
        h('h3', null, 'A soft dictionary'),
        h('p', null, 'Read attention as a lookup. The ', h('strong', null, 'query'), ' (the decoder state s', h('sub', null, 't−1'), ', what it is looking for) is compared with every ', h('strong', null, 'key'), ' (what each source position is about); the similarities become weights; the weights blend the ', h('strong', null, 'values'), ' (what each position contains: here the encoder states h', h('sub', null, 'j'), ' serve as keys and values).'),
        h('p', null, 'A hard dictionary returns the one value whose key matches. Attention returns a mixture weighted by how well each key matches, and because that is differentiable, training learns what to look up. The analogy: an interpreter running a finger along the source while translating; α is where the finger points.'),
        h('h3', null, 'Why divide by √d?'),
        h('p', null, 'If query and key have d independent components of variance 1, their dot product has variance d: its typical size grows like √d. Large scores make the softmax nearly one-hot, and its gradients tiny. Dividing by √d brings the spread back to about 1. Try it with the slider: a small divisor saturates the rows (entropy → 0), a large one flattens them (entropy → log₂ S).')),
      h('section', { class: 'as-pitfalls' },
        h('h3', null, 'Pitfalls'),
        h('ul', null,
          h('li', null, h('strong', null, 'Weights are not the context vector. '), 'α', h('sub', null, 't'), ' is S scalars that sum to 1; c', h('sub', null, 't'), ' is one vector (2H numbers): the weighted sum of the encoder states. The step view shows both.'),
          h('li', null, h('strong', null, 'The softmax is over source positions, not the vocabulary. '), 'Each heatmap row sums to 1 across the source words. The other softmax, the one that picks the next word, runs over the whole target vocabulary.'),
          h('li', null, h('strong', null, 'Attention ≠ explanation. '), 'The heatmap shows where the model looked, not why it chose a word. Weights can often be changed a lot while the output barely changes, so read them as a useful picture, not as proof.'),
          h('li', null, h('strong', null, 'Attention does not need an RNN. '), 'Here it rides on GRUs, as in 2014; the Transformer keeps the attention and drops the recurrence.')))));

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
