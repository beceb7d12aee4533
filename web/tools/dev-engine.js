// dev-engine.js - a plain-JavaScript stand-in for web/engine.js, with the
// same API, used ONLY while the WebAssembly engine is not built yet
// (`node web/tools/serve.mjs --dev-engine` serves it as /engine.js when
// web/engine.js is missing). It follows models/FORMAT.md §4-5 directly and
// doubles as a readable cross-check of the computation. Not shipped by dist.

const KINDS = ['none', 'additive', 'dot', 'general', 'scaled_dot'];

export class AlignscopeError extends Error {
  constructor(message, code = 'error', status = -1) { super(message); this.code = code; this.status = status; }
}
export function simdSupported() { return false; }

function f16(h) {
  const s = h & 0x8000 ? -1 : 1; const e = (h >> 10) & 31; const m = h & 1023;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

function parse(bytes) {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = new TextDecoder().decode(bytes.subarray(0, 8));
  if (magic !== 'ALNSCOPE') throw new AlignscopeError('not an alignscope model file', 'bad_magic', 3);
  const u = (o) => dv.getUint32(o, true);
  const cfg = { version: u(8), kind: KINDS[u(16)], wt: u(20), Vs: u(24), Vt: u(28), E: u(32), He: u(36), Hd: u(40), A: u(44), O: u(48), maxS: u(52), maxT: u(56), trained: dv.getFloat32(60, true), vocabBytes: u(64), tensorBytes: u(68) };
  const lang = (o) => new TextDecoder().decode(bytes.subarray(o, o + 8)).replace(/\0+$/, '');
  cfg.src = lang(76); cfg.tgt = lang(84);
  const dec = new TextDecoder();
  let off = 96;
  const readVocab = (n) => { const v = []; for (let i = 0; i < n; i++) { const len = bytes[off]; v.push(dec.decode(bytes.subarray(off + 1, off + 1 + len))); off += 1 + len; } return v; };
  const srcVocab = readVocab(cfg.Vs); const tgtVocab = readVocab(cfg.Vt);
  off = (96 + cfg.vocabBytes + 3) & ~3;
  const { Vs, Vt, E, He, Hd, A, O, kind } = cfg;
  const shapes = [['src_emb', Vs * E]];
  for (const d of ['f', 'b']) shapes.push([`${d}_wih`, 3 * He * E], [`${d}_whh`, 3 * He * He], [`${d}_bih`, 3 * He], [`${d}_bhh`, 3 * He]);
  shapes.push(['init_w', Hd * He], ['init_b', Hd]);
  if (kind === 'additive') shapes.push(['wq', A * Hd]);
  if (kind === 'additive' || kind === 'general') shapes.push(['wk', A * 2 * He]);
  if (kind === 'additive') shapes.push(['v', A]);
  shapes.push(['tgt_emb', Vt * E], ['d_wih', 3 * Hd * (E + 2 * He)], ['d_whh', 3 * Hd * Hd], ['d_bih', 3 * Hd], ['d_bhh', 3 * Hd], ['out_w', O * (Hd + 2 * He + E)], ['out_b', O], ['proj_w', Vt * O], ['proj_b', Vt]);
  const W = {}; let count = 0;
  for (const [name, n] of shapes) {
    const a = new Float32Array(n);
    for (let i = 0; i < n; i++) { a[i] = cfg.wt === 1 ? f16(dv.getUint16(off, true)) : dv.getFloat32(off, true); off += cfg.wt === 1 ? 2 : 4; }
    W[name] = a; count += n;
  }
  return { cfg, srcVocab, tgtVocab, W, count };
}

const FOLD = { 0xa0: ' ', 0x2007: ' ', 0x2009: ' ', 0x202f: ' ', 0x200b: ' ', 0x2018: "'", 0x2019: "'", 0x201b: "'", 0x2bc: "'", 0x60: "'", 0xb4: "'", 0x201c: '"', 0x201d: '"', 0x201e: '"', 0xab: '"', 0xbb: '"', 0x2026: '...', 0x2013: '-', 0x2014: '-', 0x2212: '-' };
function fold(cp) {
  if (cp in FOLD) return FOLD[cp];
  if (cp < 0x20 || cp === 0x7f) return ' ';
  if ((cp >= 0x41 && cp <= 0x5a) || (cp >= 0xc0 && cp <= 0xde && cp !== 0xd7)) return String.fromCodePoint(cp + 0x20);
  if (cp === 0x152) return '\u0153';
  if (cp === 0x178) return '\u00ff';
  return String.fromCodePoint(cp);
}
function isWord(cp) {
  if (cp < 0x80) return (cp >= 0x30 && cp <= 0x39) || (cp >= 0x61 && cp <= 0x7a) || (cp >= 0x41 && cp <= 0x5a);
  if (cp < 0xc0 || cp === 0xd7 || cp === 0xf7) return false;
  return !((cp >= 0x2000 && cp <= 0x2bff) || (cp >= 0x3000 && cp <= 0x303f));
}
export function tokenize(text) {
  const toks = []; let cur = ''; let start = 0; let i = 0;
  for (const ch of text) {
    const len = ch.length;
    for (const f of fold(ch.codePointAt(0))) {
      const cp = f.codePointAt(0);
      if (isWord(cp)) { if (!cur) start = i; cur += f; continue; }
      if (cur) { toks.push({ token: cur, start, end: i }); cur = ''; }
      if (f !== ' ') toks.push({ token: f, start: i, end: i + len });
    }
    i += len;
  }
  if (cur) toks.push({ token: cur, start, end: text.length });
  return toks;
}

const NSB = new Set(",.)]}%'-/".split('')); const NSA = new Set("([{'-/".split(''));
function detok(words) { let out = ''; words.forEach((w, i) => { if (i > 0 && !NSB.has(w) && !NSA.has(words[i - 1])) out += ' '; out += w; }); return out; }

function matvec(W, x, rows, cols, out, bias, acc = false) {
  for (let r = 0; r < rows; r++) { let s = bias ? bias[r] : 0; const o = r * cols; for (let c = 0; c < cols; c++) s += W[o + c] * x[c]; out[r] = acc ? out[r] + s : s; }
  return out;
}
const sig = (x) => 1 / (1 + Math.exp(-x));
function gru(wih, whh, bih, bhh, x, h, H, I) {
  const gi = matvec(wih, x, 3 * H, I, new Float32Array(3 * H), bih);
  const gh = matvec(whh, h, 3 * H, H, new Float32Array(3 * H), bhh);
  const out = new Float32Array(H);
  for (let k = 0; k < H; k++) {
    const r = sig(gi[k] + gh[k]); const z = sig(gi[H + k] + gh[H + k]);
    const n = Math.tanh(gi[2 * H + k] + r * gh[2 * H + k]);
    out[k] = (1 - z) * n + z * h[k];
  }
  return out;
}

export async function createEngine() {
  let m = null;
  return {
    load(bytes) {
      m = parse(bytes);
      const c = m.cfg;
      return { attention: c.kind, sourceLanguage: c.src, targetLanguage: c.tgt, srcVocabSize: c.Vs, tgtVocabSize: c.Vt, embedDim: c.E, encoderHidden: c.He, decoderHidden: c.Hd, attentionDim: c.A, keyDim: c.kind === 'additive' ? c.A : c.kind === 'general' ? c.Hd : 2 * c.He, outputDim: c.O, maxSourceTokens: c.maxS, maxTargetTokens: c.maxT, trainedScoreScale: c.trained, parameterCount: m.count, weightType: c.wt ? 'f16' : 'f32', formatVersion: c.version };
    },
    translate(text, { scoreScale, topK = 5 } = {}) {
      const t0 = performance.now();
      const { cfg: c, W } = m; const { E, He, Hd, A, O, Vt, kind } = c;
      const toks = tokenize(text);
      if (!toks.length) throw new AlignscopeError('the text has no tokens', 'empty_input', 12);
      if (toks.length > c.maxS) throw new AlignscopeError(`more source tokens than the model allows (${toks.length} > ${c.maxS})`, 'input_too_long', 13);
      const scale = scoreScale > 0 ? scoreScale : c.trained;
      const ids = toks.map((t) => { const i = m.srcVocab.indexOf(t.token); return i < 0 ? 1 : i; });
      const S = ids.length; const D = 2 * He;
      const emb = (tab, id) => tab.subarray(id * E, (id + 1) * E);
      const fw = []; const bw = new Array(S);
      let h = new Float32Array(He);
      for (let j = 0; j < S; j++) { h = gru(W.f_wih, W.f_whh, W.f_bih, W.f_bhh, emb(W.src_emb, ids[j]), h, He, E); fw.push(h); }
      h = new Float32Array(He);
      for (let j = S - 1; j >= 0; j--) { h = gru(W.b_wih, W.b_whh, W.b_bih, W.b_bhh, emb(W.src_emb, ids[j]), h, He, E); bw[j] = h; }
      const Hs = fw.map((f, j) => { const v = new Float32Array(D); v.set(f); v.set(bw[j], He); return v; });
      let s = matvec(W.init_w, bw[0], Hd, He, new Float32Array(Hd), W.init_b).map(Math.tanh);
      const keys = Hs.map((hj) => kind === 'additive' ? matvec(W.wk, hj, A, D, new Float32Array(A)) : kind === 'general' ? matvec(W.wk, hj, Hd, D, new Float32Array(Hd)) : hj);
      const maxT = Math.min(2 * S + 10, c.maxT);
      const out = { ids: [], alpha: [], scores: [], ctx: [], state: [], topIds: [], topProbs: [] };
      let y = 2;
      for (let t = 0; t < maxT; t++) {
        let ctx; let e = null; let a = null;
        if (kind === 'none') { ctx = new Float32Array(D); ctx.set(fw[S - 1]); ctx.set(bw[0], He); }
        else {
          e = new Float32Array(S);
          if (kind === 'additive') { const q = matvec(W.wq, s, A, Hd, new Float32Array(A)); for (let j = 0; j < S; j++) { let z = 0; for (let k = 0; k < A; k++) z += W.v[k] * Math.tanh(q[k] + keys[j][k]); e[j] = z; } }
          else for (let j = 0; j < S; j++) { let z = 0; for (let k = 0; k < Hd; k++) z += s[k] * keys[j][k]; e[j] = z; }
          const mx = Math.max(...e.map((v) => v * scale)); a = e.map((v) => Math.exp(v * scale - mx)); const sum = a.reduce((p, q) => p + q, 0); a = a.map((v) => v / sum);
          ctx = new Float32Array(D); for (let j = 0; j < S; j++) for (let k = 0; k < D; k++) ctx[k] += a[j] * Hs[j][k];
        }
        const ye = emb(W.tgt_emb, y); const xin = new Float32Array(E + D); xin.set(ye); xin.set(ctx, E);
        s = gru(W.d_wih, W.d_whh, W.d_bih, W.d_bhh, xin, s, Hd, E + D);
        const oin = new Float32Array(Hd + D + E); oin.set(s); oin.set(ctx, Hd); oin.set(ye, Hd + D);
        const o = matvec(W.out_w, oin, O, Hd + D + E, new Float32Array(O), W.out_b).map(Math.tanh);
        const logits = matvec(W.proj_w, o, Vt, O, new Float32Array(Vt), W.proj_b);
        const mx = Math.max(...logits); const p = logits.map((v) => Math.exp(v - mx)); const ps = p.reduce((q, r) => q + r, 0);
        const order = [...p.keys()].sort((i, j) => p[j] - p[i]).slice(0, topK);
        y = order[0];
        out.ids.push(y); out.alpha.push(a); out.scores.push(e); out.ctx.push(ctx); out.state.push(s);
        out.topIds.push(order); out.topProbs.push(order.map((i) => p[i] / ps));
        if (y === 3) break;
      }
      const T = out.ids.length;
      const flat = (arrs, n) => { const f = new Float32Array(T * n); arrs.forEach((r, i) => r && f.set(r, i * n)); return f; };
      const alpha = kind === 'none' ? null : flat(out.alpha, S);
      const target = out.ids.map((id, t) => {
        let copiedFrom = -1; let word = m.tgtVocab[id];
        if (id === 1 && alpha) { let b = 0; for (let j = 1; j < S; j++) if (alpha[t * S + j] > alpha[t * S + b]) b = j; copiedFrom = b; word = text.slice(toks[b].start, toks[b].end); }
        return { text: id === 3 ? '' : word, token: m.tgtVocab[id], id, copiedFrom, isEnd: id === 3 };
      });
      let translation = detok(target.filter((x) => !x.isEnd).map((x) => x.text));
      if (/^\p{Lu}/u.test(text.trim()) && translation) translation = translation[0].toUpperCase() + translation.slice(1);
      return {
        text, translation, scoreScale: scale, encoderReused: false, elapsedMs: performance.now() - t0,
        source: toks.map((tk, j) => ({ text: text.slice(tk.start, tk.end), token: tk.token, id: ids[j], unknown: ids[j] === 1, start: tk.start, end: tk.end })),
        target, S, T, alpha, scores: flat(out.scores, S), context: flat(out.ctx, D), contextDim: D, state: flat(out.state, Hd), stateDim: Hd,
        topK, topIds: Int32Array.from(out.topIds.flat()), topProbs: Float32Array.from(out.topProbs.flat()), topTokens: out.topIds.map((r) => r.map((i) => m.tgtVocab[i])), stoppedAtEos: out.ids[T - 1] === 3,
      };
    },
    memoryBytes() { return 0; },
    dispose() { m = null; },
  };
}
