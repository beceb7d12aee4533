// alignscope.js - <align-scope>: the widget as a custom element for course pages.
//
//   <script type="module" src="https://example.org/alignscope/alignscope.js"></script>
//   <align-scope sentence="Open the file" scale="1" step="0" view="heatmap" colour="row"></align-scope>
//
// Each element has a shadow root (scoped CSS), its own worker and its own
// state, so several can live on one page. Attributes are validated exactly
// like a shared link; an invalid value is left out and said under the
// sentence (the valid rest applies). ui-lang="de" sets the
// UI language (en, fr, de, es; else the browser's): one per document, so
// elements on one page share it.
//
// Events (bubbling, composed; typed in npm/alignscope.d.ts):
//   alignscope-result  detail { sentence, translation, model }   a new translation is shown
//   alignscope-error   detail { stage, message }                 loading or translating failed

import { mountAlignscope } from './ui.js';
import { parseShareParams } from './state.js';
import { VIEWS } from './config.js';
import { hasUiLanguage, loadUiLanguage, pickUiLanguage, browserLanguages } from './i18n/index.js';

const STYLESHEET = new URL('alignscope.css', import.meta.url);
// beam="1": greedy decoding (default: a beam of DEFAULT_BEAM_WIDTH), lp: its length penalty; as a link's beam= and lp=.
const ATTRS = ['sentence', 'model', 'scale', 'step', 'view', 'colour', 'pieces', 'compare', 'theme', 'ui-lang', 'beam', 'lp'];

// Attribute -> link key. The values go to parseShareParams as they are (no
// link string in between, so a huge sentence is cut and said, and the other
// attributes still apply); its notices name the attributes.
const KEYS = { sentence: 's', model: 'm', scale: 'scale', step: 'step', view: 'view', colour: 'colour', pieces: 'pieces', compare: 'vs', 'ui-lang': 'uilang', beam: 'beam', lp: 'lp' };
const NAMES = Object.fromEntries(Object.entries(KEYS).map(([attr, key]) => [key, attr]));

function attrsToState(el) {
  const p = new URLSearchParams();
  for (const [attr, key] of Object.entries(KEYS)) {
    const v = el.getAttribute(attr);
    if (v !== null) p.set(key, v);
  }
  return parseShareParams(p, { names: NAMES });
}

export class AlignScopeElement extends HTMLElement {
  static get observedAttributes() { return ATTRS; }

  #app = null;
  #mountedView = null;
  #askedLanguage = null;

  connectedCallback() {
    if (this.#app) return;
    // The cards are built in the UI language: its strings first, where they are not here yet (i18n/core.js).
    const lang = pickUiLanguage(this.getAttribute('ui-lang'), browserLanguages());
    if (!hasUiLanguage(lang) && this.#askedLanguage !== lang) {
      this.#askedLanguage = lang;
      loadUiLanguage(lang).catch(() => { /* English, then */ }).then(() => { if (this.isConnected && !this.#app) this.connectedCallback(); });
      return;
    }
    const shadow = this.shadowRoot ?? this.attachShadow({ mode: 'open' });
    shadow.replaceChildren();
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = STYLESHEET.href;
    const host = document.createElement('div');
    host.className = 'as-host';
    shadow.append(link, host);
    const initial = attrsToState(this);
    const view = VIEWS.includes(initial.view) ? initial.view : 'full';
    this.#mountedView = view;
    this.#app = mountAlignscope(host, {
      view,
      initial: { ...initial, view },
      syncUrl: false,
      theme: this.getAttribute('theme'),
    });
    const emit = (type, detail) => this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
    this.#app.store.subscribe((st, changed) => {
      if (changed.has('trace') && st.trace) emit('alignscope-result', { sentence: st.trace.text, translation: st.trace.translation, model: st.model });
      if (changed.has('error') && st.error) emit('alignscope-error', { stage: st.error.stage, message: st.error.message });
    });
  }

  disconnectedCallback() {
    this.#app?.destroy();
    this.#app = null;
  }

  attributeChangedCallback(name) {
    if (!this.#app) return;
    if (name === 'theme') { this.#app.setTheme(this.getAttribute('theme')); return; }
    const st = attrsToState(this);
    if (name === 'view' && st.view && st.view !== this.#mountedView) {
      // A different layout: rebuild.
      this.disconnectedCallback();
      this.connectedCallback();
      return;
    }
    this.#app.setState(st);
  }

  /** The current state as a link to the full page. */
  get shareLink() { return this.#app?.shareLink() ?? ''; }
}

if (!customElements.get('align-scope')) customElements.define('align-scope', AlignScopeElement);
