// alignscope.css's page grid: every card's area is in each template of the
// full page, and no declaration stands outside a rule. A merge once left a
// second grid-template-areas line after its rule's "}": the browser read it
// as the selector of the next rule, dropped both, and the heat card fell into
// a 0-px column (found by tests/browser/lesson.test.mjs, not by a style check).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';

const css = fs.readFileSync(new URL('../../web/alignscope.css', import.meta.url), 'utf8').replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' ')); // comments blanked, lines kept

/** Where a "}" closes no open block (a declaration left after its rule's end, then that rule's
 * "}" a second time): the browser reads what follows as a rule's selector, up to the next "{". */
function strayBraces(text) {
  const stray = [];
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '{') depth += 1;
    else if (text[i] === '}') {
      if (depth === 0) stray.push(`line ${text.slice(0, i).split('\n').length}`);
      else depth -= 1;
    }
  }
  return { stray, open: depth };
}

test('every "}" closes a block, and every block is closed', () => {
  assert.deepEqual(strayBraces(css), { stray: [], open: 0 });
});

test('every card of the page grid has its area in each full-page template', () => {
  const areas = [...css.matchAll(/\.as-grid > \[data-area="([a-z]+)"\] \{ grid-area: ([a-z]+); \}/g)];
  assert.ok(areas.length >= 10, `found ${areas.length} card areas`);
  for (const [, attr, area] of areas) assert.equal(attr, area, `data-area="${attr}" is placed in its own grid area`);
  // The full page's templates: the base rule, the two-column one and the wide full view.
  const templates = [...css.matchAll(/(^|\n)\s*(?:\.as-grid|\.as-root\[data-view="full"\] \.as-grid) \{[^}]*grid-template-areas:([^;]*);/g)].map((m) => m[2]);
  assert.equal(templates.length, 3, 'three full-page templates');
  for (const template of templates) {
    const named = new Set(template.replace(/"/g, ' ').split(/\s+/).filter(Boolean));
    for (const [, area] of areas) assert.ok(named.has(area), `area ${area} in ${template.slice(0, 50)}…`);
  }
});
