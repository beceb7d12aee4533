// headed.test.mjs - Escape leaves presenter mode in Chromium with a window
// (issue 33), not only in headless Chromium.
//
// A real window's full screen is the browser's: a user's Escape there is
// taken by the browser to leave full screen, and the page hears only
// `fullscreenchange`, no keydown (controllers/presenter.js). Playwright's
// page.keyboard cannot show that: its keys go to the page past the browser's
// own handling (measured here, headed: Escape arrived as a keydown and the
// page's key handler called exitFullscreen itself, so a presenter.js that
// ignored fullscreenchange passed). So this runs Debian's Chromium headed,
// on an Xvfb display of its own, and presses Escape as a user does, through
// the X server (xdotool, XTEST), for both ways in (the button, the P key):
// full screen and presenter mode are both left, with no Escape keydown in
// the page. It fails if presenter.js stops following fullscreenchange.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startBrowser, openPage, gotoReady } from './support.mjs';

/**
 * Xvfb on the first free display number (-displayfd: the server finds one
 * and writes it to fd 3, so two test files at once cannot collide):
 * { display: ':N', stop() }.
 */
function startXvfb() {
  const proc = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1920x1080x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  let said = '';
  let log = '';
  proc.stderr.on('data', (d) => { log += d; });
  const exited = new Promise((resolve) => proc.on('exit', resolve));
  return new Promise((resolve, reject) => {
    proc.on('error', (e) => reject(new Error(`Xvfb: ${e.message} (./build.sh deps installs the package xvfb)`)));
    exited.then((code) => reject(new Error(`Xvfb exited (${code}) before it named a display:\n${log}`)));
    proc.stdio[3].on('data', (d) => {
      said += d;
      if (!said.includes('\n')) return;
      resolve({ display: `:${said.trim()}`, async stop() { proc.kill(); await exited; } });
    });
  });
}

let xvfb;
let env;
let displayEnv;
before(async () => {
  xvfb = await startXvfb();
  displayEnv = { ...process.env, DISPLAY: xvfb.display };
  env = await startBrowser({ launch: { headless: false, env: displayEnv } });
});
after(async () => { await env?.close(); await xvfb?.stop(); });

/** A key pressed on the keyboard of the X display: to the focused window, Chromium's, through the browser's own key handling. */
const xKey = (key) => promisify(execFile)('xdotool', ['key', key], { env: displayEnv, timeout: 10_000 });

/** What Escape has to undo: the page's presenter flag, and whether the widget is the full-screen element. */
const state = (page) => page.evaluate(() => {
  const root = document.querySelector('#app .as-root');
  return { presenter: root.dataset.presenter, fullscreen: document.fullscreenElement === root, anyFullscreen: document.fullscreenElement !== null };
});

test('headed Chromium: presenter mode by the button and by the P key; Escape leaves full screen and presenter mode', async () => {
  const { page, context, errors } = await openPage(env.browser);
  await gotoReady(page, env.url(`index.html#s=${encodeURIComponent('Open the file')}&step=1`));
  // Every Escape keydown the page hears, before any handler of the page's own can stop it.
  await page.evaluate(() => {
    window.escapesHeard = 0;
    window.addEventListener('keydown', (e) => { if (e.key === 'Escape') window.escapesHeard += 1; }, { capture: true });
  });
  const entered = () => page.waitForFunction(() => {
    const root = document.querySelector('#app .as-root');
    return root.dataset.presenter === 'true' && document.fullscreenElement === root;
  }, null, { timeout: 20_000 }).catch(async () => assert.fail(`presenter mode in full screen: ${JSON.stringify(await state(page))}`));
  const left = (how) => page.waitForFunction(
    () => document.fullscreenElement === null && document.querySelector('#app .as-root').dataset.presenter === 'false',
    null, { timeout: 20_000 },
  ).catch(async () => assert.fail(`${how}, then Escape: full screen and presenter mode both left, but ${JSON.stringify(await state(page))}`));

  for (const how of ['the button', 'the P key']) {
    if (how === 'the button') await page.locator('#app button.as-presenter-btn').click();
    else {
      await page.evaluate(() => document.activeElement?.blur());
      await page.keyboard.press('p');
    }
    await entered();
    await xKey('Escape');
    await left(how);
  }
  // The browser took both Escapes to leave full screen: presenter mode ended on fullscreenchange alone.
  assert.equal(await page.evaluate(() => window.escapesHeard), 0, 'Escape in a real full screen is the browser\'s, not a keydown');
  assert.deepEqual(errors, []);
  await context.close();
});
