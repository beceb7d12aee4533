// level.test.mjs - one level everywhere (issue 33, item 1), in Debian's
// Chromium: on a sentence whose words the default model reads as several
// pieces, the heatmap's one switch ("Show subword pieces") moves every view
// that draws the matrix with it. At each level the heatmap's JSON export
// says what the map shows (its level, source columns, target rows), and
// the SVG export labels those columns and rows with one cell each, the PNG
// export is as wide as that many columns, the ribbons draw one band per
// column, the animated GIF has one frame per row, the pin's editor has one
// weight per column, the quiz one choice per column and the step view one
// chip per column.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { startBrowser, openPage, gotoReady, DESKTOP, painted } from './support.mjs';

const EEA = 'The agreement on the European Economic Area was signed in August 1992.';
let env;
before(async () => { env = await startBrowser(); });
after(async () => { await env?.close(); });

async function downloadOf(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 120_000 }), page.locator(selector).click()]);
  return fs.readFileSync(await dl.path());
}
const shortLabel = (s) => (Array.from(s).length > 18 ? `${Array.from(s).slice(0, 17).join('')}…` : s); // views/heatmap-layout.js, CONFIG.labelMaxChars
const unescape = (s) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
/** Frames of a GIF89a: count its image descriptors by walking the blocks. */
function gifFrames(buf) {
  let i = 13 + ((buf[10] & 0x80) ? 3 * (1 << ((buf[10] & 7) + 1)) : 0);
  let frames = 0;
  const skipSub = () => { while (buf[i] !== 0) i += buf[i] + 1; i += 1; };
  for (;;) {
    const b = buf[i++];
    if (b === 0x3b) return frames;
    if (b === 0x21) { i += 1; skipSub(); } else if (b === 0x2c) {
      frames += 1;
      const packed = buf[i + 8];
      i += 9 + ((packed & 0x80) ? 3 * (1 << ((packed & 7) + 1)) : 0);
      i += 1; skipSub();
    } else throw new Error(`GIF: block 0x${b?.toString(16)} at ${i - 1}`);
  }
}
const pngWidth = (buf) => buf.readUInt32BE(16);

test('one switch: the exports (JSON, SVG, PNG, GIF), the ribbons, the pin, the step view and the quiz follow the heatmap\'s level', async () => {
  const { page, context, errors } = await openPage(env.browser, { viewport: DESKTOP });
  await gotoReady(page, env.url(`index.html#s=${encodeURIComponent(EEA)}&step=1`));
  await page.waitForSelector('#app .as-rb-svg path.as-rb-band');
  const seen = {};
  for (const level of ['words', 'pieces']) {
    if (level === 'pieces') {
      await page.locator('#app .as-toolbar button', { hasText: 'Show subword pieces' }).click();
      await page.waitForFunction(() => /&pieces=1/.test(location.hash));
      await painted(page);
    }
    const m = JSON.parse((await downloadOf(page, '#app button[data-export="json"]')).toString('utf8'));
    assert.equal(m.level, level);
    const S = m.source.length;
    const T = m.target.length;
    seen[level] = { S, T, m };

    const svg = (await downloadOf(page, '#app button[data-export="svg"]')).toString('utf8');
    const cells = [...svg.matchAll(/<rect [^>]*><title>([^<]*)<\/title><\/rect>/g)].map((x) => unescape(x[1]));
    assert.equal(cells.length, S * T, `${level}: the SVG has a cell per row and column`);
    assert.ok(cells[0].startsWith(`${m.target[0]} ← ${m.source[0]}:`), `${level}: its first cell is the map's (${cells[0]})`);
    const colLabels = [...svg.matchAll(/<text transform="translate[^>]*>([^<]*)<\/text>/g)].map((x) => unescape(x[1]));
    assert.deepEqual(colLabels, m.source.map(shortLabel), `${level}: the SVG's columns are the map's`);
    seen[level].png = pngWidth(await downloadOf(page, '#app button[data-export="png"]'));

    await page.waitForFunction((n) => document.querySelectorAll('#app .as-rb-svg path.as-rb-band').length === n, S);
    const gif = await downloadOf(page, '#app button[data-film="gif"]');
    assert.equal(gifFrames(gif), T, `${level}: the GIF has a frame per row of the map`);

    await page.waitForFunction((n) => document.querySelectorAll('#app .as-pin-weight').length === n, S);
    assert.deepEqual(await page.$$eval('#app .as-pin-word', (els) => els.map((e) => e.textContent)), m.source, `${level}: the pin's weights are the map's columns`);
    assert.deepEqual(await page.$$eval('#app .as-steps-card .as-chip', (els) => els.map((e) => e.textContent)), m.source, `${level}: the step view's chips`);
    assert.match(await page.textContent('#app .as-step-count'), new RegExp(`^step \\d+ / ${T}$`), `${level}: the step view steps through the map's rows`);
  }
  assert.ok(seen.pieces.S > seen.words.S && seen.pieces.T > seen.words.T, `the sentence has words of several pieces on both sides (${JSON.stringify([seen.words.S, seen.words.T, seen.pieces.S, seen.pieces.T])})`);
  assert.ok(seen.pieces.png > seen.words.png, `the PNG has the piece level's extra columns (${seen.words.png} px, then ${seen.pieces.png} px)`);
  assert.deepEqual(errors, []);
  await context.close();

  // The quiz, opened from a link at each level: one choice per column of that level's map.
  for (const level of ['words', 'pieces']) {
    const q = await openPage(env.browser, { viewport: DESKTOP });
    await q.page.goto(env.url(`index.html#s=${encodeURIComponent(EEA)}&quiz=1${level === 'pieces' ? '&pieces=1' : ''}`));
    await q.page.waitForSelector('#app .as-quiz-card[data-phase="play"]', { timeout: 90_000 });
    const choices = await q.page.$$eval('#app .as-quiz-src .as-chip', (els) => els.map((e) => e.textContent));
    assert.deepEqual(choices, seen[level].m.source, `quiz at ${level} level: a choice per column of the map`);
    assert.deepEqual(q.errors, []);
    await q.context.close();
  }
});
