#!/usr/bin/env bash
# build.sh - every flag and every mode of alignscope in one place.
#
#   ./build.sh deps     install what is missing (as root on Debian/Ubuntu), npm deps
#   ./build.sh native   gcc: build/native/alignscope (CLI) and native C test programs
#   ./build.sh wasm     emcc: web/gen/alignscope-{simd,scalar}.wasm, build/wasm/kernels_test.js;
#                       clang-19: web/gen/alignscope-relaxed.wasm, build/wasm/kernels_test_relaxed.wasm
#   ./build.sh test     deps -> native -> wasm -> bench build, beside test models -> fuzz and sanitizer builds -> node --test tests/
#   ./build.sh serve    wasm -> web/models/ -> serve web/ on 127.0.0.1 (PORT=8000), prints the URL
#   ./build.sh dist     wasm -> dist/ (any static host) + dist/alignscope-standalone.html (file://)
#   ./build.sh pack     wasm -> build/npm/ and build/alignscope-VERSION.tgz (the npm package)
#   ./build.sh model    corpus -> train -> export -> card -> models/index.json (LANG_PAIR, ATTENTION)
#   ./build.sh model-export   the same model files again from the trained run (no training)
#   ./build.sh zoo      the comparison models (all attention kinds, en-de, en-es) -> models/REPORT.md
#   ./build.sh ablate   the recipe's changes one at a time, ABLATE_UPDATES each: dev BLEU table
#   ./build.sh exercise the tutorial's seq2seq with and without dot attention, BLEU table, two .alsc
#                       (LANG_PAIR, EXERCISE_UPDATES, EXERCISE_MINUTES, EXERCISE_DATA, EXERCISE_OUT)
#   ./build.sh bench    wasm + bench programs -> tests/bench/results.{json,md} (args: --quick --no-browser)
#   ./build.sh fuzz     libFuzzer harnesses (clang, ASan + UBSan), FUZZ_SECONDS each (default 120)
#   ./build.sh sanitize tests/c programs under ASan + UBSan and valgrind memcheck
#   ./build.sh soak     SOAK_N translations (default 100000) in one wasm instance: memory before/after
#
# Builds are skipped when the outputs are newer than every source (and this
# script); FORCE=1 rebuilds anyway. Add a mode: write mode_NAME and a case line.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$ROOT"

# The library without its front ends; kernels_wasmsimd.c is added per build.
LIB_SOURCES=(src/model.c src/utf8.c src/tokenizer.c src/weights.c src/engine.c src/detokenize.c src/status.c src/kernels_scalar.c)
HEADERS=(src/*.h src/native/*.h)
WARN_FLAGS=(-std=c99 -Wall -Wextra -Werror)
# No contraction into FMA anywhere: the scalar twin must compute the same
# function on every target, and wasm has no FMA to match.
FP_FLAGS=(-ffp-contract=off)
# Keeps the scalar twin truly scalar even in a -msimd128 build.
NO_AUTOVEC=(-fno-vectorize -fno-slp-vectorize)
# Native builds of the SIMD twin: src/kernels_wasmsimd.c against the portable
# src/native/wasm_simd128.h (the CLI, the native bench, the native kernel test).
NATIVE_SIMD=(-DAS_SIMD128_SHIM -Isrc/native -march=native)
# What engine.js calls (src/wasm_api.c), plus the allocator it uses.
WASM_EXPORTS=_asw_malloc,_asw_free,_asw_status_message,_asw_kernel_isa,_asw_load,_asw_unload,_asw_info,_asw_language,_asw_token,_asw_translate,_asw_trace,_asw_trace_score_scale,_asw_tokenize,_asw_tokens,_asw_source_count,_asw_heap_bytes,_asw_translate_beam,_asw_hypothesis_count,_asw_hypothesis,_asw_select_hypothesis,_asw_dot_scores,_asw_force_score,_asw_force_error_position,_asw_source_positions,_asw_window_mask

TEST_MODELS=build/test-models
# Debian's python3 with python3-torch; ALIGNSCOPE_PYTHON names another (a GPU machine's PyTorch 2.x).
PYTHON=${ALIGNSCOPE_PYTHON:-/usr/bin/python3}
# OpenBLAS's kernels from the CPU's feature flags (models/train/openblas_core.py
# says why: Debian's OpenBLAS runs its SSE3 kernels on a CPU it does not know
# by model number, and every PyTorch update took 2.5x as long), exported for
# every Python this script starts, tests included. Before the deps step has
# installed Python, or where it names no kernels, OpenBLAS chooses.
openblas_core() {
    [[ -n ${OPENBLAS_CORETYPE:-} ]] && return 0
    command -v "$PYTHON" >/dev/null 2>&1 || return 0
    local core
    core=$("$PYTHON" models/train/openblas_core.py 2>/dev/null) || return 0
    [[ -n $core ]] && export OPENBLAS_CORETYPE=$core
    return 0
}
openblas_core

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
# Every mode names what it needs (the case at the end: `deps GROUP...`), and
# this one step installs what is missing of it: as root with apt-get, else
# it prints the exact apt-get line and fails before anything is built. When
# everything is there it costs a few `command -v` and one dpkg-query (no
# apt-get update). ALIGNSCOPE_NO_INSTALL=1 prints the line even as root.
DEPS_NATIVE=(gcc)
DEPS_WASM=(emscripten clang-19 lld-19 wasi-libc libclang-rt-19-dev-wasm32)
DEPS_TORCH=(python3-torch libopenblas0-pthread)
# xvfb and xdotool: a display for Chromium with a window, and real key
# presses on it (tests/browser/headed.test.mjs: Escape in a real full screen).
DEPS_BROWSER=(chromium chromium-driver xvfb xdotool)
DEPS_CHECKS=(clang libclang-rt-dev valgrind)
# lt-print: reads Apertium's compiled bilingual dictionaries (the corpus's
# @apertium source, models/train/dictionary_sources.py); mod2imp: reads SWORD
# Bible modules (@sword-bible, models/train/bible_sources.py).
DEPS_CORPUS=(lttoolbox-dev libsword-utils)

# dep_ok PACKAGE : PACKAGE is usable here. A package with a program is
# judged by that program on the PATH (what the build runs); a library by
# dpkg (DPKG_HAVE, filled once by deps), or not at all without dpkg.
dep_ok() {
    case $1 in
        emscripten) command -v emcc ;;
        chromium-driver) command -v chromedriver ;;
        lttoolbox-dev) command -v lt-print ;;
        libsword-utils) command -v mod2imp ;;
        xvfb) command -v Xvfb ;;
        lld-19) command -v wasm-ld-19 ;;
        wasi-libc) [[ -f /usr/lib/wasm32-wasi/libc.a ]] ;;
        gcc | clang | clang-19 | valgrind | chromium | xdotool) command -v "$1" ;;
        python3-torch)
            # Another Python (ALIGNSCOPE_PYTHON) brings its own PyTorch.
            if [[ -n ${ALIGNSCOPE_PYTHON:-} || -z ${DPKG_HAVE+x} ]]; then "$PYTHON" -c 'import torch'
            else [[ " $DPKG_HAVE " == *" $1 "* ]]; fi ;;
        *) [[ -z ${DPKG_HAVE+x} || " $DPKG_HAVE " == *" $1 "* ]] ;;
    esac >/dev/null 2>&1
}

# dpkg_have PACKAGE... : DPKG_HAVE = those of them dpkg has installed.
# dpkg-query exits 1 when a package was never installed: that is an answer,
# not an error (under errexit and pipefail it would end the script silently).
dpkg_have() {
    DPKG_HAVE=$({ dpkg-query -W -f='${Package} ${Status}\n' "$@" 2>/dev/null || true; } | sed -n 's/ install ok installed$//p' | tr '\n' ' ')
}

# deps GROUP... : native wasm torch corpus browser checks npm, or all.
DEPS_DONE=" "
deps() {
    local groups=("$@") g p packages=() missing=() npm=0
    [[ ${groups[0]:-} == all ]] && groups=(native wasm torch corpus browser checks npm)
    for g in "${groups[@]}"; do
        [[ $DEPS_DONE == *" $g "* ]] && continue
        DEPS_DONE+="$g "
        case $g in
            native) packages+=("${DEPS_NATIVE[@]}") ;;
            wasm) packages+=("${DEPS_WASM[@]}") ;;
            torch) packages+=("${DEPS_TORCH[@]}") ;;
            corpus) packages+=("${DEPS_CORPUS[@]}") ;;
            browser) packages+=("${DEPS_BROWSER[@]}") ;;
            checks) packages+=("${DEPS_CHECKS[@]}") ;;
            npm) npm=1 ;;
            *) log "deps: no group $g"; return 2 ;;
        esac
    done
    # npm only when node_modules is missing or older than the manifests.
    ((npm)) && [[ -f package.json ]] && STALE_SELF=0 stale node_modules/.package-lock.json package.json package-lock.json || npm=0
    ((npm)) && ! command -v npm >/dev/null && packages+=(npm)
    command -v node >/dev/null || packages+=(nodejs)
    if ((${#packages[@]})); then
        if command -v dpkg-query >/dev/null 2>&1; then
            dpkg_have "${packages[@]}"
        else
            unset DPKG_HAVE
        fi
        for p in "${packages[@]}"; do dep_ok "$p" || missing+=("$p"); done
    fi
    if ((${#missing[@]})); then
        local line="apt-get install -y --no-install-recommends ${missing[*]}"
        log "missing for ./build.sh ${mode:-deps}: ${missing[*]}"
        if [[ $(id -u) != 0 ]]; then
            log "install them as root, then run this again:  sudo $line"
            return 1
        elif [[ ${ALIGNSCOPE_NO_INSTALL:-0} == 1 ]]; then
            log "install them (ALIGNSCOPE_NO_INSTALL=1: not installing), then run this again:  $line"
            return 1
        elif ! command -v apt-get >/dev/null 2>&1; then
            log "no apt-get here: install the Debian packages ${missing[*]} (or their equivalents), then run this again"
            return 1
        fi
        log "installing: ${missing[*]}"
        # (errexit does not reach here: the case at the end calls deps in an && list)
        apt-get update || return 1
        DEBIAN_FRONTEND=noninteractive $line || return 1
        local still=()
        # What dpkg knew before the install is stale now: ask again.
        command -v dpkg-query >/dev/null 2>&1 && dpkg_have "${missing[@]}"
        for p in "${missing[@]}"; do dep_ok "$p" || still+=("$p"); done
        if ((${#still[@]})); then
            log "installed, yet not found (a program not on the PATH?): ${still[*]}"
            return 1
        fi
        openblas_core  # Python may be new
    fi
    if ((npm)) && [[ -L node_modules ]]; then
        # npm ci empties node_modules first, through the link: the checkout it
        # points into (a worktree sharing another's) would lose its packages.
        log "node_modules is a link ($(readlink node_modules)), older than package.json: not running npm ci through it; run it where it points"
    elif ((npm)); then
        log "npm dependencies"
        if [[ -f package-lock.json ]]; then npm ci --no-audit --no-fund || return 1; else npm install --no-audit --no-fund || return 1; fi
    fi
}
mode_deps() { deps all; }

# ---- native ----------------------------------------------------------------
mode_native() {
    mkdir -p build/native
    local cflags=("${WARN_FLAGS[@]}" "${FP_FLAGS[@]}" -O2)
    if stale build/native/alignscope "${LIB_SOURCES[@]}" src/kernels_wasmsimd.c src/cli.c "${HEADERS[@]}"; then
        log "native: build/native/alignscope (the SIMD twin, natively)"
        gcc "${cflags[@]}" "${NATIVE_SIMD[@]}" -o build/native/alignscope src/cli.c "${LIB_SOURCES[@]}" src/kernels_wasmsimd.c -lm
    fi
    if stale build/native/kernels_test tests/c/kernels_test.c src/kernels_scalar.c src/kernels_wasmsimd.c "${HEADERS[@]}"; then
        log "native: build/native/kernels_test (both twins)"
        gcc "${cflags[@]}" "${NATIVE_SIMD[@]}" -o build/native/kernels_test tests/c/kernels_test.c src/kernels_scalar.c \
            src/kernels_wasmsimd.c -lm
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

# ---- the relaxed-SIMD module ----------------------------------------------
# web/gen/alignscope-relaxed.wasm: the SIMD128 build plus the relaxed twins
# of the weight products (src/kernels_wasmrelaxed.c), for runtimes with
# relaxed SIMD (Chromium 114+; Node 20 with --experimental-wasm-relaxed-simd).
# Toolchain, as measured: emcc 3.1.6 (clang 14) encodes the relaxed opcodes
# in their pre-standard numbering, which browsers reject; emcc pointed at
# clang 19 (EM_LLVM_ROOT, EM_LLVM_ADD_VERSION=19, with llvm-nm/llvm-ar shims)
# compiles, but its binaryen (wasm-emscripten-finalize) stops at the first
# standard relaxed opcode ("invalid code after SIMD prefix: 261"). clang 19
# with --target=wasm32-wasi and wasi-libc (its malloc and string functions;
# no WASI import is left once nothing prints) links a module whose only
# exports and behaviour are what engine.js already expects: `_initialize`
# (-mexec-model=reactor), `memory`, the asw_* functions, no imports at all.
# wasi-libc has no mallinfo(), so malloc/calloc/realloc/free are wrapped to
# count the heap (src/wasm_heap_wasi.c). The link runs without -O: with it,
# clang would run Debian's (old) wasm-opt on the module, which cannot parse
# the relaxed opcodes either.
CLANG_WASM=(clang-19 --target=wasm32-wasi)
RELAXED_FLAGS=(-msimd128 -mrelaxed-simd)
wasm_relaxed_env() {
    command -v clang-19 >/dev/null || { log "clang-19 not found: run ./build.sh deps (clang-19 lld-19 wasi-libc)"; return 1; }
    [[ -f /usr/lib/wasm32-wasi/libc.a ]] || { log "wasi-libc not found: run ./build.sh deps (package wasi-libc)"; return 1; }
}

# wasm_relaxed_compile OUT SRC [FLAGS...] : one object for the relaxed module.
wasm_relaxed_compile() {
    local out=$1 src=$2; shift 2
    "${CLANG_WASM[@]}" "${WARN_FLAGS[@]}" "${FP_FLAGS[@]}" -O3 "${RELAXED_FLAGS[@]}" "$@" -c "$src" -o "$out"
}

wasm_relaxed_library() {
    local out=web/gen/alignscope-relaxed.wasm objdir=build/wasm/relaxed
    local sources=("${LIB_SOURCES[@]}" src/wasm_api.c src/kernels_wasmsimd.c src/kernels_wasmrelaxed.c src/wasm_heap_wasi.c)
    stale "$out" "${sources[@]}" "${HEADERS[@]}" || return 0
    wasm_relaxed_env
    log "wasm: $out (clang-19, wasm32-wasi, relaxed SIMD)"
    mkdir -p "$objdir" web/gen
    local objs=() src obj extra exports=()
    for src in "${sources[@]}"; do
        obj=$objdir/$(basename "${src%.c}").o
        extra=()
        [[ $src == src/kernels_scalar.c ]] && extra=("${NO_AUTOVEC[@]}")
        wasm_relaxed_compile "$obj" "$src" "${extra[@]}"
        objs+=("$obj")
    done
    local name
    for name in ${WASM_EXPORTS//,/ }; do exports+=("-Wl,--export=${name#_}"); done
    "${CLANG_WASM[@]}" -mexec-model=reactor -Wl,--strip-all -Wl,-z,stack-size=1048576 \
        -Wl,--initial-memory=16777216 -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free \
        "${exports[@]}" -o "$out" "${objs[@]}"
}

# wasm_both_twins DIR : DIR/kernels_scalar.o and DIR/kernels_wasmsimd.o for a
# module that holds both twins (kernel tests, kernel bench); the scalar one
# stays truly scalar although the module is built with -msimd128.
wasm_both_twins() {
    mkdir -p "$1"
    emcc "${WARN_FLAGS[@]}" "${FP_FLAGS[@]}" -O3 -msimd128 "${NO_AUTOVEC[@]}" -c src/kernels_scalar.c -o "$1/kernels_scalar.o"
    emcc "${WARN_FLAGS[@]}" "${FP_FLAGS[@]}" -O3 -msimd128 -c src/kernels_wasmsimd.c -o "$1/kernels_wasmsimd.o"
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
        wasm_both_twins build/wasm/kt
        emcc "${WARN_FLAGS[@]}" "${FP_FLAGS[@]}" -O2 -msimd128 -c tests/c/kernels_test.c -o build/wasm/kt/kernels_test.o
        emcc -O2 -msimd128 -sALLOW_MEMORY_GROWTH=1 -sENVIRONMENT=node -sEXIT_RUNTIME=1 -sSINGLE_FILE=1 \
            -o build/wasm/kernels_test.js build/wasm/kt/*.o
    fi
    wasm_relaxed_library
    # The kernel tests again with the relaxed twins: a WASI command, run in
    # Chromium by tests/browser/relaxed.test.mjs (Node 20's relaxed SIMD
    # computes the 8-bit dot product wrongly: web/engine.js).
    if stale build/wasm/kernels_test_relaxed.wasm tests/c/kernels_test.c src/kernels_scalar.c src/kernels_wasmsimd.c \
        src/kernels_wasmrelaxed.c "${HEADERS[@]}"; then
        wasm_relaxed_env
        log "wasm: build/wasm/kernels_test_relaxed.wasm (scalar + wasmsimd + wasmrelaxed twins, clang-19)"
        mkdir -p build/wasm/ktr
        wasm_relaxed_compile build/wasm/ktr/kernels_scalar.o src/kernels_scalar.c "${NO_AUTOVEC[@]}"
        wasm_relaxed_compile build/wasm/ktr/kernels_wasmsimd.o src/kernels_wasmsimd.c
        wasm_relaxed_compile build/wasm/ktr/kernels_wasmrelaxed.o src/kernels_wasmrelaxed.c
        wasm_relaxed_compile build/wasm/ktr/kernels_test.o tests/c/kernels_test.c
        "${CLANG_WASM[@]}" -Wl,-z,stack-size=1048576 -o build/wasm/kernels_test_relaxed.wasm build/wasm/ktr/*.o
    fi
    # Emscripten's output is CommonJS; the repo's package.json says "module".
    [[ -f build/wasm/package.json ]] || echo '{"type": "commonjs"}' >build/wasm/package.json
}

# ---- test models -----------------------------------------------------------
mode_models() {
    # Training is slow: only the trainer's sources matter, not this script.
    if STALE_SELF=0 stale $TEST_MODELS/none.parity.json models/train/*.py; then
        log "test models: $TEST_MODELS (smoke training, ~40 s)"
        OPENBLAS_NUM_THREADS=1 "$PYTHON" models/train/smoke.py "$TEST_MODELS"
    fi
    # "Bring your own model": the PyTorch seq2seq tutorial's architecture,
    # trained briefly, saved as a student would and converted (~5 s).
    if STALE_SELF=0 stale $TEST_MODELS/tutorial.meta.json tests/support/tutorial_model.py \
        models/train/convert_tutorial.py models/train/tutorial_text.py models/train/export.py models/train/model.py \
        models/train/toy_corpus.py; then
        log "test models: $TEST_MODELS/tutorial.alsc (tutorial architecture, convert_tutorial.py)"
        OPENBLAS_NUM_THREADS=1 "$PYTHON" tests/support/tutorial_model.py "$TEST_MODELS"
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

mode_pack() {
    mode_wasm
    node web/tools/pack.mjs
}

# ---- model -----------------------------------------------------------------
# The whole recipe for a committed model, one command:
#   ./build.sh model                      en-fr, additive attention (the default model)
#   LANG_PAIR=de ATTENTION=dot ./build.sh model
#   LANG_PAIR=de MODEL_WEIGHTS=int8 ./build.sh model   the shipped en-de: int8 only
# corpus (apt-get download of the pinned packages and sources, cleaning,
# split; models/train/corpus.py) -> training (models/train/train.py: cased
# subword pieces, TRAIN_UPDATES updates of 192 pairs) -> export (f16 as ID and
# int8 as ID-int8; with MODEL_WEIGHTS=int8 the int8 file alone, as ID) +
# parity fixtures -> model card -> models/index.json. Needs network access to
# Debian's archive.
#
# Training is budgeted in updates, not minutes, so a busy machine makes the
# same model, later. Its whole state is kept in STATE_DIR
# (~/.cache/alignscope/runs/ID-KIND, outside the work tree) every 250
# updates: stopping (or a session ending) loses at most those, and running
# the same command again resumes, with the same result as one uninterrupted
# run. TRAIN_MINUTES (default 600) stops one run early, to resume later. A
# larger TRAIN_UPDATES grows the model from the snapshot its last run took
# before its learning rate began to fall. TRAIN_DEVICE=cuda trains on a GPU
# (PyTorch 2.x); the corpus folder travels as one file with
# `corpus.py --pack FILE.tar.xz`.
# The recipe of the shipped models (issue 28): 3x the first budget, label
# smoothing 0.1, and the dictionaries' everyday vocabulary (corpus domains
# dictionary and dict_sentences; a domain a language's corpus lacks is not drawn);
# and checkpoint averaging: the mean of the last 8 saves (updates 16,250-18,000)
# is exported instead of the best checkpoint when it scores higher on the dev
# sample (it changes no update, so a state from before it resumes as it was).
# RECIPE_CHANGES (train.py options, e.g. "--layer-norm") trains the recipe with
# a change that the ablation found to help before it joins MODEL_RECIPE (which
# stays the recipe the shipped models were made by); its own state, since the
# state names its arguments; the card's rebuild command names it.
MODEL_UPDATES_DEFAULT=18000
RECIPE_DOMAIN_WEIGHTS=ui=0.33,dialogue=0.3,docs=0.14,descriptions=0.18,dict_sentences=0.1,dictionary=0.05
MODEL_RECIPE=(--subwords 6000,6000 --batch 192 --lr 3e-3 --max-tokens 50 --decay-start 0.6 --label-smoothing 0.1
    --domain-weights "$RECIPE_DOMAIN_WEIGHTS" --eval-every 500
    --average-last 8)
# The comparison models (zoo) keep the recipe and budget they were all trained
# with, so that every attention kind in models/REPORT.md had the same training.
ZOO_UPDATES_DEFAULT=6000
ZOO_RECIPE=(--subwords 6000,6000 --batch 192 --lr 3e-3 --max-tokens 50 --decay-start 0.6
    --domain-weights ui=0.35,dialogue=0.3,docs=0.15,descriptions=0.2 --eval-every 500)
# The run's name suffix for RECIPE_CHANGES ("--layer-norm" -> "+layer-norm"):
# a run with changes keeps its own out/ and state, so neither recipe's
# command restarts the other's training.
recipe_tag() {
    local tag
    tag=$(printf '%s' "${RECIPE_CHANGES:-}" | sed -E 's/(^| )--/ /g; s/^ +//; s/ +/+/g; s/[^A-Za-z0-9+=.,_-]//g')
    [[ -n $tag ]] && printf '+%s' "$tag"
    return 0
}
mode_model() {
    local lang=${LANG_PAIR:-fr} kind=${ATTENTION:-additive}
    local id="en-$lang" run="models/train/runs/en-$lang-$kind$(recipe_tag)"
    [[ $kind != additive ]] && id="en-$lang-$kind"
    "$PYTHON" -c 'import torch' 2>/dev/null || { log "python3-torch missing: run ./build.sh deps"; return 1; }
    log "model $id: corpus"
    "$PYTHON" models/train/corpus.py --lang "$lang"
    local state="${STATE_DIR:-$HOME/.cache/alignscope/runs/en-$lang-$kind$(recipe_tag)}"
    log "model $id: training (${TRAIN_UPDATES:-$MODEL_UPDATES_DEFAULT} updates; state in $state)"
    mkdir -p "$run"
    OPENBLAS_NUM_THREADS=${TRAIN_THREADS:-1} "$PYTHON" models/train/train.py --data "models/train/data/en-$lang" \
        --out "$run" --attention "$kind" --updates "${TRAIN_UPDATES:-$MODEL_UPDATES_DEFAULT}" "${MODEL_RECIPE[@]}" \
        ${RECIPE_CHANGES:-} \
        --state "$state" --minutes "${TRAIN_MINUTES:-600}" --device "${TRAIN_DEVICE:-cpu}" --threads "${TRAIN_THREADS:-1}"
    [[ -f $run/metrics.json && $run/metrics.json -nt $state/state.pt ]] || {
        log "model $id: training stopped before its budget; run the same command again to resume"
        return 0
    }
    model_files "$run" "$id" "$lang" "$(model_rebuild "$lang" "$kind")"
}

# The command that rebuilds model ID (for its card).
model_rebuild() {
    local lang=$1 kind=$2 prefix=""
    [[ $lang != fr ]] && prefix+="LANG_PAIR=$lang "
    [[ $kind != additive ]] && prefix+="ATTENTION=$kind "
    [[ ${MODEL_WEIGHTS:-} == int8 ]] && prefix+="MODEL_WEIGHTS=int8 "
    [[ ${TRAIN_UPDATES:-$MODEL_UPDATES_DEFAULT} != "$MODEL_UPDATES_DEFAULT" ]] && prefix+="TRAIN_UPDATES=$TRAIN_UPDATES "
    [[ -n ${RECIPE_CHANGES:-} ]] && prefix+="RECIPE_CHANGES=\"$RECIPE_CHANGES\" "
    echo "${prefix}./build.sh model"
}

# The model files again from the run `model` trained (no training).
mode_model_export() {
    local lang=${LANG_PAIR:-fr} kind=${ATTENTION:-additive}
    local id="en-$lang" run="models/train/runs/en-$lang-$kind$(recipe_tag)"
    [[ $kind != additive ]] && id="en-$lang-$kind"
    [[ -f $run/checkpoint.pt ]] || { log "no $run/checkpoint.pt: run ./build.sh model first"; return 1; }
    model_files "$run" "$id" "$lang" "$(model_rebuild "$lang" "$kind")"
}

# A trained run -> models/ID.alsc (f16) and models/ID-int8.alsc (or, with
# MODEL_WEIGHTS=int8, models/ID.alsc as int8 alone), each with parity
# fixtures, metrics (the int8 file's BLEU measured with its own weights) and
# a card; then models/index.json.
model_files() {
    local run=$1 id=$2 lang=$3 rebuild=$4
    log "model $id: export $([[ ${MODEL_WEIGHTS:-} == int8 ]] && echo int8 || echo "f16 + int8"), parity fixtures, int8 BLEU, cards"
    OPENBLAS_NUM_THREADS=2 "$PYTHON" models/train/eval_quantised.py "$run/checkpoint.pt" \
        --data "models/train/data/en-$lang" --weights int8 --metrics "$run/metrics.json" \
        --out "$run/int8.metrics.json"
    if [[ ${MODEL_WEIGHTS:-} == int8 ]]; then
        model_file "$run" "$id" "$lang" int8 "$run/int8.metrics.json" "$rebuild"
    else
        model_file "$run" "$id" "$lang" f16 "$run/metrics.json" "$rebuild"
        model_file "$run" "$id-int8" "$lang" int8 "$run/int8.metrics.json" "$rebuild"
    fi
    "$PYTHON" models/train/catalogue.py
    "$PYTHON" models/train/report.py --bytes-only
}

# One model file from a run: models/ID.alsc (WEIGHTS f16 or int8) with its
# parity fixtures, models/ID.metrics.json (a copy of METRICS) and its card.
model_file() {
    local run=$1 id=$2 lang=$3 weights=$4 metrics=$5 rebuild=$6
    mkdir -p models/fixtures
    "$PYTHON" models/train/export.py "$run/checkpoint.pt" "models/$id.alsc" $([[ $weights == int8 ]] && echo --int8) \
        --languages "en,$lang" --fixtures "models/fixtures/$id.parity.json" \
        --sentences models/train/fixture_sentences.en.txt
    cp "$metrics" "models/$id.metrics.json"
    # Our own everyday sentences, translated by the engine with this very file, for the card.
    mode_native
    # Greedy (--beam 1): the card's figures are greedy decoding's.
    build/native/alignscope --model "models/$id.alsc" --beam 1 --json --top-k 0 \
        <models/train/everyday_sentences.en.txt >"$run/$id.everyday.jsonl"
    # Cased BLEU on the teacher's test set (ours, never trained on), greedy and beam 5, into the metrics.
    "$PYTHON" models/train/teacher_eval.py "models/$id.alsc" --write
    # The UI and general tests decoded by beam search as the page does, into the metrics (the card's beam column).
    "$PYTHON" models/train/eval_alsc.py "models/$id.alsc" --data "models/train/data/en-$lang" --write
    # The page's examples, picked from the teacher's set (ours: committed) by what this file's alignments show.
    "$PYTHON" models/train/examples.py --alsc "models/$id.alsc" --out "models/examples/$id.json"
    # The corpus's counts as this file was trained on them (corpus.py writes them beside the corpus at
    # every resume; the tracked copy changes only with the model it describes).
    if [[ -f models/train/data/en-$lang/corpus_stats.json ]]; then
        cp "models/train/data/en-$lang/corpus_stats.json" "models/train/corpus_stats.$lang.json"
    else
        log "model $id: models/train/data/en-$lang/corpus_stats.json is missing (a corpus built before it was kept there): the card keeps models/train/corpus_stats.$lang.json"
    fi
    "$PYTHON" models/train/card.py --metrics "models/$id.metrics.json" --weights "$weights" \
        --corpus-stats "models/train/corpus_stats.$lang.json" --model "models/$id.alsc" --id "$id" \
        --out "models/$id.md" --rebuild "$rebuild" --everyday "$run/$id.everyday.jsonl"
}

# ---- zoo -------------------------------------------------------------------
# The comparison models behind models/REPORT.md and the page's "Compare
# models": the scoring functions on en-fr (Bahdanau additive, Luong general
# and dot, scaled dot product) and the no-attention baseline, each trained
# exactly alike (the same corpus, the same subword vocabulary, learnt by the
# same script from the same train.tsv, ZOO_RECIPE and ZOO_UPDATES_DEFAULT
# updates; TRAIN_UPDATES overrides both alike). The zoo's additive model
# (en-fr-additive) is the report's additive entry and the training film's
# model; the page's default was trained longer by MODEL_RECIPE, so it would
# not be a fair comparison. Each run is resumable like `model` (state in
# ~/.cache/alignscope/runs/en-fr-KIND, en-fr-additive-zoo for additive, whose
# plain name is the default model's): running `./build.sh zoo` again goes on
# where a stopped session left off.
# ZOO_PARALLEL at a time (default: one per core; each run is one thread,
# and two side by side on 2 cores each kept 1.2-1.3 s an update once
# train.py stopped malloc from unmapping its buffers); stored int8.
# ZOO_JOBS="fr:dot fr:none" picks a subset.
# Then models/train/report.py writes models/REPORT.md and models/report/.
ZOO_JOBS_ALL="fr:additive fr:general fr:dot fr:scaled_dot fr:none"
mode_zoo() {
    local jobs=${ZOO_JOBS:-$ZOO_JOBS_ALL} lang
    "$PYTHON" -c 'import torch' 2>/dev/null || { log "python3-torch missing: run ./build.sh deps"; return 1; }
    for lang in $(printf '%s\n' $jobs | cut -d: -f1 | sort -u); do
        log "zoo: corpus en-$lang"
        "$PYTHON" models/train/corpus.py --lang "$lang" >/dev/null
    done
    printf '%s\n' $jobs | xargs -P "${ZOO_PARALLEL:-$(nproc)}" -I{} "$ROOT/build.sh" zoo-one {}
    mode_native
    native_bench_build  # the report's cost per decoder step
    "$PYTHON" models/train/report.py
    "$PYTHON" models/train/catalogue.py
}
# One zoo model, LANG:KIND -> models/en-LANG-KIND.alsc (int8) with fixtures,
# card and models/report/en-LANG-KIND.metrics.json, once its budget is done.
mode_zoo_one() {
    local lang=${1%%:*} kind=${1#*:}
    local id="en-$lang-$kind" run="models/train/runs/zoo-en-$lang-$kind"
    local state="$HOME/.cache/alignscope/runs/en-$lang-$kind"
    [[ $kind == additive ]] && state+="-zoo"  # en-LANG-additive is the default model's run
    mkdir -p "$run" models/report
    log "zoo $id: training ${TRAIN_UPDATES:-$ZOO_UPDATES_DEFAULT} updates (state in $state; log: $run/out.txt)"
    OPENBLAS_NUM_THREADS=1 "$PYTHON" models/train/train.py --data "models/train/data/en-$lang" --out "$run" \
        --attention "$kind" --updates "${TRAIN_UPDATES:-$ZOO_UPDATES_DEFAULT}" "${ZOO_RECIPE[@]}" \
        --state "$state" --minutes "${TRAIN_MINUTES:-600}" --device "${TRAIN_DEVICE:-cpu}" >>"$run/out.txt"
    [[ -f $run/metrics.json && $run/metrics.json -nt $state/state.pt ]] || {
        log "zoo $id: stopped before its budget; run ./build.sh zoo again to resume"
        return 0
    }
    OPENBLAS_NUM_THREADS=1 "$PYTHON" models/train/eval_quantised.py "$run/checkpoint.pt" \
        --data "models/train/data/en-$lang" --weights int8 --metrics "$run/metrics.json" \
        --out "models/report/$id.metrics.json" >>"$run/out.txt"
    model_file "$run" "$id" "$lang" int8 "models/report/$id.metrics.json" "ZOO_JOBS=$lang:$kind ./build.sh zoo"
    log "zoo $id: done, test BLEU $("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["test_bleu"])' "models/report/$id.metrics.json")"
}

# ---- ablate ----------------------------------------------------------------
# Issue 28's recipe table: MODEL_RECIPE, then each of its changes taken out or
# one setting moved, every variant trained from the same seed on the same
# corpus for ABLATE_UPDATES (default 3000: the schedule, its decay and its
# full-softmax tail scale with the budget, so all variants compare at equal
# updates), then runs.py's table of dev BLEU by update. Resumable like `model`
# (states in ABLATE_STATE_DIR, default ~/.cache/alignscope/ablate/en-LANG-NAME,
# with the run's log and metrics in its out/); ABLATE_VARIANTS="recipe
# no-label-smoothing" picks some, ABLATE_PARALLEL runs that many at a time
# (default 1: the one free core beside a `model` run), TRAIN_DEVICE=cuda on a
# GPU. ABLATE_DATA names another corpus folder (the tests' made-up one);
# ABLATE_EXTRA_SOURCES puts a corpus source on trial (below).
# Each line: NAME and the arguments that follow MODEL_RECIPE's (argparse: the
# last of a repeated flag wins). tied-embeddings narrows the deep output to the
# embeddings' 128 (a tie needs them equal), so it measures both changes at once.
# layer-norm changes the network (arch_flags layer_norm in the file);
# dialogue-final moves the last 20 % of updates towards dialogue; with-bible
# draws the bible domain, which only a corpus with @sword-bible has (sources.txt).
ABLATIONS=(
    "recipe"
    "no-label-smoothing --label-smoothing 0"
    "no-dictionaries --domain-weights ui=0.33,dialogue=0.3,docs=0.14,descriptions=0.18"
    "subwords-4000 --subwords 4000,4000"
    "dialogue-heavier --domain-weights ui=0.2,dialogue=0.45,docs=0.12,descriptions=0.08,dict_sentences=0.1,dictionary=0.05"
    "word-dropout --word-dropout 0.1"
    "tied-embeddings --output-dim 128 --tie-target-embeddings"
    "layer-norm --layer-norm"
    "dialogue-final --final-domain-weights ui=0.15,dialogue=0.6,docs=0.05,descriptions=0.05,dict_sentences=0.1,dictionary=0.05 --final-share 0.2"
    "with-bible --domain-weights $RECIPE_DOMAIN_WEIGHTS,bible=0.1"
)
ABLATE_UPDATES_DEFAULT=3000
ablation_names() { printf '%s\n' "${ABLATIONS[@]}" | cut -d' ' -f1; }
ablate_root() { echo "${ABLATE_STATE_DIR:-$HOME/.cache/alignscope/ablate}"; }
mode_ablate() {
    local lang=${LANG_PAIR:-fr} updates=${ABLATE_UPDATES:-$ABLATE_UPDATES_DEFAULT} names name
    local data=${ABLATE_DATA:-models/train/data/en-$lang} extra=${ABLATE_EXTRA_SOURCES:-} tag=""
    # A corpus source on trial (issue 28: a source is kept only where the dev sets say
    # it helps): ABLATE_EXTRA_SOURCES="dictionary @apertium" adds lines to sources.txt
    # for a corpus of its own, and its variants' states are named with +dictionary-apertium.
    if [[ -n $extra ]]; then
        [[ -z ${ABLATE_DATA:-} ]] || { log "ablate: ABLATE_EXTRA_SOURCES builds a corpus of its own: leave ABLATE_DATA unset"; return 2; }
        tag=+$(printf '%s' "$extra" | tr -cs 'A-Za-z0-9' '-' | sed 's/^-*//; s/-*$//')
        data="$(ablate_root)/corpus$tag/en-$lang"
        if [[ ! -f $data/train.tsv ]]; then
            log "ablate: building the corpus of models/train/sources.txt and '$extra' into $data"
            "$PYTHON" models/train/corpus.py --lang "$lang" --out "$(dirname "$data")" \
                --sources <(cat models/train/sources.txt; printf '%s\n' "$extra") || return 1
        fi
    fi
    names=${ABLATE_VARIANTS:-$(ablation_names | tr '\n' ' ')}
    for name in $names; do
        ablation_names | grep -qx -- "$name" || { log "ablate: no variant '$name' (the variants: $(ablation_names | tr '\n' ' '))"; return 2; }
    done
    [[ $updates =~ ^[1-9][0-9]*$ ]] || { log "ablate: ABLATE_UPDATES must be a positive whole number of updates, not '$updates'"; return 2; }
    if [[ -z ${ABLATE_DATA:-} && -z $extra && ! -f $data/train.tsv ]]; then
        log "ablate: no corpus in $data: building it (models/train/corpus.py, as model does)"
        "$PYTHON" models/train/corpus.py --lang "$lang"
    fi
    [[ -f $data/train.tsv ]] || { log "ablate: no $data/train.tsv"; return 1; }
    printf '%s\n' $names | LANG_PAIR=$lang ABLATE_UPDATES=$updates ABLATE_DATA=$data ABLATE_TAG=$tag \
        xargs -P "${ABLATE_PARALLEL:-1}" -I{} "$ROOT/build.sh" ablate-one {}
    "$PYTHON" models/train/runs.py --root "$(ablate_root)" --table
}
# One variant: NAME -> its state and out/ under ablate_root (called by ablate).
mode_ablate_one() {
    local name=$1 line extra=()
    line=$(printf '%s\n' "${ABLATIONS[@]}" | awk -v n="$name" '$1 == n')
    read -r -a extra <<<"${line#"$name"}"
    local state; state="$(ablate_root)/en-$LANG_PAIR-$name${ABLATE_TAG:-}"
    mkdir -p "$state/out"
    log "ablate $name: $ABLATE_UPDATES updates${extra[*]:+ with ${extra[*]}} (state and log in $state)"
    OPENBLAS_NUM_THREADS=${TRAIN_THREADS:-1} "$PYTHON" models/train/train.py --data "$ABLATE_DATA" --out "$state/out" \
        --attention additive --updates "$ABLATE_UPDATES" "${MODEL_RECIPE[@]}" "${extra[@]}" \
        --state "$state" --minutes "${TRAIN_MINUTES:-600}" --device "${TRAIN_DEVICE:-cpu}" \
        --threads "${TRAIN_THREADS:-1}" >>"$state/out/out.txt" \
        || { log "ablate $name: train.py failed (its log: $state/out/out.txt)"; return 1; }
}

# ---- exercise --------------------------------------------------------------
# The teaching notes' exercise "Add attention to your seq2seq", runnable
# (models/train/exercise.py): the PyTorch tutorial's seq2seq trained without
# attention (its DecoderRNN) and with Luong's dot-product attention, on the
# short sentences of the corpus (built first if missing, as `model` does),
# EXERCISE_UPDATES updates each (default 4000 of 64 pairs; the two side by
# side on 2 cores), EXERCISE_MINUTES (optional) stopping each earlier; then
# both converted to .alsc (convert_tutorial.py) in EXERCISE_OUT (default
# build/exercise/en-LANG) and the engine's validation BLEU, overall and on the
# longest 10% of the sentences, printed as a table. EXERCISE_DATA names
# another corpus folder (train.tsv, dev.tsv: the tests' made-up one).
EXERCISE_UPDATES_DEFAULT=4000
mode_exercise() {
    local lang=${LANG_PAIR:-fr} updates=${EXERCISE_UPDATES:-$EXERCISE_UPDATES_DEFAULT} minutes=${EXERCISE_MINUTES:-}
    local data=${EXERCISE_DATA:-models/train/data/en-$lang}
    local out=${EXERCISE_OUT:-build/exercise/en-$lang}
    [[ $lang =~ ^[a-z]{2,3}$ ]] || { log "exercise: LANG_PAIR must be a language tag such as fr, not '$lang'"; return 2; }
    [[ $updates =~ ^[1-9][0-9]*$ ]] || { log "exercise: EXERCISE_UPDATES must be a positive whole number of updates, not '$updates'"; return 2; }
    [[ -z $minutes || $minutes =~ ^[1-9][0-9]*$ ]] || { log "exercise: EXERCISE_MINUTES must be a positive whole number of minutes, not '$minutes'"; return 2; }
    if [[ -z ${EXERCISE_DATA:-} && ! -f $data/train.tsv ]]; then
        log "exercise: no corpus in $data: building it (models/train/corpus.py downloads Debian packages; minutes)"
        "$PYTHON" models/train/corpus.py --lang "$lang"
    fi
    mode_native
    log "exercise: en-$lang, $updates updates per model${minutes:+, at most $minutes minutes each}"
    "$PYTHON" models/train/exercise.py --data "$data" --out "$out" --languages "en,$lang" --updates "$updates" \
        ${minutes:+--minutes "$minutes"}
}

# ---- bench -----------------------------------------------------------------
# build/bench/native_bench: the bench's native backend, also the report's
# (models/train/report.py) measure of the cost per decoder step.
native_bench_build() {
    mkdir -p build/bench
    if stale build/bench/native_bench tests/bench/native_bench.c "${LIB_SOURCES[@]}" src/kernels_wasmsimd.c "${HEADERS[@]}"; then
        log "bench: build/bench/native_bench (the SIMD twin, gcc -O3 -march=native)"
        gcc "${WARN_FLAGS[@]}" "${FP_FLAGS[@]}" -O3 "${NATIVE_SIMD[@]}" -o build/bench/native_bench \
            tests/bench/native_bench.c "${LIB_SOURCES[@]}" src/kernels_wasmsimd.c -lm
    fi
}

# tests/bench/: our wasm (SIMD, scalar) and native builds against
# onnxruntime-web and PyTorch eager on the same weights (build/bench/: the
# shipped models/en-fr.alsc and en-fr-int8.alsc; tests/bench/make_models.py
# --random only on request),
# interleaved in one process tree; kernel micro-benchmarks; Chromium timings.
# Arguments go to tests/bench/bench.mjs (--quick, --no-browser, --out FILE);
# --build-only stops after building.
mode_bench() {
    bench_build
    [[ ${1:-} == --build-only ]] && return 0
    # The flag lets Node validate the relaxed build (its int8 dot product is
    # still wrong in Node 20, so the bench reports that build as unavailable
    # in Node and measures it in Chromium).
    node --experimental-wasm-relaxed-simd tests/bench/bench.mjs "$@"
}

# Everything the benchmark runs, built (also by `test`: tests/bench/bench.test.mjs).
bench_build() {
    mode_wasm
    native_bench_build
    if stale build/bench/kernels_bench.wasm tests/bench/kernels_bench.c tests/bench/peak_dot.h src/kernels_scalar.c src/kernels_wasmsimd.c "${HEADERS[@]}"; then
        log "bench: build/bench/kernels_bench.wasm (both twins)"
        wasm_both_twins build/bench/kb
        emcc "${WARN_FLAGS[@]}" "${FP_FLAGS[@]}" -O3 -msimd128 -c tests/bench/kernels_bench.c -o build/bench/kb/kernels_bench.o
        emcc -O3 -msimd128 -sSTANDALONE_WASM --no-entry -sALLOW_MEMORY_GROWTH=1 -sINITIAL_MEMORY=64MB \
            -sEXPORTED_FUNCTIONS=_kb_setup,_kb_attention,_kb_attention_part,_kb_matvec,_kb_matvec_i8,_kb_softmax,_kb_peak8,_kb_peak12,_kb_peak_dot8,_kb_stream \
            -o build/bench/kernels_bench.wasm build/bench/kb/kernels_scalar.o build/bench/kb/kernels_wasmsimd.o build/bench/kb/kernels_bench.o
    fi
    # The relaxed twins of the weight products beside their SIMD128 twins,
    # clang 19 as web/gen/alignscope-relaxed.wasm (timed in Chromium by
    # tests/bench/kernels_relaxed.mjs). A reactor with its kb_* exports
    # (export_name in the source); nothing prints, so no WASI import is left.
    if stale build/bench/kernels_bench_relaxed.wasm tests/bench/kernels_bench_relaxed.c tests/bench/peak_dot.h src/kernels_scalar.c \
        src/kernels_wasmsimd.c src/kernels_wasmrelaxed.c "${HEADERS[@]}"; then
        wasm_relaxed_env
        log "bench: build/bench/kernels_bench_relaxed.wasm (wasmsimd + wasmrelaxed twins, clang-19)"
        mkdir -p build/bench/kbr
        wasm_relaxed_compile build/bench/kbr/kernels_scalar.o src/kernels_scalar.c "${NO_AUTOVEC[@]}"
        wasm_relaxed_compile build/bench/kbr/kernels_wasmsimd.o src/kernels_wasmsimd.c
        wasm_relaxed_compile build/bench/kbr/kernels_wasmrelaxed.o src/kernels_wasmrelaxed.c
        wasm_relaxed_compile build/bench/kbr/kernels_bench_relaxed.o tests/bench/kernels_bench_relaxed.c
        "${CLANG_WASM[@]}" -mexec-model=reactor -Wl,--strip-all -Wl,-z,stack-size=1048576 \
            -Wl,--initial-memory=33554432 -o build/bench/kernels_bench_relaxed.wasm build/bench/kbr/*.o
    fi
    # The shipped default model (its f16 and int8 files), for every backend.
    if STALE_SELF=0 stale build/bench/models.json tests/bench/make_models.py tests/bench/sentences.txt \
        models/train/model.py models/train/export.py models/train/alsc_to_torch.py models/en-fr.alsc models/en-fr-int8.alsc; then
        log "bench: build/bench/ model.alsc, model-int8.alsc (the shipped en-fr files), model.pt, encoder.onnx, decoder_step.onnx"
        OPENBLAS_NUM_THREADS=1 "$PYTHON" tests/bench/make_models.py build/bench
    fi
}

# ---- fuzzing, sanitizers, soak --------------------------------------------
# Native clang builds of the library sources (scalar kernels), for finding
# what the ordinary tests do not:
#   fuzz          libFuzzer harnesses tests/fuzz/fuzz_*.c with ASan + UBSan, seeded
#                 from our model files (tests/fuzz/make_corpus.mjs -> build/fuzz/corpus).
#                 FUZZ_SECONDS per harness (default 120). Inputs that once crashed
#                 (tests/fuzz/regressions/NAME/) are replayed first. A crash stops its
#                 harness, its input lands in build/fuzz/crashes/NAME/, the mode fails.
#   sanitize      tests/c/{kernels,engine}_test under ASan + UBSan + LeakSanitizer and
#                 under valgrind memcheck (tests/sanitizers.test.mjs).
#   soak          SOAK_N translations (default 100000) in one wasm instance, printing
#                 its memory size before and after (tests/support/soak.mjs).
SAN_FLAGS=(-g -O1 -fno-omit-frame-pointer -fno-sanitize-recover=all)
# float-cast-overflow is not in clang's "undefined" group, and a NaN reaching
# an int conversion is exactly the kind of thing we look for.
ASAN_UBSAN=(-fsanitize=address,undefined,float-cast-overflow)
FUZZ_HARNESSES=(model_load tokenize force_score window_decode)

# Fails, saying what to install, when clang cannot link libFuzzer + ASan.
need_libfuzzer() {
    command -v clang >/dev/null || { log "clang not found: run ./build.sh deps (packages clang, libclang-rt-dev)"; return 1; }
    mkdir -p build/fuzz
    printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; return (int)(n & 0); }\n' >build/fuzz/probe.c
    if ! clang -fsanitize=fuzzer,address,undefined -o build/fuzz/probe build/fuzz/probe.c >build/fuzz/probe.log 2>&1; then
        log "clang cannot link -fsanitize=fuzzer,address,undefined (libFuzzer/ASan runtime missing):"
        sed 's/^/    /' build/fuzz/probe.log | tail -5
        log "run ./build.sh deps (package libclang-rt-dev, or libclang-rt-N-dev matching clang N)"
        return 1
    fi
}

mode_fuzz_build() {
    mode_models
    fuzz_seeds
    fuzz_compile
}
# The fuzzers' inputs, from the test models (mode_models first).
fuzz_seeds() {
    # The seed models: the test models' vocabularies, merges and flags on a
    # network 2 wide (tests/fuzz/shrink_models.py), so an execution costs
    # microseconds, not milliseconds.
    if STALE_SELF=0 stale build/fuzz/models/additive.alsc tests/fuzz/shrink_models.py $TEST_MODELS/*.alsc \
        models/train/export.py models/train/alsc_to_torch.py models/train/model.py; then
        log "fuzz: build/fuzz/models (small seed models)"
        OPENBLAS_NUM_THREADS=1 "$PYTHON" tests/fuzz/shrink_models.py "$TEST_MODELS" build/fuzz/models
    fi
    if STALE_SELF=0 stale build/fuzz/corpus/tokenize.dict tests/fuzz/make_corpus.mjs $TEST_MODELS/*.alsc \
        build/fuzz/models/*.alsc models/en-fr.alsc; then
        node tests/fuzz/make_corpus.mjs build/fuzz/corpus
    fi
}
# The harnesses: they name the seed models' folder, and need no model to build.
fuzz_compile() {
    local name out
    mkdir -p build/fuzz
    for name in "${FUZZ_HARNESSES[@]}"; do
        out=build/fuzz/fuzz_$name
        stale "$out" "tests/fuzz/fuzz_$name.c" tests/fuzz/fuzz_common.h tests/fuzz/fuzz_models.h tests/fuzz/coverage_ignore.txt "${LIB_SOURCES[@]}" \
            "${HEADERS[@]}" || continue
        need_libfuzzer
        log "fuzz: $out (clang, libFuzzer + ASan + UBSan)"
        clang "${WARN_FLAGS[@]}" "${FP_FLAGS[@]}" "${SAN_FLAGS[@]}" -fsanitize=fuzzer,address,undefined,float-cast-overflow \
            -fsanitize-coverage-ignorelist=tests/fuzz/coverage_ignore.txt \
            -DFUZZ_MODEL_DIR="\"$ROOT/build/fuzz/models\"" -o "$out" "tests/fuzz/fuzz_$name.c" "${LIB_SOURCES[@]}" -lm
    done
}

mode_fuzz() {
    mode_fuzz_build
    local seconds=${FUZZ_SECONDS:-120} name bin logf status execs crashed=()
    ((seconds >= 1)) || seconds=1 # 0 would mean "forever" to libFuzzer
    mkdir -p build/fuzz/logs
    for name in "${FUZZ_HARNESSES[@]}"; do
        bin=build/fuzz/fuzz_$name
        logf=build/fuzz/logs/$name.log
        local regs=(tests/fuzz/regressions/"$name"/*)
        if [[ -e ${regs[0]} ]]; then
            if ! "$bin" "${regs[@]}" >"build/fuzz/logs/$name.regressions.log" 2>&1; then
                grep -E 'ERROR|runtime error|fuzz check failed|Running:' "build/fuzz/logs/$name.regressions.log" | tail -5 >&2 || true
                log "fuzz: $name: regressions: ${#regs[@]} inputs replayed, 1 crashes (build/fuzz/logs/$name.regressions.log)"
                crashed+=("$name")
                continue
            fi
            log "fuzz: $name: regressions: ${#regs[@]} inputs replayed, 0 crashes"
        fi
        mkdir -p "build/fuzz/work/$name" "build/fuzz/crashes/$name"
        local extra=()
        [[ $name == tokenize ]] && extra=(-dict=build/fuzz/corpus/tokenize.dict -max_len=4096)
        status=0
        "$bin" -max_total_time="$seconds" -timeout=30 -print_final_stats=1 "${extra[@]}" \
            -artifact_prefix="build/fuzz/crashes/$name/" "build/fuzz/work/$name" "build/fuzz/corpus/$name" >"$logf" 2>&1 || status=$?
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logf" | tail -1)
        if ((status)); then
            grep -E 'ERROR|runtime error|fuzz check failed|Test unit written|SUMMARY' "$logf" | head -8 >&2 || true
            log "fuzz: $name: ${execs:-?} executions in $seconds s, 1 crashes ($logf)"
            crashed+=("$name")
        else
            log "fuzz: $name: ${execs:-?} executions in $seconds s, 0 crashes"
        fi
    done
    if ((${#crashed[@]})); then
        log "fuzz: crashed: ${crashed[*]}; fix it in src/ and copy the input to tests/fuzz/regressions/NAME/"
        return 1
    fi
}

mode_sanitize_build() {
    mode_models
    sanitize_compile
}
# The sanitizer builds' compiles alone: they need no test model (the test
# programs read them when they run), so mode_test runs them beside the models.
sanitize_compile() {
    mkdir -p build/sanitize/asan build/sanitize/valgrind
    local name
    for name in kernels_test engine_test; do
        local sources=(tests/c/kernels_test.c src/kernels_scalar.c) deps=() extra=()
        if [[ $name == engine_test ]]; then
            sources=(tests/c/engine_test.c "${LIB_SOURCES[@]}")
            deps=(tests/fuzz/fuzz_common.h)
            # allocation-failure injection: engine_test fails each malloc in turn
            extra=(-DENGINE_TEST_FAIL_ALLOC -Wl,--wrap=malloc -Wl,--wrap=calloc -Wl,--wrap=realloc)
        fi
        if stale "build/sanitize/asan/$name" "${sources[@]}" "${deps[@]}" "${HEADERS[@]}"; then
            command -v clang >/dev/null || { log "clang not found: run ./build.sh deps"; return 1; }
            log "sanitize: build/sanitize/asan/$name (clang, ASan + UBSan)"
            clang "${WARN_FLAGS[@]}" "${FP_FLAGS[@]}" "${SAN_FLAGS[@]}" "${ASAN_UBSAN[@]}" "${extra[@]}" \
                -o "build/sanitize/asan/$name" "${sources[@]}" -lm
        fi
        if stale "build/sanitize/valgrind/$name" "${sources[@]}" "${deps[@]}" "${HEADERS[@]}"; then
            log "sanitize: build/sanitize/valgrind/$name (gcc -O1 -g, for valgrind)"
            gcc "${WARN_FLAGS[@]}" "${FP_FLAGS[@]}" -O1 -g "${extra[@]}" -o "build/sanitize/valgrind/$name" "${sources[@]}" -lm
        fi
    done
}

mode_sanitize() {
    mode_sanitize_build
    node --test tests/sanitizers.test.mjs
}

mode_soak() {
    mode_wasm
    mode_models
    node tests/support/soak.mjs "${SOAK_N:-100000}"
}

# ---- test ------------------------------------------------------------------
mode_test() {
    # Two builds side by side: the C and WebAssembly builds run one compiler
    # at a time, so on a 2-core machine the other core makes the test models
    # (one PyTorch thread, ~40 s) and the fuzzers' seeds (made from the test
    # models), which the fuzz test file would otherwise make while the
    # browser tests run. The sanitizer builds and the fuzz harnesses need no
    # model and go on this side, which balances the two (2 idle cores,
    # 2026-12-07, each alone: native 4 s + wasm 15 s + bench 7 s + sanitizer
    # 9 s + harnesses ~14 s here, models ~40 s (with the layer-norm model) +
    # seeds ~4 s there; from `./build.sh test` to `node --test` in a clean
    # clone: 62 s with the harnesses over there).
    # (Their outputs are apart: build/test-models, build/fuzz/{models,corpus},
    # build/fuzz/fuzz_*, build/sanitize.)
    ( mode_models; fuzz_seeds ) &
    local side=$!
    trap 'kill "$side" 2>/dev/null || true' EXIT
    mode_native
    mode_wasm
    bench_build
    sanitize_compile
    fuzz_compile
    wait "$side" || { log "the test models or the fuzz builds failed (above)"; return 1; }
    trap - EXIT
    # Test files run in parallel, at least two at a time: Node's default is
    # one fewer than the cores (one on a 2-core machine), and most files wait
    # on Chromium, a child process or a timed fuzz run rather than compute.
    local jobs
    jobs=$(nproc)
    (( jobs < 2 )) && jobs=2
    log "node --test --test-concurrency=$jobs tests/"
    node --test --test-concurrency="$jobs" tests/
}

# Everything below is one compound command ending in exit, so bash has read
# it all before running a mode: editing this file while a long mode (model,
# zoo, bench) runs cannot make the running script read the edited bytes.
{
mode=${1:-native}
# Each mode first gets what it needs (deps above): the packages of its groups, npm's when it serves the page.
case "$mode" in
    deps) mode_deps ;;
    native) deps native && mode_native ;;
    wasm) deps wasm && mode_wasm ;;
    models) deps torch && mode_models ;;
    test) deps all && mode_test ;;
    serve) deps wasm npm && mode_serve ;;
    dist) deps wasm npm && mode_dist ;;
    pack) deps wasm npm && mode_pack ;;
    model) deps torch corpus native && mode_model ;;
    model-export) deps torch native && mode_model_export ;;
    zoo) deps torch corpus native && mode_zoo ;;
    exercise) deps torch corpus native && mode_exercise ;;
    ablate) deps torch corpus && mode_ablate ;;
    ablate-one) mode_ablate_one "${2:?ablate-one NAME}" ;;
    runs) "$PYTHON" models/train/runs.py ;;
    zoo-one) mode_zoo_one "${2:?zoo-one LANG:KIND}" ;;
    bench) shift; deps wasm native torch browser npm && mode_bench "$@" ;;
    fuzz) deps torch checks && mode_fuzz ;;
    fuzz-build) deps torch checks && mode_fuzz_build ;;
    sanitize) deps torch native checks && mode_sanitize ;;
    sanitize-build) deps torch native checks && mode_sanitize_build ;;
    soak) deps wasm torch && mode_soak ;;
    *) echo "usage: $0 {deps|native|wasm|models|test|serve|dist|pack|model|model-export|zoo|ablate|exercise|runs|bench|fuzz|fuzz-build|sanitize|sanitize-build|soak}" >&2; exit 2 ;;
esac
exit
}
