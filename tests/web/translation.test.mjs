// The translation controller (controllers/translation.js) without a browser:
// a fake client stands in for the worker, so the order of events is ours.
// What it checks is what the page and the browser tests rely on: a result's
// count (the timing line's data-count) only ever grows, even when the reader
// empties the box in between, and an empty box asks for no translation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createStore, defaultShareState } from '../../web/state.js';
import { createTranslation } from '../../web/controllers/translation.js';
import { setUiLanguage } from '../../web/i18n/index.js';

setUiLanguage('en');

/** A client whose tokenize() splits on spaces and whose translate() is answered by the test. */
function fakeClient() {
  const asked = [];
  const client = {
    asked,
    onResult: null,
    onError: null,
    tokenize: async (text) => [...text.matchAll(/\S+/g)].map((m) => ({ start: m.index, end: m.index + m[0].length })),
    translate: (params) => asked.push(params),
    stop() {},
    /** Answer the latest request with a trace of its words. */
    answer() {
      const params = asked.at(-1);
      const words = params.text.split(/\s+/).filter(Boolean);
      client.onResult({ S: words.length, T: 1, translation: words.join(' '), elapsedMs: 1 }, params, 2, 1, null);
    },
  };
  return client;
}

const tick = () => new Promise((r) => setTimeout(r, 0));

test('the result count keeps growing across an emptied box (a waiter never sees a count twice)', async () => {
  const store = createStore({ ...defaultShareState(), sentence: 'Print the page', status: 'starting', info: null, trace: null, timing: null, plan: null, part: 0, draft: null, tokenCount: null, error: null });
  const client = fakeClient();
  const translation = createTranslation(store, { client });
  store.set({ info: { maxSourceTokens: 50, trainedScoreScale: 1 }, status: 'ready' });
  await tick();
  assert.equal(client.asked.length, 1, 'the first sentence is asked for once');
  client.answer();
  assert.equal(store.get().timing.count, 1);

  // The reader empties the box (the typing pause passes): no request, the timing line goes.
  store.set({ sentence: '' });
  await tick();
  assert.equal(client.asked.length, 1, 'an empty box asks for nothing');
  assert.equal(store.get().timing, null);
  assert.equal(store.get().trace, null);
  assert.match(store.get().error.message, /type/i);

  // …and types a new sentence: its result is the second, not a first again.
  store.set({ sentence: 'Delete the selected document' });
  await tick();
  assert.equal(client.asked.length, 2);
  assert.equal(client.asked[1].text, 'Delete the selected document');
  client.answer();
  assert.equal(store.get().timing.count, 2, 'counted on from before the empty box');
  assert.equal(store.get().error, null);
  translation.destroy();
});
