#!/usr/bin/env node
// offline_visit.mjs - the goal "first heatmap ≤ 300 ms after navigation on a
// second, offline visit", in Chromium on dist/ (bundled: web/tools/dist.mjs)
// with its service worker: one visit online (the page, the wasm and the
// default model cached), then RUNS reloads with the network off, each timed
// from navigation start to the first heatmap paint (the page's own
// alignscope:first-heatmap mark, as page.test.mjs reads it). Also run by
// ./build.sh bench (bench.mjs, offlineVisit()); alone it writes
// tests/artifacts/offline-visit.json.
//
//   node tests/bench/offline_visit.mjs [--runs N]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDist } from '../../web/tools/dist.mjs';
import { launch, countingServer, READY } from '../browser/support.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const OFFLINE_GOAL_MS = 300;

/**
 * → { goalMs, runs, medianMs, minMs, maxMs, times, date }. dist: a built
 * dist/ to serve (else one is built in a temporary folder); browser: a
 * launched Chromium (else one of its own).
 */
export async function offlineVisit({ runs = 7, dist = null, browser = null } = {}) {
  const tmp = dist ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'alignscope-offline-bench-'));
  const root = dist ?? buildDist({ out: path.join(tmp, 'dist'), quiet: true }).out;
  const server = await countingServer({ root });
  const own = !browser;
  browser ??= await launch();
  const times = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${server.url}index.html#s=Open+the+file`);
    await page.waitForSelector(`#app ${READY}`, { timeout: 90_000 });
    await page.evaluate(async () => { await navigator.serviceWorker.ready; });
    await page.waitForFunction(() => !!navigator.serviceWorker.controller);
    // The model's cache entry is written after the first paint (by the engine worker, which marks it on the page).
    await page.waitForFunction(() => performance.getEntriesByName('alignscope:model-stored').length > 0, null, { timeout: 30_000 }).catch(() => page.waitForTimeout(1000));
    await context.setOffline(true);
    for (let i = 0; i < runs; i++) {
      await page.reload({ waitUntil: 'commit' });
      // The page's own mark, made when the first heatmap is painted (cards/heatmap.js), from navigation start.
      await page.waitForFunction(() => performance.getEntriesByName('alignscope:first-heatmap').length > 0, null, { timeout: 60_000 });
      times.push(await page.evaluate(() => performance.getEntriesByName('alignscope:first-heatmap')[0].startTime));
    }
    await context.close();
  } finally {
    if (own) await browser.close();
    await server.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  }
  const sorted = [...times].sort((a, b) => a - b);
  return { goalMs: OFFLINE_GOAL_MS, runs, medianMs: sorted[Math.floor(sorted.length / 2)], minMs: sorted[0], maxMs: sorted.at(-1), times, date: new Date().toISOString() };
}

/** Markdown lines for an offlineVisit() result. */
export function offlineLines(r) {
  return [`Offline second visit (tests/bench/offline_visit.mjs): dist/ with its service worker, after one online visit, ${r.runs} reloads with the network off, navigation → first heatmap: median ${r.medianMs.toFixed(0)} ms (min ${r.minMs.toFixed(0)}, max ${r.maxMs.toFixed(0)}).`];
}

/** Target rows for results.md (bench.mjs). */
export function offlineTargets(r) {
  return [{ name: `navigation → first heatmap, offline second visit, dist/ (median of ${r.runs})`, value: r.medianMs, goal: r.goalMs,
    met: Number.isFinite(r.medianMs) ? r.medianMs <= r.goalMs : null, unit: 'ms', lowerIsBetter: true, orEqual: true }];
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const runs = args.includes('--runs') && Number(args[args.indexOf('--runs') + 1]) > 0 ? Number(args[args.indexOf('--runs') + 1]) : 7;
  const result = await offlineVisit({ runs });
  fs.mkdirSync(path.join(REPO, 'tests', 'artifacts'), { recursive: true });
  fs.writeFileSync(path.join(REPO, 'tests', 'artifacts', 'offline-visit.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log(`offline second visit, navigation → first heatmap: median ${result.medianMs.toFixed(0)} ms (min ${result.minMs.toFixed(0)}, max ${result.maxMs.toFixed(0)}, ${runs} reloads; goal ≤ ${OFFLINE_GOAL_MS} ms: ${result.medianMs <= OFFLINE_GOAL_MS ? 'met' : 'not met'})`);
}
