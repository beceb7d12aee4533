// The relaxed-SIMD build in Chromium, where it is meant to run (Node 20's
// V8 validates relaxed SIMD but computes i32x4.relaxed_dot_i8x16_i7x16_add_s
// wrongly, so engine.js refuses the build there; tests/engine.test.mjs):
//   - the kernel tests with the relaxed twins (build/wasm/kernels_test_relaxed.wasm,
//     a WASI command, under a minimal WASI of this file);
//   - parity with PyTorch on every fixture (test models and models/fixtures)
//     for the relaxed, SIMD128 and scalar builds, each loaded in the page:
//     the same tokens as PyTorch, alpha within 1e-4 (int8 files 5e-4);
//   - the page picks the relaxed build and says so; with relaxed SIMD hidden
//     (WebAssembly.validate answering false for it, in an init script) it
//     runs SIMD128, with all SIMD hidden the scalar build, each saying which,
//     with the same translation;
//   - forced decoding (engine.forceScore) in every build.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../support/chromium.mjs';
import { startServer } from '../../web/tools/serve.mjs';
import { assemble } from '../../web/tools/assemble.mjs';
import { TOLERANCES, alphaRowTolerance, fixtureFiles } from '../support/alsc.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const WEB = path.join(REPO, 'web');
const READY = '#app .as-root[data-ready="true"]';
const SENTENCE = 'Delete all messages in this folder';

let server;
let browser;

before(async () => {
  assemble({ quiet: true });
  server = await startServer({
    root: WEB, port: 0,
    mounts: { '/test-build/': path.join(REPO, 'build'), '/repo-models/': path.join(REPO, 'models') },
  });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** A page of the test server's origin (engine.js, the builds and the models fetchable). */
async function blankPage() {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(new URL("models/index.json", server.url).href);
  return { page, context };
}

/** Repo path -> the test server's URL path. */
function served(file) {
  const rel = path.relative(REPO, file).split(path.sep).join('/');
  if (rel.startsWith('build/')) return `/test-build/${rel.slice('build/'.length)}`;
  if (rel.startsWith('models/')) return `/repo-models/${rel.slice('models/'.length)}`;
  throw new Error(`not served: ${rel}`);
}

test('Chromium runs the relaxed twins: kernel tests against the scalar twins', async () => {
  const { page, context } = await blankPage();
  // A WASI of the six calls the C test program makes: output, exit, no arguments.
  const result = await page.evaluate(async (url) => {
    const bytes = await (await fetch(url)).arrayBuffer();
    let memory;
    let out = '';
    class Exit { constructor(code) { this.code = code; } }
    const decoder = new TextDecoder();
    const wasi = {
      args_sizes_get(argc, size) { const v = new DataView(memory.buffer); v.setUint32(argc, 0, true); v.setUint32(size, 0, true); return 0; },
      args_get() { return 0; },
      fd_write(fd, iovs, count, written) {
        const v = new DataView(memory.buffer);
        let n = 0;
        for (let i = 0; i < count; i++) {
          const ptr = v.getUint32(iovs + 8 * i, true), len = v.getUint32(iovs + 8 * i + 4, true);
          out += decoder.decode(new Uint8Array(memory.buffer, ptr, len));
          n += len;
        }
        v.setUint32(written, n, true);
        return 0;
      },
      fd_close() { return 0; },
      fd_seek() { return 70; }, // ESPIPE: stdout is not seekable
      fd_fdstat_get(fd, stat) { new Uint8Array(memory.buffer, stat, 24).fill(0); new DataView(memory.buffer).setUint8(stat, 2); return 0; },
      proc_exit(code) { throw new Exit(code); },
    };
    const { instance } = await WebAssembly.instantiate(bytes, { wasi_snapshot_preview1: wasi });
    memory = instance.exports.memory;
    let code = 0;
    try { instance.exports._start(); } catch (e) { if (e instanceof Exit) code = e.code; else throw e; }
    return { code, out };
  }, served(path.join(REPO, 'build', 'wasm', 'kernels_test_relaxed.wasm')));
  await context.close();
  for (const line of result.out.split('\n').filter((l) => /relx|relaxed/.test(l))) console.log(`# chromium: ${line}`);
  assert.equal(result.code, 0, result.out);
  assert.match(result.out, /isa=wasmrelaxed /);
  assert.match(result.out, /^twin:i8_matvec_q8c4\s+relx-scal\s+max_err=0\.000e\+00 .* ok$/m);
  assert.match(result.out, /^twin:matvec_p24\s+relx-scal\s.* ok$/m);
  assert.match(result.out, /^matvec_p24_batch\s+relaxed\s.* ok$/m);
  assert.match(result.out, /RESULT PASS/);
});

describe('parity with PyTorch in Chromium, every build', () => {
  const fixtures = fixtureFiles().filter((f) => fs.existsSync(f.fixture) && fs.existsSync(f.model));
  for (const variant of ['relaxed', 'simd', 'scalar']) {
    test(`${variant}: tokens as PyTorch, alpha within tolerance, on ${fixtures.length} fixture files`, async () => {
      const { page, context } = await blankPage();
      const worst = {};
      for (const f of fixtures) {
        const fx = JSON.parse(fs.readFileSync(f.fixture, 'utf8'));
        const got = await page.evaluate(async ({ variant, modelUrl, cases }) => {
          const { createEngine } = await import('/engine.js');
          const engine = await createEngine({ variant });
          const info = engine.load(new Uint8Array(await (await fetch(modelUrl)).arrayBuffer()));
          const out = cases.map((c) => {
            const r = engine.translate(c.text, { scoreScale: c.score_scale, topK: 5 });
            return { ids: Array.from(r.target, (t) => t.id), alpha: r.alpha ? Array.from(r.alpha) : null, scores: r.scores ? Array.from(r.scores) : null, S: r.S };
          });
          engine.dispose();
          return { build: info.build, isa: info.isa, out };
        }, { variant, modelUrl: served(f.model), cases: fx.cases.map((c) => ({ text: c.text, score_scale: c.score_scale })) });
        assert.equal(got.build, variant);
        const tol = (TOLERANCES[fx.weights] ?? TOLERANCES.default).alpha;
        let w = 0;
        fx.cases.forEach((c, i) => {
          const g = got.out[i];
          assert.deepEqual(g.ids, c.target_ids, `${f.name} ${variant} "${c.text}": tokens`);
          c.alpha.forEach((row, t) => {
            const bound = alphaRowTolerance(tol, row, c.scores[t], g.scores.slice(t * g.S, (t + 1) * g.S), c.score_scale);
            row.forEach((a, j) => {
              const d = Math.abs(g.alpha[t * g.S + j] - a);
              w = Math.max(w, d);
              assert.ok(d <= bound[j], `${f.name} ${variant} "${c.text}" alpha[${t}][${j}] ${g.alpha[t * g.S + j]} vs ${a} (allowed ${bound[j].toExponential(2)})`);
            });
          });
        });
        worst[f.name] = w.toExponential(2);
      }
      await context.close();
      console.log(`# ${variant} in Chromium, max |alpha - alpha_torch|: ${JSON.stringify(worst)}`);
    });
  }
});

// Forced decoding (engine.forceScore) in each build: the greedy output
// scored unmasked is the width-1 beam's step log-probabilities bit for bit,
// and under a window of half width 1 the relaxed build's log p and alpha are
// the SIMD128 build's within the PyTorch tolerances (tests/forced.test.mjs
// holds the SIMD128 and scalar builds to PyTorch in Node, which cannot run
// the relaxed build).
test('forced decoding in Chromium: each build agrees with its beam, relaxed with SIMD128', async () => {
  const { page, context } = await blankPage();
  const models = ['additive', 'dot', 'general', 'scaled_dot', 'none', 'additive-int8', 'subwords']
    .map((k) => path.join(REPO, 'build', 'test-models', `${k}.alsc`)).filter((f) => fs.existsSync(f));
  if (fs.existsSync(path.join(REPO, 'models', 'en-fr.alsc'))) models.push(path.join(REPO, 'models', 'en-fr.alsc'));
  let worst = 0;
  for (const model of models) {
    const got = await page.evaluate(async ({ modelUrl, text }) => {
      const { createEngine } = await import('/engine.js');
      const bytes = new Uint8Array(await (await fetch(modelUrl)).arrayBuffer());
      const out = {};
      for (const variant of ['relaxed', 'simd', 'scalar']) {
        const engine = await createEngine({ variant });
        const info = engine.load(bytes);
        const ids = engine.translate(text).target.map((t) => t.id);
        const beam = engine.beam(text, { beamWidth: 1 }).hypotheses[0];
        const plain = engine.forceScore(text, ids);
        const windowed = engine.forceScore(text, ids, { window: 1 });
        out[variant] = {
          weights: info.weightType, same: plain.logProbs.every((x, t) => x === beam.stepLogProbs[t]),
          logProbs: Array.from(windowed.logProbs), alpha: windowed.alpha ? Array.from(windowed.alpha) : null,
        };
        engine.dispose();
      }
      return out;
    }, { modelUrl: served(model), text: SENTENCE });
    const name = path.basename(model);
    const int8 = got.simd.weights === 'int8';
    for (const variant of ['relaxed', 'simd', 'scalar']) assert.ok(got[variant].same, `${name} ${variant}: forceScore vs beam 1`);
    got.relaxed.logProbs.forEach((x, t) => {
      const d = Math.abs(x - got.simd.logProbs[t]);
      worst = Math.max(worst, d);
      assert.ok(d <= (int8 ? 2e-3 : 1e-4), `${name}: relaxed log p at step ${t} ${x} vs SIMD128 ${got.simd.logProbs[t]}`);
    });
    (got.relaxed.alpha ?? []).forEach((a, i) => assert.ok(Math.abs(a - got.simd.alpha[i]) <= (int8 ? 5e-4 : 1e-4), `${name}: relaxed alpha[${i}]`));
  }
  await context.close();
  console.log(`# forced decoding, ${models.length} models: max |log p relaxed - log p simd| = ${worst.toExponential(2)}`);
});

// Init scripts that hide a feature from the page's feature detection: the
// relaxed probe (any module using a relaxed opcode, 0xfd 0x100..0x113), or
// every SIMD module (any 0xfd prefix: the probes are the only modules the
// page validates).
const HIDE = {
  relaxed: () => {
    const validate = WebAssembly.validate.bind(WebAssembly);
    WebAssembly.validate = (bytes) => {
      const b = new Uint8Array(bytes instanceof ArrayBuffer ? bytes : bytes.buffer);
      for (let i = 0; i + 2 < b.length; i++) if (b[i] === 253 && b[i + 1] >= 128 && b[i + 2] === 2) return false;
      return validate(bytes);
    };
  },
  simd: () => {
    const validate = WebAssembly.validate.bind(WebAssembly);
    WebAssembly.validate = (bytes) => (new Uint8Array(bytes instanceof ArrayBuffer ? bytes : bytes.buffer).includes(253) ? false : validate(bytes));
  },
};

describe('the page picks its build by feature detection and says which', () => {
  const seen = {};
  for (const [want, hide, words] of [['relaxed', null, 'relaxed SIMD build'], ['simd', 'relaxed', 'SIMD128 build'], ['scalar', 'simd', 'scalar (no SIMD) build']]) {
    test(`${hide ? `without ${hide === 'simd' ? 'any SIMD' : 'relaxed SIMD'}` : 'Chromium as it is'}: the ${want} build`, async () => {
      const context = await browser.newContext({ serviceWorkers: 'block' }); // the build's choice, not offline use (offline.test.mjs)
      if (hide) await context.addInitScript(HIDE[hide]);
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(new URL(`index.html#s=${encodeURIComponent(SENTENCE)}`, server.url).href);
      await page.waitForSelector(READY, { timeout: 60_000 });
      const perf = page.locator('#app .as-perf');
      assert.equal(await perf.getAttribute('data-build'), want);
      const text = await perf.textContent();
      assert.ok(text.includes(`(${words})`), `the page says which build runs: ${text}`);
      seen[want] = await page.locator('#app .as-translation').first().textContent();
      await page.screenshot({ path: path.join(REPO, 'tests', 'artifacts', `build-${want}.png`) });
      await context.close();
      assert.deepEqual(errors, []);
      if (seen.relaxed !== undefined) assert.equal(seen[want], seen.relaxed, 'the same translation in every build');
    });
  }
});
