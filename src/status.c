/* status.c - the one function that turns an as_status into a sentence.
 * The JS layer shows these messages to users, so they say what to do. */
#include "alignscope.h"

const char *as_status_message(as_status status) {
    switch (status) {
    case AS_OK: return "ok";
    case AS_ERR_NULL_ARGUMENT: return "a required argument was missing (NULL)";
    case AS_ERR_TOO_SHORT: return "the file is too short to be an alignscope model (truncated?)";
    case AS_ERR_BAD_MAGIC: return "not an alignscope model file (wrong magic bytes; expected ALNSCOPE)";
    case AS_ERR_VERSION_TOO_NEW: return "this model file was made by a newer alignscope; update the engine to load it";
    case AS_ERR_VERSION_UNSUPPORTED:
        return "this model file's format version is older than this engine reads (before version 5 the checksum "
               "did not cover the header): re-export it with models/train/export.py, or convert it with "
               "models/train/migrate_format.py";
    case AS_ERR_BAD_HEADER: return "the model header is invalid (a size or setting is out of range or inconsistent)";
    case AS_ERR_SIZE_MISMATCH: return "the file length does not match its header (truncated or has extra bytes)";
    case AS_ERR_CHECKSUM: return "the model file is damaged (CRC-32 checksum mismatch)";
    case AS_ERR_BAD_VOCABULARY: return "the model's vocabulary is malformed";
    case AS_ERR_BAD_WEIGHTS: return "the model contains non-finite or out-of-range weights (inf, NaN, an int8 value of -128 or a negative scale)";
    case AS_ERR_OUT_OF_MEMORY: return "out of memory";
    case AS_ERR_EMPTY_INPUT: return "the input has no words to translate";
    case AS_ERR_INPUT_TOO_LONG: return "the input has more words than this model accepts";
    case AS_ERR_BAD_OPTION:
        return "an option is out of range (score scale: finite and at most 1e6, 0 = trained value; "
               "top-k: 0 to 16; max target tokens: 0 or more; length penalty: 0 to 4)";
    case AS_ERR_UNKNOWN_FEATURE:
        return "this model file uses an architecture feature (an arch_flags bit) this engine does not know; "
               "update alignscope to load it";
    case AS_ERR_BAD_SEGMENTATION:
        return "the model's subword segmentation table is damaged or inconsistent (a merge names a token that "
               "does not exist or does not spell the two tokens it joins)";
    case AS_ERR_BAD_ATTENTION_OVERRIDE:
        return "the forced attention weights are invalid: give a decoder step from 0 and one weight per source "
               "token (the length S of this translation's alpha rows), each finite and at least 0, not all zero, "
               "and at most one override per step (a model without attention has no weights to force)";
    case AS_ERR_OVERRIDE_STEP:
        return "the forced attention names a decoder step the translation does not reach (it ends earlier): "
               "pick a step below its number of target tokens";
    case AS_ERR_BAD_BEAM_WIDTH: return "the beam width must be a whole number from 1 to 8";
    case AS_ERR_BEAM_TOO_LARGE:
        return "this beam search would need more memory for its traces than the engine allows (64 MB): "
               "use a smaller beam width or a shorter sentence";
    case AS_ERR_BAD_SOURCE_TOKEN:
        return "a source token id is outside the model's source vocabulary (ids run from 0 to its size minus 1)";
    case AS_ERR_BAD_TARGET:
        return "the forced target is invalid: give from 1 to max_target_tokens token ids, each inside the model's "
               "target vocabulary (0 to its size minus 1)";
    case AS_ERR_BAD_ATTENTION_MASK:
        return "the attention mask is invalid: every decoder step's row must keep at least one source position, "
               "and hold only 0 (drop) and 1 (keep)";
    case AS_STATUS_COUNT: break;
    }
    return "unknown status code";
}
