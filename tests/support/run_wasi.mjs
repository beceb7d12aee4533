// Runs a WASI command module (a C program built by clang-19 for
// wasm32-wasi, e.g. build/wasm/kernels_test_relaxed.wasm) under Node's WASI:
//   node --experimental-wasm-relaxed-simd tests/support/run_wasi.mjs FILE.wasm [ARGS...]
// Its stdout and stderr are this process's, its exit status this one's.
import { readFileSync } from 'node:fs';
import { WASI } from 'node:wasi';

const [file, ...args] = process.argv.slice(2);
if (!file) {
  console.error('usage: run_wasi.mjs FILE.wasm [ARGS...]');
  process.exit(2);
}
const wasi = new WASI({ version: 'preview1', args: [file, ...args], env: {}, returnOnExit: true });
const module = await WebAssembly.compile(readFileSync(file));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
process.exitCode = wasi.start(instance);
