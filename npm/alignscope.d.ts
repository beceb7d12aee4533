// Types of alignscope/element (web/alignscope.js): the <align-scope> custom element.

/** The element's attributes (README, "A custom element"). Invalid values are ignored. */
export interface AlignScopeAttributes {
  /** The English sentence, at most 2000 characters. */
  sentence?: string;
  /** A model id of the site's models/index.json; absent: its default. */
  model?: string;
  /** The softmax divisor as a multiple of the model's trained divisor, 0.0625 … 64. */
  scale?: string;
  /** The decoder step shown (0 = first word). */
  step?: string;
  view?: 'heatmap' | 'steps' | 'full';
  colour?: 'absolute' | 'row';
  pieces?: '0' | '1';
  /** Up to 3 model ids shown beside this one, comma-separated (view="full" only). */
  compare?: string;
  theme?: 'light' | 'dark';
  /** The language of the element's own words: 'en', 'fr', 'de' or 'es' (default: the browser's, else English). */
  'ui-lang'?: 'en' | 'fr' | 'de' | 'es';
  /** Beam width 1 … 8: '1' decodes greedily; absent: a beam of the engine's DEFAULT_BEAM_WIDTH (5). */
  beam?: string;
  /** The beam's length penalty X (hypotheses ranked by log p / T^X), 0 … 4; absent: DEFAULT_LENGTH_PENALTY (1). */
  lp?: string;
}

export interface AlignScopeResultDetail { sentence: string; translation: string; model: string }
export interface AlignScopeErrorDetail { stage: string; message: string }

export interface AlignScopeEventMap extends HTMLElementEventMap {
  'alignscope-result': CustomEvent<AlignScopeResultDetail>;
  'alignscope-error': CustomEvent<AlignScopeErrorDetail>;
}

export declare class AlignScopeElement extends HTMLElement {
  static readonly observedAttributes: (keyof AlignScopeAttributes)[];
  /** The current view as a link to the full page. */
  readonly shareLink: string;
  addEventListener<K extends keyof AlignScopeEventMap>(type: K, listener: (this: AlignScopeElement, ev: AlignScopeEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}

declare global {
  interface HTMLElementTagNameMap { 'align-scope': AlignScopeElement }
}
