// The predict-then-reveal quiz (web/cards/quiz.js, controllers/quiz.js) in
// Debian's Chromium: a teacher's link opens the quiz with the answers hidden
// (translation, heatmap, step-through, slider, comparison; no α of a row in
// the quiz card before its reveal); a scripted run that picks the decoder's
// own word at some steps and another word at others, known from the page's
// own α (the heatmap's numbers table, in the page though hidden), gets the
// running score and the summary's numbers those α give; one step played
// with the keyboard alone; a bad quiz value and a step past the translation
// each get their notice; on a phone nothing overflows. axe finds no serious
// or critical violation in the quiz, and screenshots land in tests/artifacts/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startBrowser, openPage, ARTIFACTS, REPO, PHONE, DESKTOP, painted } from './support.mjs';

const SENTENCE = 'Open the selected file and close the window.';
const AXE = fs.readFileSync(path.join(REPO, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const CARD = '#app .as-quiz-card';
let env;
before(async () => { env = await startBrowser(); });
after(async () => { await env?.close(); });

const quizUrl = (params) => env.url(`index.html#${new URLSearchParams({ s: SENTENCE, ...params })}`);

/** Open a quiz link and wait until its first step is asked (or another phase). */
async function openQuiz(page, params, phase = 'play') {
  await page.goto(quizUrl(params));
  await page.waitForSelector(`${CARD}[data-phase="${phase}"]`, { timeout: 90_000 });
}

/**
 * The page's own α, as its heatmap shows it (words, or pieces with pieces=1):
 * the numbers table of the heatmap card, which stays in the page while the
 * quiz hides the card. -> { rows: [label], cols: [label], alpha: [[number]] }
 */
async function pageMatrix(page) {
  return page.evaluate(() => {
    const table = document.querySelector('#app .as-heat-card table.as-matrix');
    const cols = [...table.querySelectorAll('thead th')].slice(1, -1).map((th) => th.textContent);
    const body = [...table.querySelectorAll('tbody tr')];
    return {
      cols,
      rows: body.map((tr) => tr.querySelector('th').textContent),
      alpha: body.map((tr) => [...tr.querySelectorAll('td')].slice(0, cols.length).map((td) => Number(td.textContent))),
    };
  });
}

// The card draws a store change in the scheduler's next frame (web/lib/scheduler.js), not in the
// click: after an action, wait until the card shows its outcome before reading it.
/** A step is asked: its Reveal button is shown (the last step's reveal and Next are gone). */
const asked = (page) => page.waitForSelector(`${CARD} .as-quiz-reveal:not([hidden])`);
/** The reveal is drawn: Next step (or See the summary) is shown. */
const revealed = (page) => page.waitForSelector(`${CARD} .as-quiz-next:not([hidden])`);

const argmaxOf = (row) => row.indexOf(Math.max(...row));
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** "Written so far:" — these words, then the blank of the word asked for. */
const soFar = (words) => new RegExp(`${words.map(escape).join(' ')}\\s*\\?$`);
const fmt3 = (x) => x.toFixed(3);

async function axe(page, label) {
  if (!(await page.evaluate(() => typeof globalThis.axe === 'object'))) await page.evaluate(AXE);
  const v = await page.evaluate(async () => (await globalThis.axe.run(document, { resultTypes: ['violations'] })).violations
    .map((x) => ({ id: x.id, impact: x.impact, nodes: x.nodes.map((n) => `${n.target.join(' » ')}: ${n.failureSummary}`) })));
  const bad = v.filter((x) => x.impact === 'serious' || x.impact === 'critical');
  assert.deepEqual(bad, [], `${label}: axe found\n${JSON.stringify(bad, null, 2)}`);
}

test('a quiz link: answers hidden, a scripted run scored from the page’s own α, the summary’s numbers, then everything back', async () => {
  const { page, context, errors } = await openPage(env.browser, { viewport: DESKTOP });
  await openQuiz(page, { quiz: 'source+word' });
  assert.match(await page.evaluate(() => location.hash), /(^#|&)quiz=source\+word(&|$)/, 'the page keeps the quiz in its link');

  // Nothing on screen gives the answer away.
  for (const sel of ['.as-heat-card', '.as-steps-card', '.as-slider-card', '.as-compare-card', '.as-translation']) {
    assert.equal(await page.locator(`#app ${sel}`).isVisible(), false, `${sel} is hidden during the quiz`);
  }
  assert.equal(await page.locator('#app .as-quiz-veil').isVisible(), true, 'the translation box says why it is empty');
  // And so is every other view of α there is (ribbons, beam search, pinning, the training film, …): only these stay.
  const shown = await page.$$eval('#app .as-grid > [data-area]', (els) => els.filter((e) => getComputedStyle(e).display !== 'none').map((e) => e.dataset.area));
  assert.deepEqual(shown.filter((a) => !['input', 'quiz', 'model', 'theory', 'byhand', 'offline'].includes(a)), [], `shown during the quiz: ${shown}`);
  assert.ok(shown.includes('quiz') && shown.includes('input'));
  assert.match(await page.textContent(`${CARD} .as-quiz-hidden-note`), /hidden until you leave the quiz/);

  const m = await pageMatrix(page);
  assert.ok(m.rows.length >= 4 && m.cols.length >= 4, `a translation to play: ${JSON.stringify(m.rows)}`);
  const sourceLabels = await page.$$eval(`${CARD} .as-quiz-src .as-chip`, (els) => els.map((e) => e.textContent));
  assert.deepEqual(sourceLabels, m.cols, 'the quiz offers the heatmap’s columns');

  // The table's three decimals must name each row's largest α for the script to know it.
  for (const [r, row] of m.alpha.entries()) assert.equal(row.filter((a) => a === Math.max(...row)).length, 1, `row ${r} has a unique largest α at three decimals (else pick another SENTENCE): ${row}`);
  // The script: the decoder's own word at rows 0, 2, 3, 5, …; the least-attended word at rows 1, 4, 7, …
  const plan = m.alpha.map((row, r) => {
    const best = argmaxOf(row);
    const miss = r % 3 === 1;
    return { pick: miss ? row.indexOf(Math.min(...row)) : best, right: !miss, best, guessRight: r % 2 === 0 };
  });
  assert.ok(plan.some((p) => p.right) && plan.some((p) => !p.right), 'the script has hits and misses');

  let right = 0;
  let wordsRight = 0;
  const gaps = [];
  const dists = [];
  for (const [r, p] of plan.entries()) {
    await asked(page);
    assert.equal(await page.textContent(`${CARD} .as-quiz-counter`), `Step ${r + 1} of ${m.rows.length}`);
    // Before the reveal the card holds no α of this row: no bars, no numbers.
    assert.deepEqual(await page.$$eval(`${CARD} .as-quiz-src`, (els) => els.map((b) => [b.querySelector('.as-bar-box').hidden, b.querySelector('.as-bar-val').textContent])),
      m.cols.map(() => [true, '']), `row ${r}: nothing revealed yet`);
    assert.match(await page.textContent(`${CARD} .as-quiz-sofar`), soFar(m.rows.slice(0, r)), 'what it wrote so far, then the blank');

    await page.locator(`${CARD} .as-quiz-src`).nth(p.pick).click();
    const choices = await page.$$eval(`${CARD} .as-quiz-word`, (els) => els.map((e) => e.textContent));
    assert.ok(choices.includes(m.rows[r]), `row ${r}: the word it writes is offered (${choices})`);
    const guess = p.guessRight ? m.rows[r] : choices.find((w) => w.toLowerCase() !== m.rows[r].toLowerCase());
    await page.locator(`${CARD} .as-quiz-words`).getByRole('radio', { name: guess, exact: true }).click();
    await page.click(`${CARD} .as-quiz-reveal`);
    await revealed(page);

    const row = m.alpha[r];
    if (p.right) right += 1;
    else { gaps.push(row[p.best] - row[p.pick]); dists.push(Math.abs(p.best - p.pick)); }
    if (p.guessRight) wordsRight += 1;
    const result = await page.textContent(`${CARD} .as-quiz-result`);
    const bestWord = m.cols[p.best];
    if (p.right) assert.equal(result.split(' It wrote')[0], `Right: the decoder looked most at “${bestWord}” (α = ${fmt3(row[p.best])}).`);
    else assert.match(result, new RegExp(`^Not this time: you picked “${escape(m.cols[p.pick])}” \\(α = ${fmt3(row[p.pick])}\\)`));
    assert.match(result, p.guessRight ? /as you guessed\.$/ : /; you guessed “/);
    // Revealed: the row's α as bars and numbers, the picks marked.
    const vals = await page.$$eval(`${CARD} .as-quiz-src .as-bar-val`, (els) => els.map((e) => e.textContent));
    assert.ok(vals.length === row.length && vals.every((v, j) => v !== '' && Math.abs(Number(v) - row[j]) <= 0.0051), `row ${r}: the true α appear (${vals} vs ${row})`);
    assert.match(await page.textContent(`${CARD} .as-quiz-src.as-best .as-quiz-mark`), /largest α/);
    const n = r + 1;
    const score = await page.textContent(`${CARD} .as-quiz-score`);
    assert.ok(score.startsWith(`Score: ${right} of ${n} right · next word: ${wordsRight} of ${n}`), `running score after row ${r}: ${score}`);
    if (gaps.length) {
      const [, g, d] = score.match(/when wrong: ([\d.]+) less α and ([\d.]+) positions away/);
      assert.ok(Math.abs(Number(g) - gaps.reduce((a, b) => a + b, 0) / gaps.length) <= 0.006, `mean gap ${g}`);
      assert.equal(d, (dists.reduce((a, b) => a + b, 0) / dists.length).toFixed(1));
    }
    if (r === 1) await page.screenshot({ path: path.join(ARTIFACTS, 'quiz-desktop-reveal.png') });
    await page.click(`${CARD} .as-quiz-next`);
  }

  // The summary.
  await page.waitForSelector(`${CARD}[data-phase="done"]`);
  assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('as-quiz-summary-head')), true, 'the focus is on the summary');
  const n = plan.length;
  assert.equal(await page.textContent(`${CARD} .as-quiz-totals`), `You picked the word the decoder looked at most at ${right} of ${n} steps (${Math.round((100 * right) / n)} %).`);
  const misses = await page.textContent(`${CARD} .as-quiz-misses`);
  const [, meanGap, maxGap, meanD] = misses.match(/gave your word ([\d.]+) less weight .* \(at most ([\d.]+) less\), .* ([\d.]+) words away/);
  assert.ok(Math.abs(Number(meanGap) - gaps.reduce((a, b) => a + b, 0) / gaps.length) <= 0.0015, `mean gap ${meanGap}`);
  assert.ok(Math.abs(Number(maxGap) - Math.max(...gaps)) <= 0.0015, `largest gap ${maxGap}`);
  assert.equal(meanD, (dists.reduce((a, b) => a + b, 0) / dists.length).toFixed(1));
  assert.equal(await page.textContent(`${CARD} .as-quiz-word-total`), `You guessed the next word right at ${wordsRight} of ${n} steps.`);
  const rows = await page.$$eval(`${CARD} .as-quiz-table tbody tr`, (trs) => trs.map((tr) => {
    const td = [...tr.children];
    return { right: tr.dataset.right === 'true', step: td[0].textContent, wrote: td[1].textContent, pick: td[2].textContent, best: td[3].textContent, gap: Number(td[4].dataset.gap), distance: Number(td[4].dataset.distance), off: td[4].textContent, word: td[5].textContent };
  }));
  assert.equal(rows.length, n, 'one line per step');
  for (const [r, p] of plan.entries()) {
    const row = m.alpha[r];
    const x = rows[r];
    assert.equal(x.right, p.right, `row ${r}`);
    assert.equal(x.step, String(r + 1));
    assert.equal(x.wrote, m.rows[r]);
    assert.equal(x.pick, `${m.cols[p.pick]} ${fmt3(row[p.pick])}`);
    assert.equal(x.best, `${m.cols[p.best]} ${fmt3(row[p.best])}`);
    assert.ok(Math.abs(x.gap - (row[p.best] - row[p.pick])) <= 0.0011, `row ${r}: gap ${x.gap}`);
    assert.equal(x.distance, p.right ? 0 : Math.abs(p.best - p.pick));
    assert.match(x.off, p.right ? /^right$/ : / less α, \d+ words? away$/);
    assert.match(x.word, p.guessRight ? /\(right\)$/ : /\(wrong\)$/);
  }
  await page.locator(CARD).screenshot({ path: path.join(ARTIFACTS, 'quiz-desktop-summary.png') });
  await axe(page, 'quiz summary, desktop');

  // Leaving: everything comes back, the link loses its quiz, the last score stays.
  await page.click(`${CARD} button:text-is("Leave the quiz")`);
  await page.waitForSelector(`${CARD}[data-phase="off"]`);
  for (const sel of ['.as-heat-card', '.as-steps-card', '.as-translation']) assert.equal(await page.locator(`#app ${sel}`).isVisible(), true, `${sel} is back`);
  await page.waitForFunction(() => !/quiz=/.test(location.hash));
  assert.match(await page.textContent(CARD), new RegExp(`Your last quiz: ${right} of ${n} steps right\\.`));
  await page.screenshot({ path: path.join(ARTIFACTS, 'quiz-desktop-off.png') });

  // A teacher's link from the setup: the mode and the start step travel; Start begins there.
  await page.check(`${CARD} input[type="checkbox"]`);
  await page.selectOption(`${CARD} .as-quiz-start-at`, { label: '3' });
  await page.click(`${CARD} button:text-is("Copy quiz link")`);
  const link = new URL(await page.inputValue(`${CARD} .as-link`));
  const params = new URLSearchParams(link.hash.slice(1));
  assert.deepEqual([params.get('quiz'), params.get('step'), params.get('s')], ['source word', '2', SENTENCE], link.hash);
  assert.match(link.hash, /(^#|&)quiz=source\+word(&|$)/);
  await page.click(`${CARD} button:text-is("Start the quiz")`);
  await page.waitForSelector(`${CARD}[data-phase="play"]`);
  assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('as-quiz-src')), true, 'the focus is on the first source word');
  assert.equal(await page.textContent(`${CARD} .as-quiz-counter`), `Step 1 of ${n - 2}`);
  assert.match(await page.textContent(`${CARD} .as-quiz-sofar`), soFar(m.rows.slice(0, 2)), 'the first two words are given');
  assert.equal(await page.locator('#app .as-heat-card').isVisible(), false, 'hidden again');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the keyboard alone: Tab to the source words, arrows choose, Enter reveals, Enter goes on', async () => {
  const { page, context, errors } = await openPage(env.browser, { viewport: DESKTOP });
  await openQuiz(page, { quiz: '1' });
  const m = await pageMatrix(page);
  const best = argmaxOf(m.alpha[0]);
  assert.equal(await page.locator(`${CARD} .as-quiz-word-block`).isVisible(), false, 'quiz=1: source words only');
  await page.keyboard.press('Tab');
  for (let i = 0; i < 80 && !(await page.evaluate(() => document.activeElement?.classList.contains('as-quiz-src'))); i++) await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('role')), 'radio', 'Tab reaches the source words');
  assert.equal(await page.$$eval(`${CARD} .as-quiz-src`, (els) => els.filter((e) => e.tabIndex === 0).length), 1, 'one Tab stop for the group');
  // From the first word: one past the decoder's own word (round the end if need be), then back.
  for (let j = 0; j < best + 1; j++) await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowLeft');
  await painted(page);
  const checked = await page.$$eval(`${CARD} .as-quiz-src`, (els) => els.map((e) => e.getAttribute('aria-checked')));
  assert.equal(checked.indexOf('true'), best, 'the arrows choose');
  assert.equal(checked.filter((c) => c === 'true').length, 1);
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-checked')), 'true', 'the focus follows the choice');
  await page.keyboard.press('Enter');
  await revealed(page);
  assert.match(await page.textContent(`${CARD} .as-quiz-result`), /^Right: /);
  assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('as-quiz-next')), true, 'the focus is on Next step');
  assert.equal(await page.textContent(`${CARD} .as-quiz-score`), 'Score: 1 of 1 right');
  await page.keyboard.press('Enter');
  await asked(page);
  assert.equal(await page.textContent(`${CARD} .as-quiz-counter`), `Step 2 of ${m.rows.length}`);
  assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('as-quiz-src')), true, 'and back on the source words');
  // Enter on Reveal with nothing chosen says what is missing.
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('as-quiz-reveal')), true);
  await page.keyboard.press('Enter');
  assert.equal(await page.textContent(`${CARD} .as-quiz-result`), 'Pick a source word first.');
  assert.equal(await page.locator(`${CARD} .as-quiz-next`).isVisible(), false);
  await page.screenshot({ path: path.join(ARTIFACTS, 'quiz-desktop-keyboard.png') });
  // The page-wide keys do not move the hidden step-through.
  await page.evaluate(() => document.activeElement.blur());
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press(' ');
  await page.waitForTimeout(300);
  assert.match(await page.evaluate(() => location.hash), /(^#|&)step=0(&|$)/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('bad links: an unknown quiz value and a step past the translation each say what the page does instead', async () => {
  const { page, context, errors } = await openPage(env.browser, { viewport: DESKTOP });
  await openQuiz(page, { quiz: 'sorce' });
  assert.equal(await page.textContent('#app .as-notice [data-topic="quizLink"]'),
    'This link asks for the quiz “sorce”, which this page does not know (it knows quiz=1 and quiz=source+word): the quiz runs with source-word guesses only.');
  assert.equal(await page.locator(`${CARD} .as-quiz-word-block`).isVisible(), false, 'source words only');
  assert.equal(await page.locator('#app .as-heat-card').isVisible(), false, 'and the answers stay hidden');

  await page.goto('about:blank');
  await openQuiz(page, { quiz: 'source+word', step: '40' });
  const m = await pageMatrix(page);
  const T = await page.$$eval('#app .as-steps-card .as-word', (els) => els.length);
  assert.equal(await page.textContent('#app .as-notice [data-topic="quizStep"]'),
    `This quiz link starts at step 41, but the translation has only ${T} steps: the quiz starts at its last step.`);
  assert.equal(await page.textContent(`${CARD} .as-quiz-counter`), 'Step 1 of 1', 'one step left to play');
  assert.match(await page.textContent(`${CARD} .as-quiz-sofar`), soFar(m.rows.slice(0, -1)), 'the words before it are given');
  await page.locator(`${CARD} .as-quiz-src`).first().click();
  await page.locator(`${CARD} .as-quiz-word`).first().click();
  await page.click(`${CARD} .as-quiz-reveal`);
  await page.click(`${CARD} .as-quiz-next`);
  await page.waitForSelector(`${CARD}[data-phase="done"]`);
  assert.equal(await page.$$eval(`${CARD} .as-quiz-table tbody tr`, (trs) => trs.length), 1);

  // quiz=0 is no quiz: the page as usual.
  await page.goto('about:blank');
  await page.goto(quizUrl({ quiz: '0' }));
  await page.waitForSelector(`${CARD}[data-phase="off"]`, { timeout: 90_000 });
  await page.waitForSelector('#app .as-root[data-ready="true"]', { timeout: 90_000 });
  assert.equal(await page.locator('#app .as-heat-card').isVisible(), true);
  assert.equal(await page.locator('#app .as-notice [data-topic^="quiz"]').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test('on a phone (360 px): tap to play, nothing overflows, axe is content', async () => {
  const { page, context, errors } = await openPage(env.browser, { viewport: PHONE, isMobile: true });
  await openQuiz(page, { quiz: 'source+word' });
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
  assert.ok(await overflow() <= 0, 'no sideways scrolling while asking');
  const card = await page.locator(CARD).boundingBox();
  assert.ok(card.y < 740, 'the quiz is on the first screen, under the sentence');
  const small = await page.$$eval(`${CARD} .as-quiz-src, ${CARD} .as-quiz-word, ${CARD} .as-quiz-reveal`, (els) => els.map((e) => e.getBoundingClientRect()).filter((r) => r.height < 32 || r.width < 32).length);
  assert.equal(small, 0, 'touch targets of at least 32 px');
  await axe(page, 'quiz asking, phone');
  await page.locator(CARD).screenshot({ path: path.join(ARTIFACTS, 'quiz-phone-ask.png') });
  const m = await pageMatrix(page);
  for (const [r, row] of m.alpha.entries()) {
    await page.locator(`${CARD} .as-quiz-src`).nth(argmaxOf(row)).tap();
    await page.locator(`${CARD} .as-quiz-words`).getByRole('radio', { name: m.rows[r], exact: true }).tap();
    await page.locator(`${CARD} .as-quiz-reveal`).tap();
    if (r === 0) {
      await revealed(page);
      assert.ok(await overflow() <= 0, 'no sideways scrolling with the bars shown');
      await page.locator(CARD).screenshot({ path: path.join(ARTIFACTS, 'quiz-phone-reveal.png') });
    }
    await page.locator(`${CARD} .as-quiz-next`).tap();
  }
  await page.waitForSelector(`${CARD}[data-phase="done"]`);
  assert.ok(await overflow() <= 0, 'the summary’s table scrolls in its own box');
  await axe(page, 'quiz summary, phone');
  await page.locator(CARD).screenshot({ path: path.join(ARTIFACTS, 'quiz-phone-summary.png') });
  assert.deepEqual(errors, []);
  await context.close();
});
