// dom.js - build DOM without ever parsing strings as HTML.
//
// Every string child becomes a Text node (textContent semantics), so text
// that came from a user, a URL or a model can never become markup. There is
// no innerHTML anywhere in the page; keep it that way.

/** h('button', { class: 'x', onclick: fn, 'aria-label': 'Play' }, 'text', childNode) */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) setAttrs(el, attrs);
  append(el, children);
  return el;
}

/** Same as h() in the SVG namespace (for icons). */
export function svg(tag, attrs, ...children) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  if (attrs) for (const [k, v] of Object.entries(attrs)) if (v != null && v !== false) el.setAttribute(k, String(v));
  append(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [key, value] of Object.entries(attrs)) {
    if (value == null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2), value);
    } else if (key === 'class') {
      el.className = value;
    } else if (key === 'style' && typeof value === 'object') {
      // Style properties set from JS are allowed by a CSP without 'unsafe-inline'.
      for (const [p, v] of Object.entries(value)) el.style.setProperty(p, v);
    } else if (key === 'dataset') {
      Object.assign(el.dataset, value);
    } else if (key in el && typeof value !== 'string') {
      el[key] = value; // e.g. checked, value (number), disabled
    } else {
      el.setAttribute(key, value === true ? '' : String(value));
    }
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child == null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace all children of `el` (text stays text). */
export function replaceChildren(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

let idCounter = 0;
/** A document-unique id for label/aria wiring (several embeds on one page). */
export function uid(prefix = 'as') {
  idCounter += 1;
  return `${prefix}-${idCounter}-${Math.random().toString(36).slice(2, 7)}`;
}

/** Trigger a download of a Blob under `filename`. */
export function download(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** true when the user asked the system for less motion. */
export function prefersReducedMotion() {
  return typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
}
