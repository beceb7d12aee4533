/* fuzz_models.h - the models the translation harnesses (fuzz_tokenize.c,
 * fuzz_force_score.c) run on, loaded once with a session each:
 * ALIGNSCOPE_FUZZ_MODELS, a colon-separated list of .alsc files, or else the
 * seed models in FUZZ_MODEL_DIR (set at build time to build/fuzz/models):
 * the five test models, the int8 one, the tutorial one (its own tokeniser,
 * </s> after the source) and the subword one (FORMAT.md 5.2), each with its
 * own vocabularies and merges on a network 2 wide
 * (tests/fuzz/shrink_models.py), so that an execution costs little.
 */
#ifndef ALIGNSCOPE_FUZZ_MODELS_H
#define ALIGNSCOPE_FUZZ_MODELS_H

#include "fuzz_common.h"
#include "../../src/read_file.h"

#ifndef FUZZ_MODEL_DIR
#define FUZZ_MODEL_DIR "build/fuzz/models"
#endif
#define FUZZ_MAX_MODELS 8

static as_model *fuzz_models[FUZZ_MAX_MODELS];
static as_session *fuzz_sessions[FUZZ_MAX_MODELS];
static int fuzz_model_count;

static void fuzz_add_model(const char *harness, const char *path) {
    size_t len;
    uint8_t *bytes = read_file(path, &len);
    if (!bytes) {
        fprintf(stderr, "%s: cannot read %s (run ./build.sh fuzz-build)\n", harness, path);
        exit(2);
    }
    as_status st = as_model_load(bytes, len, &fuzz_models[fuzz_model_count]);
    free(bytes);
    if (st == AS_OK) st = as_session_create(fuzz_models[fuzz_model_count], &fuzz_sessions[fuzz_model_count]);
    if (st != AS_OK) {
        fprintf(stderr, "%s: %s: %s\n", harness, path, as_status_message(st));
        exit(2);
    }
    fuzz_model_count++;
}

static void fuzz_free_models(void) {
    for (int i = 0; i < fuzz_model_count; i++) {
        as_session_free(fuzz_sessions[i]);
        as_model_free(fuzz_models[i]);
    }
}

/* For LLVMFuzzerInitialize: every model loaded, or exit(2) saying why. */
static void fuzz_load_models(const char *harness) {
    const char *list = getenv("ALIGNSCOPE_FUZZ_MODELS");
    if (list && *list) {
        char path[4096];
        for (const char *p = list; *p && fuzz_model_count < FUZZ_MAX_MODELS;) {
            size_t n = strcspn(p, ":");
            if (n > 0 && n < sizeof path) {
                memcpy(path, p, n);
                path[n] = '\0';
                fuzz_add_model(harness, path);
            }
            p += n + (p[n] == ':');
        }
    } else {
        static const char *const kinds[] = {"additive", "dot", "general", "scaled_dot", "none", "additive-int8",
                                            "tutorial", "subwords"};
        for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s.alsc", FUZZ_MODEL_DIR, kinds[i]);
            fuzz_add_model(harness, path);
        }
    }
    atexit(fuzz_free_models); /* so LeakSanitizer sees only real leaks */
    fprintf(stderr, "%s: %d models loaded\n", harness, fuzz_model_count);
}

#endif
