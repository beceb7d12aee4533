// The render scheduler (web/lib/scheduler.js) with a hand-driven frame and
// timers: which cards update in a frame, how often, with which keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createScheduler } from '../../web/lib/scheduler.js';

/** A fake environment: frames and timers run when the test says so. */
function env(extra = {}) {
  let nextId = 1;
  const frames = new Map();
  const timers = new Map();
  const log = [];
  const s = createScheduler({
    raf: (fn) => { const id = nextId++; frames.set(id, fn); return id; },
    caf: (id) => frames.delete(id),
    setTimer: (fn) => { const id = nextId++; timers.set(id, fn); return id; },
    clearTimer: (id) => timers.delete(id),
    quietMs: 300,
    log,
    ...extra,
  });
  return {
    s, log,
    frame() { const run = [...frames.values()]; frames.clear(); for (const fn of run) fn(); return run.length; },
    pendingFrames: () => frames.size,
    quiet() { const run = [...timers.values()]; timers.clear(); for (const fn of run) fn(); },
  };
}

function card(name, calls) {
  return { update: (st, changed) => calls.push([name, st.v, [...changed].sort().join(',')]) };
}

test('a burst of store changes updates each active card once, in one frame, with the latest state and every key', () => {
  const e = env();
  const calls = [];
  e.s.card('heat', card('heat', calls));
  e.s.card('steps', card('steps', calls));
  for (let i = 1; i <= 100; i++) e.s.changed({ v: i }, new Set(i === 50 ? ['scale', 'step'] : ['scale']));
  assert.equal(e.pendingFrames(), 1, 'one frame asked for, however many changes');
  assert.deepEqual(calls, [], 'nothing updates before the frame');
  e.frame();
  assert.deepEqual(calls, [['heat', 100, 'scale,step'], ['steps', 100, 'scale,step']]);
  assert.equal(e.frame(), 0, 'no frame without a change');
  assert.equal(calls.length, 2);
});

test('a drag across many frames: at most one update per card per frame, none for cards off screen', () => {
  const e = env();
  const calls = [];
  e.s.card('heat', card('heat', calls));
  e.s.card('compare', card('compare', calls));
  e.s.setNear('compare', false);
  for (let f = 0; f < 100; f++) {
    e.s.changed({ v: f }, new Set(['scale']));
    e.s.changed({ v: f + 0.5 }, new Set(['trace']));
    e.frame();
  }
  const perFrame = new Map();
  for (const [frame, kind, key] of e.log) { const k = `${frame}/${kind}/${key}`; perFrame.set(k, (perFrame.get(k) ?? 0) + 1); }
  assert.ok([...perFrame.values()].every((n) => n === 1), 'no card twice in a frame');
  assert.equal(calls.filter(([n]) => n === 'heat').length, 100);
  assert.equal(calls.filter(([n]) => n === 'compare').length, 0, 'the card off screen did nothing');
  assert.deepEqual(e.s.stats().updates, { heat: 100 });
  // Scrolled into view: it updates in the next frame, once, with everything it missed.
  e.s.setNear('compare', true);
  e.frame();
  assert.deepEqual(calls.at(-1), ['compare', 99.5, 'scale,trace']);
});

test('a card off screen catches up once the store is quiet, or before printing; a focused card counts as active', () => {
  const e = env();
  const calls = [];
  e.s.card('film', card('film', calls));
  e.s.setNear('film', false);
  e.s.changed({ v: 1 }, new Set(['scale']));
  e.frame();
  assert.equal(calls.length, 0);
  assert.deepEqual(e.log.filter(([, kind]) => kind === 'settle'), [], 'an ordinary frame is not a catch-up');
  e.quiet();
  e.frame();
  assert.deepEqual(calls, [['film', 1, 'scale']], 'quiet: brought up to date');
  assert.deepEqual(e.log.slice(-2), [[2, 'settle'], [2, 'update', 'film']], 'the log names the catch-up frame (the browser tests tell its updates from a drag’s)');
  e.s.changed({ v: 2 }, new Set(['step']));
  e.s.flushAll();
  assert.deepEqual(calls.at(-1), ['film', 2, 'step'], 'flushAll: at once');
  e.s.setFocused('film', true);
  e.s.changed({ v: 3 }, new Set(['step']));
  e.frame();
  assert.deepEqual(calls.at(-1), ['film', 3, 'step'], 'focus inside: updates though off screen');
});

test('a pointer held on a control keeps the store from going quiet: the cards off screen catch up quietMs after it lets go', () => {
  const e = env();
  const calls = [];
  e.s.card('beam', card('beam', calls));
  e.s.setNear('beam', false);
  e.s.hold(true);
  e.s.changed({ v: 1 }, new Set(['scale']));
  e.frame();
  e.quiet(); // a slow move: the quiet time passes with the pointer still down
  e.frame();
  assert.deepEqual(calls, [], 'no catch-up while held');
  assert.deepEqual(e.log.filter(([, kind]) => kind === 'quiet' || kind === 'settle'), []);
  e.s.changed({ v: 2 }, new Set(['scale']));
  e.frame();
  e.s.hold(false);
  assert.equal(calls.length, 0, 'letting go is not itself the catch-up');
  e.quiet();
  e.frame();
  assert.deepEqual(calls, [['beam', 2, 'scale']], 'quietMs after the release: brought up to date, once');
  e.s.hold(false);
  e.s.hold(false);
  e.quiet();
  e.frame();
  assert.equal(calls.length, 1, 'a release without a hold changes nothing for a card with nothing pending');
});

test('measure runs before any update or job of the frame; jobs after the updates, `last` jobs after the others', () => {
  const e = env();
  const order = [];
  e.s.card('heat', { measure: () => order.push('measure heat'), update: () => { order.push('update heat'); e.s.add('paint', () => order.push('paint'), { last: true }); e.s.add('table', () => order.push('table')); } });
  e.s.card('steps', { measure: () => order.push('measure steps'), update: () => order.push('update steps') });
  e.s.measure('top', () => order.push('read top'));
  e.s.changed({ v: 1 }, new Set(['trace']));
  e.frame();
  assert.deepEqual(order, ['read top', 'measure heat', 'measure steps', 'update heat', 'update steps', 'table', 'paint']);
  assert.equal(e.frame(), 0, 'the jobs ran in the same frame');
});

test('jobs: one per key (the newer replaces the older), dropped ones never run, flush runs the frame now', () => {
  const e = env();
  const ran = [];
  e.s.add('table', () => ran.push('old'));
  e.s.add('table', () => ran.push('new'));
  e.s.add('gone', () => ran.push('gone'));
  e.s.drop('gone');
  e.s.flush();
  assert.deepEqual(ran, ['new']);
  assert.equal(e.pendingFrames(), 0);
});

test('controllers are woken when their card becomes active or the store goes quiet, not before', () => {
  const e = env();
  let woken = 0;
  const activeWhenWoken = [];
  e.s.onWake('compare', () => { woken += 1; activeWhenWoken.push(e.s.active('compare')); });
  assert.equal(e.s.active('compare'), false, 'a card not built yet is not active');
  e.s.card('compare', card('compare', []));
  return Promise.resolve().then(() => {
    assert.equal(woken, 1, 'a new card starts near the screen: its controller is woken');
    e.s.setNear('compare', false);
    assert.equal(e.s.active('compare'), false);
    e.s.changed({ v: 1 }, new Set(['scale']));
    assert.equal(woken, 1, 'a change alone wakes nobody');
    e.s.setNear('compare', true);
    assert.equal(woken, 2);
    e.s.setNear('compare', true);
    assert.equal(woken, 2, 'already active: not woken again');
    e.s.setNear('compare', false);
    e.s.changed({ v: 2 }, new Set(['scale']));
    e.quiet();
    assert.equal(woken, 3, 'quiet: woken to catch up');
    // A controller woken by the quiet store must be let to work (it asks active() first), and only then.
    assert.deepEqual(activeWhenWoken, [true, true, true]);
    assert.equal(e.s.active('compare'), false, 'off screen again once the catch-up is done');
  });
});

test('always-on cards update off screen; onFrame follows each frame', () => {
  let frames = 0;
  const e = env({ onFrame: () => { frames += 1; } });
  const calls = [];
  e.s.card('input', { ...card('input', calls), always: true });
  e.s.setNear('input', false);
  e.s.changed({ v: 1 }, new Set(['draft']));
  e.frame();
  assert.deepEqual(calls, [['input', 1, 'draft']]);
  assert.equal(frames, 1);
});

test('with onTime, each measure, update and job of a frame is timed, a job credited to the card whose update queued it', () => {
  let clock = 0;
  const times = [];
  const e = env({ now: () => clock, onTime: (cardKey, kind, key, ms, frame) => times.push([cardKey, kind, key, ms, frame]) });
  e.s.card('heat', {
    measure: () => { clock += 1; },
    update: () => { clock += 2; e.s.add('heatmap-1', () => { clock += 5; }, { last: true }); },
  });
  e.s.card('steps', { update: () => { clock += 3; } });
  e.s.changed({ v: 1 }, new Set(['scale']));
  e.frame();
  assert.deepEqual(times, [['heat', 'measure', 'heat', 1, 1], ['heat', 'update', 'heat', 2, 1], ['steps', 'update', 'steps', 3, 1], ['heat', 'job', 'heatmap-1', 5, 1]]);
  // Queued outside any update later (a zoom button, say): still the card that made it; a new key is its own.
  times.length = 0;
  e.s.add('heatmap-1', () => { clock += 7; });
  e.s.add('count', () => { clock += 1; });
  e.frame();
  assert.deepEqual(times, [['heat', 'job', 'heatmap-1', 7, 2], ['count', 'job', 'count', 1, 2]]);
  // Without onTime nothing is timed (and the log is as it was).
  const plain = env();
  plain.s.card('heat', { update: () => {} });
  plain.s.changed({ v: 1 }, new Set(['scale']));
  plain.frame();
  assert.deepEqual(plain.log, [[1, 'update', 'heat']]);
});
