// formula.js - tiny maths typesetting without MathJax: `e_{tj} = v^{⊤} h_j`
// becomes text with <sub>/<sup> elements (built as DOM, never parsed as HTML).

import { h } from './dom.js';

/** Parse `_x`, `_{...}`, `^x`, `^{...}` into sub/sup nodes. */
export function formula(src, cls = 'as-formula') {
  return h('span', { class: cls }, parse(src));
}

function parse(src) {
  const out = [];
  let text = '';
  for (let i = 0; i < src.length; i++) {
    const ch = src[i];
    if ((ch === '_' || ch === '^') && i + 1 < src.length) {
      let body;
      if (src[i + 1] === '{') {
        const end = matchBrace(src, i + 1);
        body = src.slice(i + 2, end);
        i = end;
      } else {
        const cp = String.fromCodePoint(src.codePointAt(i + 1));
        body = cp;
        i += cp.length;
      }
      if (text) { out.push(text); text = ''; }
      out.push(h(ch === '_' ? 'sub' : 'sup', null, parse(body)));
    } else {
      text += ch;
    }
  }
  if (text) out.push(text);
  return out;
}

function matchBrace(s, open) {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === '{') depth++;
    else if (s[i] === '}' && --depth === 0) return i;
  }
  return s.length;
}
