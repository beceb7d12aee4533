// chromium.mjs - the one way every browser test and bench starts Chromium:
// Debian's /usr/bin/chromium (never a downloaded one), headless unless a
// test needs the browser's own window (headed.test.mjs, on an Xvfb display),
// with these flags, each for a reason.
import { chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const LAUNCH_ARGS = [
  '--no-sandbox', // CI runs as root
  '--disable-gpu', // no GPU here: software compositing, the same pictures on every machine
  // Nothing outside the test's own server: no updates, no sync, no probes.
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run',
  // Chromium builds its own omnibox popup (a chrome:// page in a renderer
  // process of its own) for every new window, so for every fresh context a
  // test opens. No page needs it; measured here (/tmp traces of one cold load
  // of the page, 1280×800): 2.35 s of Chromium CPU with it, 1.63 s without.
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup',
];

/**
 * Chromium with LAUNCH_ARGS and `args` after them (e.g. --js-flags=--expose-gc).
 * headless: false opens a real window, on the X display that `env` names (DISPLAY).
 */
export function launchChromium({ args = [], headless = true, env } = {}) {
  return chromium.launch({ executablePath: CHROMIUM, args: [...LAUNCH_ARGS, ...args], headless, ...(env && { env }) });
}
