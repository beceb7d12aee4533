#!/usr/bin/env bash
# build.sh - every flag and every mode of alignscope in one place.
#
#   ./build.sh deps     install what is missing (as root on Debian/Ubuntu), npm deps
#   ./build.sh native   gcc: build/native/alignscope (CLI) and native C test programs
#   ./build.sh wasm     emcc: web/gen/alignscope-{simd,scalar}.wasm, build/wasm/kernels_test.js
#   ./build.sh test     deps -> native -> wasm -> test models -> node --test tests/
#   ./build.sh serve    wasm -> web/models/ -> serve web/ on 127.0.0.1 (PORT=8000), prints the URL
#   ./build.sh dist     wasm -> dist/ (any static host) + dist/alignscope-standalone.html (file://)
#   ./build.sh model    corpus -> train -> export -> card -> models/index.json (LANG_PAIR, ATTENTION)
#
# Builds are skipped when the outputs are newer than every source (and this
# script); FORCE=1 rebuilds anyway. Add a mode: write mode_NAME and a case line.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$ROOT"

# The library without its front ends; kernels_wasmsimd.c is added per build.
LIB_SOURCES=(src/model.c src/tokenizer.c src/engine.c src/status.c src/kernels_scalar.c)
HEADERS=(src/*.h)
WARN_FLAGS=(-std=c99 -Wall -Wextra -Werror)
# No contraction into FMA anywhere: the scalar twin must compute the same
# function on every target, and wasm has no FMA to match.
FP_FLAGS=(-ffp-contract=off)
# Keeps the scalar twin truly scalar even in a -msimd128 build.
NO_AUTOVEC=(-fno-vectorize -fno-slp-vectorize)
# What engine.js calls (src/wasm_api.c), plus the allocator it uses.
WASM_EXPORTS=_asw_malloc,_asw_free,_asw_status_message,_asw_kernel_isa,_asw_load,_asw_unload,_asw_info,_asw_language,_asw_token,_asw_translate,_asw_trace,_asw_trace_score_scale,_asw_tokenize,_asw_tokens,_asw_source_count

TEST_MODELS=build/test-models
PYTHON=/usr/bin/python3

log() { printf '\033[1m[build]\033[0m %s\n' "$*"; }

# stale OUTPUT INPUT... : true if OUTPUT is missing or older than any input
# (or than this script, whose flags shape every output; STALE_SELF=0 drops that).
stale() {
    local out=$1; shift
    [[ "${FORCE:-0}" == 1 || ! -e "$out" ]] && return 0
    local f self=()
    [[ "${STALE_SELF:-1}" == 1 ]] && self=(build.sh)
    for f in "$@" "${self[@]}"; do [[ -e "$f" && "$f" -nt "$out" ]] && return 0; done
    return 1
}

# ---- deps ------------------------------------------------------------------
mode_deps() {
    local packages=(emscripten python3-torch libopenblas0-pthread chromium chromium-driver gcc clang)
    local missing=()
    if command -v dpkg-query >/dev/null 2>&1; then
        local p
        for p in "${packages[@]}"; do
            dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
        done
    else
        command -v emcc >/dev/null || missing+=(emscripten)
        command -v gcc >/dev/null || missing+=(gcc)
        command -v clang >/dev/null || missing+=(clang)
        "$PYTHON" -c 'import torch' 2>/dev/null || missing+=(python3-torch)
    fi
    command -v node >/dev/null || missing+=(nodejs)
    if ((${#missing[@]})); then
        if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
            log "installing: ${missing[*]}"
            apt-get update
            DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
        else
            log "missing packages: ${missing[*]}"
            log "install them with: sudo apt-get install ${missing[*]}"
            return 1
        fi
    fi
    # npm only when node_modules is missing or older than the manifests.
    if [[ -f package.json ]] && STALE_SELF=0 stale node_modules/.package-lock.json package.json package-lock.json; then
        log "npm dependencies"
        if [[ -f package-lock.json ]]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
    fi
}

# ---- native ----------------------------------------------------------------
mode_native() {
    mkdir -p build/native
    local cflags=("${WARN_FLAGS[@]}" "${FP_FLAGS[@]}" -O2)
    if stale build/native/alignscope "${LIB_SOURCES[@]}" src/cli.c "${HEADERS[@]}"; then
        log "native: build/native/alignscope"
        gcc "${cflags[@]}" -o build/native/alignscope src/cli.c "${LIB_SOURCES[@]}" -lm
    fi
    if stale build/native/kernels_test tests/c/kernels_test.c src/kernels_scalar.c "${HEADERS[@]}"; then
        log "native: build/native/kernels_test (scalar twin only)"
        gcc "${cflags[@]}" -o build/native/kernels_test tests/c/kernels_test.c src/kernels_scalar.c -lm
    fi
}

# ---- wasm ------------------------------------------------------------------
# Module format (deliberate): STANDALONE wasm with --no-entry, no Emscripten
# JS glue. Its only import is env.emscripten_notify_memory_growth (a no-op
# for us, engine.js re-reads memory.buffer after every call) and it exports
# `_initialize`, `memory` and the asw_* functions. One hand-written ES module,
# web/engine.js, can then instantiate it the same way in Node, browsers,
# Web Workers and file:// pages; Emscripten's glue (and -sEXPORT_ES6, which
# breaks under Node 20 with emcc 3.1.6) would tie us to its loader.
wasm_env() {
    command -v emcc >/dev/null || { log "emcc not found: run ./build.sh deps"; return 1; }
    export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}" # emcc's JS optimiser needs it (Debian)
    export EM_CACHE="${EM_CACHE:-$ROOT/build/emcache}"  # writable cache, system one may be root's
    if [[ ! -d "$EM_CACHE" ]]; then
        mkdir -p "$EM_CACHE"
        cp -r /usr/share/emscripten/cache/. "$EM_CACHE/" 2>/dev/null || true
    fi
}

# wasm_library simd|scalar : web/gen/alignscope-VARIANT.wasm from per-file objects.
wasm_library() {
    local variant=$1 out=web/gen/alignscope-$1.wasm objdir=build/wasm/$1
    local sources=("${LIB_SOURCES[@]}" src/wasm_api.c)
    local isa_flags=()
    if [[ $variant == simd ]]; then
        sources+=(src/kernels_wasmsimd.c)
        isa_flags=(-msimd128)
    else
        isa_flags=("${NO_AUTOVEC[@]}") # truly scalar: no SIMD in the whole module
    fi
    stale "$out" "${sources[@]}" "${HEADERS[@]}" || return 0
    log "wasm: $out"
    mkdir -p "$objdir" web/gen
    local objs=() src obj extra
    for src in "${sources[@]}"; do
        obj=$objdir/$(basename "${src%.c}").o
        extra=()
        [[ $src == src/kernels_scalar.c ]] && extra=("${NO_AUTOVEC[@]}")
        emcc "${WARN_FLAGS[@]}" "${FP_FLAGS[@]}" -O3 "${isa_flags[@]}" "${extra[@]}" -c "$src" -o "$obj"
        objs+=("$obj")
    done
    emcc -O3 "${isa_flags[@]}" -sSTANDALONE_WASM --no-entry -sALLOW_MEMORY_GROWTH=1 \
        -sINITIAL_MEMORY=16MB -sTOTAL_STACK=1MB \
        -sEXPORTED_FUNCTIONS="$WASM_EXPORTS" -o "$out" "${objs[@]}"
}

mode_wasm() {
    wasm_env
    wasm_library simd
    wasm_library scalar
    # Kernel tests with both twins in one module: Emscripten's ordinary
    # (non-ES6) output, run by `node build/wasm/kernels_test.js`. SINGLE_FILE
    # embeds the wasm: emcc 3.1.6's glue would otherwise try Node 20's fetch()
    # on a file path and fail.
    if stale build/wasm/kernels_test.js tests/c/kernels_test.c src/kernels_scalar.c src/kernels_wasmsimd.c "${HEADERS[@]}"; then
        log "wasm: build/wasm/kernels_test.js (scalar + wasmsimd twins)"
        mkdir -p build/wasm/kt
        emcc "${WARN_FLAGS[@]}" "${FP_FLAGS[@]}" -O3 -msimd128 "${NO_AUTOVEC[@]}" -c src/kernels_scalar.c -o build/wasm/kt/kernels_scalar.o
        emcc "${WARN_FLAGS[@]}" "${FP_FLAGS[@]}" -O3 -msimd128 -c src/kernels_wasmsimd.c -o build/wasm/kt/kernels_wasmsimd.o
        emcc "${WARN_FLAGS[@]}" "${FP_FLAGS[@]}" -O2 -msimd128 -c tests/c/kernels_test.c -o build/wasm/kt/kernels_test.o
        emcc -O2 -msimd128 -sALLOW_MEMORY_GROWTH=1 -sENVIRONMENT=node -sEXIT_RUNTIME=1 -sSINGLE_FILE=1 \
            -o build/wasm/kernels_test.js build/wasm/kt/*.o
    fi
    # Emscripten's output is CommonJS; the repo's package.json says "module".
    [[ -f build/wasm/package.json ]] || echo '{"type": "commonjs"}' >build/wasm/package.json
}

# ---- test models -----------------------------------------------------------
mode_models() {
    # Training is slow: only the trainer's sources matter, not this script.
    if STALE_SELF=0 stale $TEST_MODELS/none.parity.json models/train/*.py; then
        log "test models: $TEST_MODELS (smoke training, ~20 s)"
        OPENBLAS_NUM_THREADS=1 "$PYTHON" models/train/smoke.py "$TEST_MODELS"
    fi
}

# ---- web page --------------------------------------------------------------
# The logic lives in web/tools/*.mjs (plain Node, no dependencies).
mode_serve() {
    mode_wasm
    node web/tools/assemble.mjs
    node web/tools/serve.mjs --port "${PORT:-8000}"
}

mode_dist() {
    mode_wasm
    node web/tools/dist.mjs
}

# ---- model -----------------------------------------------------------------
# The whole recipe for a committed model, one command:
#   ./build.sh model                      en-fr, additive attention (the default model)
#   LANG_PAIR=de ATTENTION=dot ./build.sh model
# corpus (apt-get download of the pinned packages, cleaning, split) -> training
# (TRAIN_MINUTES of wall clock, 2 cores) -> export (f16) + parity fixtures ->
# model card -> models/index.json. Needs network access to Debian's archive.
mode_model() {
    local lang=${LANG_PAIR:-fr} kind=${ATTENTION:-additive}
    local id="en-$lang" run="models/train/runs/en-$lang-$kind"
    [[ $kind != additive ]] && id="en-$lang-$kind"
    "$PYTHON" -c 'import torch' 2>/dev/null || { log "python3-torch missing: run ./build.sh deps"; return 1; }
    log "model $id: corpus"
    "$PYTHON" models/train/corpus.py --lang "$lang"
    log "model $id: training (${TRAIN_MINUTES:-50} min budget)"
    OPENBLAS_NUM_THREADS=2 "$PYTHON" models/train/train.py --data "models/train/data/en-$lang" \
        --out "$run" --attention "$kind" --minutes "${TRAIN_MINUTES:-50}" --batch 96 --lr 2e-3
    log "model $id: export + parity fixtures"
    mkdir -p models/fixtures
    "$PYTHON" models/train/export.py "$run/checkpoint.pt" "models/$id.alsc" --languages "en,$lang" \
        --fixtures "models/fixtures/$id.parity.json" --sentences models/train/fixture_sentences.en.txt
    cp "$run/metrics.json" "models/$id.metrics.json"
    "$PYTHON" models/train/card.py --metrics "models/$id.metrics.json" \
        --corpus-stats "models/train/corpus_stats.$lang.json" --model "models/$id.alsc" --id "$id" \
        --out "models/$id.md"
    "$PYTHON" models/train/catalogue.py
}

# ---- test ------------------------------------------------------------------
mode_test() {
    mode_deps
    mode_native
    mode_wasm
    mode_models
    log "node --test tests/"
    node --test tests/
}

mode=${1:-native}
case "$mode" in
    deps) mode_deps ;;
    native) mode_native ;;
    wasm) mode_wasm ;;
    models) mode_models ;;
    test) mode_test ;;
    serve) mode_serve ;;
    dist) mode_dist ;;
    model) mode_model ;;
    *) echo "usage: $0 {deps|native|wasm|models|test|serve|dist|model}" >&2; exit 2 ;;
esac
