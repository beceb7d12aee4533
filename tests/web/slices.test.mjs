// lib/slices.js: work written as a generator runs to the same value in one go
// (finish) and in slices (runInSlices), which breaks only once a slice's time
// is spent, gives the thread a new task at each break, and stops at a break
// when stop() names a reason (the generator's own cleanup runs).
import test from 'node:test';
import assert from 'node:assert/strict';
import { finish, runInSlices, nextTask } from '../../web/lib/slices.js';

let clock = 0; // ms: each unit of work below takes 3

function* counting(n, log) {
  try {
    let sum = 0;
    for (let i = 1; i <= n; i++) { sum += i; clock += 3; log.push(i); yield i; }
    return sum;
  } finally {
    log.push('cleanup');
  }
}

test('finish and runInSlices give the generator’s value; a slice breaks only when its time is spent', async () => {
  assert.equal(finish(counting(10, [])), 55);
  let breaks = 0;
  // Units of 3 ms in slices of 8 ms: a break after every third unit.
  const log = [];
  const value = await runInSlices(counting(10, log), { sliceMs: 8, now: () => clock, yieldTo: async () => { breaks++; } });
  assert.equal(value, 55);
  assert.equal(breaks, 3, 'a break after every third unit');
  assert.equal(log.at(-1), 'cleanup');
});

test('runInSlices stops at a break when stop() returns a reason, and the generator cleans up', async () => {
  const log = [];
  let breaks = 0;
  const why = new Error('cancelled by the page');
  const run = runInSlices(counting(100, log), { sliceMs: 0, yieldTo: async () => { breaks++; }, stop: () => (breaks === 2 ? why : null) });
  await assert.rejects(run, (err) => err === why);
  assert.deepEqual(log, [1, 2, 'cleanup'], 'no unit after the reason was given');
});

test('nextTask resolves after a message already queued for this thread', async () => {
  const order = [];
  const { port1, port2 } = new MessageChannel();
  const got = new Promise((r) => { port1.onmessage = () => { order.push('queued message'); port1.close(); r(); }; });
  port2.postMessage(null);
  await nextTask();
  order.push('next task');
  await got;
  assert.deepEqual(order, ['queued message', 'next task']);
});
