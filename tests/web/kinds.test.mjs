// The attention kinds are defined once on the JS side (web/engine.js, from
// the C engine); what the page says about each is keyed by them. This
// proves that every kind the engine knows has its words, and no others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ATTENTION_KINDS, STATUS_CODES } from '../../web/engine.js';
import { ATTENTION_NAMES } from '../../web/lib/catalog.js';
import { sliderWords } from '../../web/cards/slider.js';
import { statusIs } from '../../web/client.js';

const info = (attention) => ({ attention, keyDim: 64, attentionDim: 32, trainedScoreScale: attention === 'scaled_dot' ? 1 / 8 : 1 });

test('every attention kind of the engine has a name in the page, and only those', () => {
  assert.deepEqual(Object.keys(ATTENTION_NAMES).sort(), [...ATTENTION_KINDS].sort());
});

test('the score-scale card: d and √d for dot products, a temperature for additive and general, off for none', () => {
  for (const kind of ATTENTION_KINDS) {
    const w = sliderWords(info(kind));
    if (kind === 'dot' || kind === 'scaled_dot') {
      assert.equal(w.title, 'The √d slider', kind);
      assert.match(w.detail, /^d = 64 \(the key dimension.*√d = 8\.00/, kind);
    } else if (kind === 'none') {
      assert.match(w.note, /^The slider is off/);
      assert.equal(w.detail, '');
    } else {
      assert.equal(w.title, 'The score scale (softmax temperature)', kind);
      assert.match(w.detail, /temperature τ.*√d belongs to dot products/, kind);
      assert.ok(!/d = \d/.test(w.detail), `${kind}: no “d = …”`);
    }
  }
  assert.match(sliderWords(info('scaled_dot')).detail, /trained divisor 8\.00/);
  assert.match(sliderWords(info('additive')).detail, /32 units wide/);
});

test('statusIs knows only the engine’s status names', () => {
  assert.ok(STATUS_CODES.includes('AS_ERR_INPUT_TOO_LONG'));
  assert.equal(statusIs({ code: 'AS_ERR_INPUT_TOO_LONG' }, 'AS_ERR_INPUT_TOO_LONG'), true);
  assert.equal(statusIs({ code: 'AS_ERR_EMPTY_INPUT' }, 'AS_ERR_INPUT_TOO_LONG'), false);
  assert.throws(() => statusIs({}, 'AS_ERR_NO_SUCH_THING'), /no engine status/);
});
