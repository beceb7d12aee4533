/* model.c - loading an .alsc file (models/FORMAT.md) into an as_model.
 *
 * The loader trusts nothing: it reads the fixed header, checks every field's
 * range, computes the size the file must have in 64-bit arithmetic, and
 * compares it with the real length before it forms any pointer past the
 * header. Only then does it check the CRC (of the whole file, the header's
 * own bytes included, so that a damaged header field that is still in range
 * is caught too), parse the vocabularies and read
 * the weights (f16 widened to f32; int8 matrices kept as int8). Any
 * failure frees what was built and returns a status.
 */
#include <stdlib.h>
#include <string.h>

#include "model_internal.h"
#include "utf8.h"

/* ---- little helpers ---------------------------------------------------- */

static uint32_t read_u32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static float read_f32(const uint8_t *p) {
    uint32_t bits = read_u32(p);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static int is_finite_bits(uint32_t bits) { return ((bits >> 23) & 0xFFu) != 0xFFu; }

/* CRC-32 as zlib computes it (reflected polynomial 0xEDB88320), eight
 * bytes at a time ("slicing-by-8": crc_tables[k][b] is the CRC of byte b
 * followed by k zero bytes, so eight lookups fold in eight bytes), then the
 * byte-at-a-time loop for the tail. It is most of a model's load time (the
 * whole file, 5 MB for the page's default model), and this
 * runs about four times as fast as one byte per step. The tables are built
 * on first use (the library has no init call). */
static uint32_t crc_tables[8][256];
static int crc_tables_ready;

static void crc_build_tables(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_tables[0][i] = c;
    }
    for (int t = 1; t < 8; t++)
        for (uint32_t i = 0; i < 256; i++)
            crc_tables[t][i] = (crc_tables[t - 1][i] >> 8) ^ crc_tables[0][crc_tables[t - 1][i] & 0xFFu];
    crc_tables_ready = 1;
}

/* crc: the running (inverted) CRC state; start at 0xFFFFFFFF and invert the end. */
static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n) {
    if (!crc_tables_ready) crc_build_tables();
    while (n >= 8) {
        const uint32_t lo = crc ^ read_u32(p);
        const uint32_t hi = read_u32(p + 4);
        crc = crc_tables[7][lo & 0xFFu] ^ crc_tables[6][(lo >> 8) & 0xFFu] ^
              crc_tables[5][(lo >> 16) & 0xFFu] ^ crc_tables[4][lo >> 24] ^
              crc_tables[3][hi & 0xFFu] ^ crc_tables[2][(hi >> 8) & 0xFFu] ^
              crc_tables[1][(hi >> 16) & 0xFFu] ^ crc_tables[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--) crc = crc_tables[0][(crc ^ *p++) & 0xFFu] ^ (crc >> 8);
    return crc;
}

/* The file's CRC (models/FORMAT.md section 1): every byte, header included,
 * with the four bytes of the crc32 field itself read as zero. Needs
 * length >= AS_HEADER_SIZE. */
static uint32_t file_crc32(const uint8_t *bytes, size_t length) {
    static const uint8_t zero[4] = {0, 0, 0, 0};
    uint32_t crc = crc32_update(0xFFFFFFFFu, bytes, AS_OFF_CRC32);
    crc = crc32_update(crc, zero, sizeof zero);
    crc = crc32_update(crc, bytes + AS_OFF_CRC32 + 4, length - (AS_OFF_CRC32 + 4));
    return crc ^ 0xFFFFFFFFu;
}

/* IEEE half -> float, exact for every value (subnormals included). Returns 0
 * for inf/NaN, which a model must not contain. */
static int half_to_float(uint16_t h, float *out) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1Fu;
    uint32_t mant = h & 0x3FFu;
    uint32_t bits;
    if (exp == 0x1Fu) return 0;
    if (exp == 0) {
        if (mant == 0) {
            bits = sign;
        } else { /* subnormal: renormalise the mantissa */
            int e = -1;
            do { e++; mant <<= 1; } while ((mant & 0x400u) == 0);
            bits = sign | ((uint32_t)(127 - 15 - e) << 23) | ((mant & 0x3FFu) << 13);
        }
    } else {
        bits = sign | ((exp + 127u - 15u) << 23) | (mant << 13);
    }
    memcpy(out, &bits, sizeof *out);
    return 1;
}

uint32_t as_token_hash(const char *bytes, size_t length) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < length; i++) h = (h ^ (uint8_t)bytes[i]) * 16777619u;
    return h;
}

int32_t as_model_lookup_source(const as_model *model, const char *bytes, size_t length) {
    uint32_t slot = as_token_hash(bytes, length) & model->src_hash_mask;
    for (;;) {
        uint32_t entry = model->src_hash[slot];
        if (entry == 0) return AS_TOKEN_UNK;
        uint32_t id = entry - 1;
        if (model->src.length[id] == length &&
            memcmp(model->src.text + model->src.offset[id], bytes, length) == 0)
            return (int32_t)id;
        slot = (slot + 1) & model->src_hash_mask;
    }
}

/* ---- header ------------------------------------------------------------ */

static int in_range(uint32_t v, uint32_t lo, uint32_t hi) { return v >= lo && v <= hi; }

/* A language tag: AS_MIN_LANGUAGE_LETTERS ... AS_MAX_LANGUAGE_LETTERS of
 * a-z, then NUL up to the field's 8 bytes. */
static int valid_language(const uint8_t *p, char out[9]) {
    size_t n = 0;
    while (n < 8 && p[n] >= 'a' && p[n] <= 'z') n++;
    if (n < AS_MIN_LANGUAGE_LETTERS || n > AS_MAX_LANGUAGE_LETTERS) return 0;
    for (size_t i = n; i < 8; i++) if (p[i] != 0) return 0;
    memcpy(out, p, n);
    out[n] = '\0';
    return 1;
}

/* Shape of each tensor for this header: rows x cols for a 2-D tensor, n x 1
 * for a 1-D one (matrix = 0); rows = 0 = absent. */
typedef struct {
    uint64_t rows, cols;
    int matrix;
} tensor_shape;

static void tensor_shapes(const as_model_info *in, tensor_shape shape[AS_TENSOR_COUNT]) {
    const uint64_t vs = in->src_vocab_size, vt = in->tgt_vocab_size, e = in->embed_dim;
    const uint64_t he = in->encoder_hidden, hd = in->decoder_hidden, a = in->attention_dim;
    const uint64_t o = in->output_dim, c = in->context_dim;
    const uint32_t kind = in->attention_kind, flags = in->arch_flags;
    const int additive = kind == AS_ATTENTION_ADDITIVE, keyed = additive || kind == AS_ATTENTION_GENERAL;
    const int bidirectional = !(flags & AS_ARCH_UNIDIRECTIONAL);
    const int init_layer = !(flags & AS_ARCH_INIT_FROM_ENCODER);
    const int attn_bias = additive && (flags & AS_ARCH_ATTENTION_BIAS);
    const int deep_output = !(flags & AS_ARCH_DIRECT_OUTPUT);
    const int layer_norm = (flags & AS_ARCH_LAYER_NORM) != 0; /* LN gains and shifts instead of GRU biases */
#define MATRIX(id, r, c) shape[id] = (tensor_shape){(r), (c), 1}
#define VECTOR(id, n) shape[id] = (tensor_shape){(n), 1, 0}
    MATRIX(AS_T_SRC_EMBEDDING, vs, e);
    for (int d = 0; d < 2; d++) {
        const int base = d == 0 ? AS_T_ENC_FWD_W_IH : AS_T_ENC_BWD_W_IH;
        const uint64_t present = d == 0 || bidirectional; /* 0 rows = absent */
        MATRIX(base + 0, present * 3 * he, e);
        MATRIX(base + 1, present * 3 * he, he);
        VECTOR(base + 2, present * !layer_norm * 3 * he);          /* B_IH */
        VECTOR(base + 3, present * !layer_norm * 3 * he);          /* B_HH */
        for (int k = 4; k < 8; k++) VECTOR(base + k, present * layer_norm * 3 * he); /* LN_IH/HH_GAIN/SHIFT */
    }
    MATRIX(AS_T_INIT_W, init_layer ? hd : 0, he);
    VECTOR(AS_T_INIT_B, init_layer ? hd : 0);
    MATRIX(AS_T_ATTN_QUERY_W, additive ? a : 0, hd);
    VECTOR(AS_T_ATTN_QUERY_B, attn_bias ? a : 0);
    MATRIX(AS_T_ATTN_KEY_W, keyed ? a : 0, c);
    VECTOR(AS_T_ATTN_KEY_B, attn_bias ? a : 0);
    VECTOR(AS_T_ATTN_V, additive ? a : 0);
    VECTOR(AS_T_ATTN_V_B, attn_bias ? 1 : 0);
    MATRIX(AS_T_TGT_EMBEDDING, vt, e);
    MATRIX(AS_T_DEC_W_IH, 3 * hd, e + c);
    MATRIX(AS_T_DEC_W_HH, 3 * hd, hd);
    VECTOR(AS_T_DEC_B_IH, layer_norm ? 0 : 3 * hd);
    VECTOR(AS_T_DEC_B_HH, layer_norm ? 0 : 3 * hd);
    for (int id = AS_T_DEC_LN_IH_GAIN; id <= AS_T_DEC_LN_HH_SHIFT; id++) VECTOR(id, layer_norm ? 3 * hd : 0);
    MATRIX(AS_T_OUT_W, deep_output ? o : 0, hd + c + e);
    VECTOR(AS_T_OUT_B, deep_output ? o : 0);
    VECTOR(AS_T_OUT_LN_GAIN, deep_output && layer_norm ? o : 0);
    VECTOR(AS_T_OUT_LN_SHIFT, deep_output && layer_norm ? o : 0);
    MATRIX(AS_T_PROJ_W, vt, o);
    VECTOR(AS_T_PROJ_B, vt);
#undef MATRIX
#undef VECTOR
}

/* Bytes a tensor takes in the file (models/FORMAT.md section 3). */
static uint64_t tensor_file_bytes(const tensor_shape *t, uint32_t weight_type) {
    const uint64_t n = t->rows * t->cols;
    if (t->rows == 0) return 0;
    switch (weight_type) {
    case AS_WEIGHT_F16: return 2 * n;
    case AS_WEIGHT_I8: return t->matrix ? 4 * t->rows + n : 4 * n;
    default: return 4 * n;
    }
}

/* Header fields -> info, every rule of FORMAT.md section 1. Needs length >= 96. */
static as_status parse_header(const uint8_t *h, as_model_info *info, uint32_t *vocab_bytes,
                              uint32_t *tensor_bytes, uint32_t *crc) {
    memset(info, 0, sizeof *info);
    info->format_version = read_u32(h + AS_OFF_FORMAT_VERSION);
    if (read_u32(h + AS_OFF_HEADER_SIZE) != AS_HEADER_SIZE) return AS_ERR_BAD_HEADER;
    info->attention_kind = read_u32(h + AS_OFF_ATTENTION_KIND);
    info->weight_type = read_u32(h + AS_OFF_WEIGHT_TYPE);
    info->src_vocab_size = read_u32(h + AS_OFF_SRC_VOCAB_SIZE);
    info->tgt_vocab_size = read_u32(h + AS_OFF_TGT_VOCAB_SIZE);
    info->embed_dim = read_u32(h + AS_OFF_EMBED_DIM);
    info->encoder_hidden = read_u32(h + AS_OFF_ENCODER_HIDDEN);
    info->decoder_hidden = read_u32(h + AS_OFF_DECODER_HIDDEN);
    info->attention_dim = read_u32(h + AS_OFF_ATTENTION_DIM);
    info->output_dim = read_u32(h + AS_OFF_OUTPUT_DIM);
    info->max_source_tokens = read_u32(h + AS_OFF_MAX_SOURCE_TOKENS);
    info->max_target_tokens = read_u32(h + AS_OFF_MAX_TARGET_TOKENS);
    uint32_t scale_bits = read_u32(h + AS_OFF_TRAINED_SCORE_SCALE);
    info->trained_score_scale = read_f32(h + AS_OFF_TRAINED_SCORE_SCALE);
    *vocab_bytes = read_u32(h + AS_OFF_VOCAB_BYTES);
    *tensor_bytes = read_u32(h + AS_OFF_TENSOR_BYTES);
    *crc = read_u32(h + AS_OFF_CRC32);

    /* arch_flags: unknown bits are a feature of a newer engine, said as such
     * rather than "bad header". */
    info->arch_flags = read_u32(h + AS_OFF_ARCH_FLAGS);
    if (info->arch_flags & ~AS_ARCH_KNOWN_FLAGS) return AS_ERR_UNKNOWN_FEATURE;
    if ((info->arch_flags & AS_ARCH_SUBWORDS) && (info->arch_flags & AS_ARCH_TOKENIZER_TUTORIAL))
        return AS_ERR_BAD_HEADER;
    if ((info->arch_flags & AS_ARCH_SUBWORDS) &&
        (info->src_vocab_size <= AS_WORD_MARK_TOKEN || info->tgt_vocab_size <= AS_WORD_MARK_TOKEN))
        return AS_ERR_BAD_HEADER; /* no room for the byte tokens and the mark */
    const uint32_t flags = info->arch_flags;

    if (info->attention_kind > AS_ATTENTION_SCALED_DOT) return AS_ERR_BAD_HEADER;
    if (info->weight_type > AS_WEIGHT_I8) return AS_ERR_BAD_HEADER;
    if (!in_range(info->src_vocab_size, AS_MIN_VOCAB, AS_MAX_VOCAB) ||
        !in_range(info->tgt_vocab_size, AS_MIN_VOCAB, AS_MAX_VOCAB)) return AS_ERR_BAD_HEADER;
    if (!in_range(info->embed_dim, 1, AS_MAX_DIM) || !in_range(info->encoder_hidden, 1, AS_MAX_DIM) ||
        !in_range(info->decoder_hidden, 1, AS_MAX_DIM) || !in_range(info->output_dim, 1, AS_MAX_DIM))
        return AS_ERR_BAD_HEADER;
    info->context_dim = (flags & AS_ARCH_UNIDIRECTIONAL) ? info->encoder_hidden : 2 * info->encoder_hidden;
    if ((flags & AS_ARCH_INIT_FROM_ENCODER) && info->decoder_hidden != info->encoder_hidden) return AS_ERR_BAD_HEADER;
    if ((flags & AS_ARCH_DIRECT_OUTPUT) && info->output_dim != info->decoder_hidden) return AS_ERR_BAD_HEADER;
    if ((flags & AS_ARCH_ATTENTION_BIAS) && info->attention_kind != AS_ATTENTION_ADDITIVE) return AS_ERR_BAD_HEADER;
    switch (info->attention_kind) {
    case AS_ATTENTION_ADDITIVE:
        if (!in_range(info->attention_dim, 1, AS_MAX_DIM)) return AS_ERR_BAD_HEADER;
        info->key_dim = info->attention_dim;
        break;
    case AS_ATTENTION_GENERAL:
        if (info->attention_dim != info->decoder_hidden) return AS_ERR_BAD_HEADER;
        info->key_dim = info->decoder_hidden;
        break;
    case AS_ATTENTION_DOT:
    case AS_ATTENTION_SCALED_DOT:
        if (info->attention_dim != 0 || info->decoder_hidden != info->context_dim) return AS_ERR_BAD_HEADER;
        info->key_dim = info->context_dim;
        break;
    default: /* none */
        if (info->attention_dim != 0) return AS_ERR_BAD_HEADER;
        info->key_dim = 0;
        break;
    }
    if (!in_range(info->max_source_tokens, 1, AS_MAX_TOKENS_LIMIT) ||
        !in_range(info->max_target_tokens, 1, AS_MAX_TOKENS_LIMIT)) return AS_ERR_BAD_HEADER;
    if (!is_finite_bits(scale_bits) || !(info->trained_score_scale >= AS_MIN_TRAINED_SCORE_SCALE) ||
        !(info->trained_score_scale <= AS_MAX_TRAINED_SCORE_SCALE)) return AS_ERR_BAD_HEADER;
    if (!valid_language(h + AS_OFF_SOURCE_LANGUAGE, info->source_language) ||
        !valid_language(h + AS_OFF_TARGET_LANGUAGE, info->target_language)) return AS_ERR_BAD_HEADER;

    /* Each token takes 2..256 bytes (length byte + 1..255). */
    const uint64_t tokens = (uint64_t)info->src_vocab_size + info->tgt_vocab_size;
    if (*vocab_bytes < 2 * tokens || *vocab_bytes > 256 * tokens) return AS_ERR_BAD_HEADER;

    /* Every dimension is <= 65536, so no product or sum below nears 2^64. */
    tensor_shape shape[AS_TENSOR_COUNT];
    uint64_t total = 0, bytes = 0;
    tensor_shapes(info, shape);
    for (int i = 0; i < AS_TENSOR_COUNT; i++) {
        total += shape[i].rows * shape[i].cols;
        bytes += tensor_file_bytes(&shape[i], info->weight_type);
    }
    info->parameter_count = total;
    if (bytes != *tensor_bytes) return AS_ERR_BAD_HEADER;
    return AS_OK;
}

/* ---- vocabularies ------------------------------------------------------ */

static int valid_utf8(const uint8_t *p, size_t n) {
    size_t pos = 0;
    while (pos < n) {
        size_t before = pos;
        uint32_t cp = as_utf8_decode(p, n, &pos);
        if (cp == 0xFFFDu && pos - before == 1) return 0; /* decode's invalid-byte marker */
    }
    return 1;
}

static const char *const special_tokens[4] = {"<pad>", "<unk>", "<s>", "</s>"};

/* Parses `size` entries from p[*pos..end) into vocab. */
static as_status parse_vocab(const uint8_t *p, size_t end, size_t *pos, uint32_t size, as_vocab *vocab) {
    vocab->size = size;
    vocab->offset = malloc(sizeof(uint32_t) * size);
    vocab->length = malloc(size);
    /* token bytes + one NUL each never exceed the section's own size + size */
    vocab->text = malloc(end - *pos + size);
    if (!vocab->offset || !vocab->length || !vocab->text) return AS_ERR_OUT_OF_MEMORY;
    size_t out = 0;
    for (uint32_t id = 0; id < size; id++) {
        if (*pos >= end) return AS_ERR_BAD_VOCABULARY;
        size_t n = p[(*pos)++];
        if (n == 0 || n > end - *pos) return AS_ERR_BAD_VOCABULARY;
        const uint8_t *tok = p + *pos;
        for (size_t i = 0; i < n; i++) if (tok[i] < 0x20) return AS_ERR_BAD_VOCABULARY;
        if (!valid_utf8(tok, n)) return AS_ERR_BAD_VOCABULARY;
        if (id < 4 && (strlen(special_tokens[id]) != n || memcmp(special_tokens[id], tok, n) != 0))
            return AS_ERR_BAD_VOCABULARY;
        vocab->offset[id] = (uint32_t)out;
        vocab->length[id] = (uint8_t)n;
        memcpy(vocab->text + out, tok, n);
        out += n;
        vocab->text[out++] = '\0';
        *pos += n;
    }
    return AS_OK;
}

/* Source lookup table. Like the Python exporter's dict, a repeated token maps
 * to its last id; a subword model may not repeat one (its segmentation looks
 * pieces up by text). */
static as_status build_source_hash(as_model *model) {
    const int unique = (model->info.arch_flags & AS_ARCH_SUBWORDS) != 0;
    uint32_t cap = 16;
    while (cap < 2 * model->src.size) cap <<= 1;
    model->src_hash = calloc(cap, sizeof(uint32_t));
    if (!model->src_hash) return AS_ERR_OUT_OF_MEMORY;
    model->src_hash_mask = cap - 1;
    for (uint32_t id = 0; id < model->src.size; id++) {
        const char *tok = model->src.text + model->src.offset[id];
        size_t n = model->src.length[id];
        uint32_t slot = as_token_hash(tok, n) & model->src_hash_mask;
        for (;;) {
            uint32_t entry = model->src_hash[slot];
            if (entry == 0 || (model->src.length[entry - 1] == n &&
                               memcmp(model->src.text + model->src.offset[entry - 1], tok, n) == 0)) {
                if (entry != 0 && unique) return AS_ERR_BAD_SEGMENTATION;
                model->src_hash[slot] = id + 1;
                break;
            }
            slot = (slot + 1) & model->src_hash_mask;
        }
    }
    return AS_OK;
}

/* ---- subword tables (AS_ARCH_SUBWORDS, FORMAT.md 5.2) ------------------- */

static int token_is(const as_vocab *v, uint32_t id, const char *text, size_t n) {
    return v->length[id] == n && memcmp(v->text + v->offset[id], text, n) == 0;
}

/* Ids AS_FIRST_BYTE_TOKEN.. are "<0x00>".."<0xFF>" and AS_WORD_MARK_TOKEN is
 * the mark alone, in both vocabularies. */
static int has_subword_base(const as_vocab *v) {
    static const char hex[] = "0123456789ABCDEF";
    for (uint32_t b = 0; b < 256; b++) {
        const char name[6] = {'<', '0', 'x', hex[b >> 4], hex[b & 15u], '>'};
        if (!token_is(v, AS_FIRST_BYTE_TOKEN + b, name, sizeof name)) return 0;
    }
    return token_is(v, AS_WORD_MARK_TOKEN, AS_WORD_MARK_UTF8, 3);
}

static uint32_t merge_hash(uint32_t left, uint32_t right) {
    return ((left * 0x9E3779B1u) ^ (right * 0x85EBCA77u)) >> 3;
}

/* The merge table at p[*pos..end): every id in range and above the mark,
 * result = left + right in text, exactly the bytes that are there. Builds the
 * (left, right) -> rank hash; a pair listed twice keeps its first (lowest)
 * rank, as the Python reference does. */
static as_status parse_merges(const uint8_t *p, size_t end, size_t *pos, as_model *model) {
    if (end - *pos < 4) return AS_ERR_BAD_SEGMENTATION;
    const uint32_t count = read_u32(p + *pos);
    *pos += 4;
    if (count > model->src.size || (uint64_t)count * AS_MERGE_ENTRY_BYTES != end - *pos)
        return AS_ERR_BAD_SEGMENTATION;
    as_merges *mg = &model->merges;
    mg->count = count;
    mg->entries = malloc(sizeof(uint16_t) * 3 * (count ? count : 1));
    uint32_t cap = 16;
    while (cap < 2 * count) cap <<= 1;
    mg->hash = calloc(cap, sizeof(uint32_t));
    if (!mg->entries || !mg->hash) return AS_ERR_OUT_OF_MEMORY;
    mg->hash_mask = cap - 1;
    const as_vocab *v = &model->src;
    for (uint32_t r = 0; r < count; r++) {
        const uint8_t *e = p + *pos + (size_t)r * AS_MERGE_ENTRY_BYTES;
        const uint32_t left = e[0] | (uint32_t)e[1] << 8, right = e[2] | (uint32_t)e[3] << 8;
        const uint32_t result = e[4] | (uint32_t)e[5] << 8;
        if (left >= v->size || right >= v->size || result >= v->size) return AS_ERR_BAD_SEGMENTATION;
        if (left < AS_WORD_MARK_TOKEN || right < AS_WORD_MARK_TOKEN || result <= AS_WORD_MARK_TOKEN)
            return AS_ERR_BAD_SEGMENTATION;
        const size_t nl = v->length[left], nr = v->length[right];
        if (v->length[result] != nl + nr ||
            memcmp(v->text + v->offset[result], v->text + v->offset[left], nl) != 0 ||
            memcmp(v->text + v->offset[result] + nl, v->text + v->offset[right], nr) != 0)
            return AS_ERR_BAD_SEGMENTATION;
        mg->entries[3 * r] = (uint16_t)left;
        mg->entries[3 * r + 1] = (uint16_t)right;
        mg->entries[3 * r + 2] = (uint16_t)result;
        uint32_t slot = merge_hash(left, right) & mg->hash_mask;
        for (;;) {
            const uint32_t entry = mg->hash[slot];
            if (entry == 0) {
                mg->hash[slot] = r + 1;
                break;
            }
            if (mg->entries[3 * (entry - 1)] == left && mg->entries[3 * (entry - 1) + 1] == right) break;
            slot = (slot + 1) & mg->hash_mask;
        }
    }
    *pos = end;
    return AS_OK;
}

int32_t as_model_merge_rank(const as_model *model, int32_t left, int32_t right, int32_t *result) {
    const as_merges *mg = &model->merges;
    if (!mg->hash) return -1;
    uint32_t slot = merge_hash((uint32_t)left, (uint32_t)right) & mg->hash_mask;
    for (;;) {
        const uint32_t entry = mg->hash[slot];
        if (entry == 0) return -1;
        const uint16_t *e = mg->entries + 3 * (entry - 1);
        if (e[0] == left && e[1] == right) {
            *result = e[2];
            return (int32_t)(entry - 1);
        }
        slot = (slot + 1) & mg->hash_mask;
    }
}

/* ---- weights ----------------------------------------------------------- */

/* Reads n f32 values (finite) from p into w. */
static as_status read_f32_values(const uint8_t *p, size_t n, float *w) {
    for (size_t i = 0; i < n; i++) {
        uint32_t bits = read_u32(p + 4 * i);
        if (!is_finite_bits(bits)) return AS_ERR_BAD_WEIGHTS;
        memcpy(&w[i], &bits, sizeof bits);
    }
    return AS_OK;
}

/* An int8 matrix (FORMAT.md 3.1) at p -> scale (rows) and q (rows, cols),
 * checked: scales finite and >= 0, values within +-127. */
static as_status read_i8_matrix(const uint8_t *p, size_t rows, size_t cols, float *scale, int8_t *q) {
    as_status st = read_f32_values(p, rows, scale);
    if (st != AS_OK) return st;
    for (size_t r = 0; r < rows; r++)
        if (!(scale[r] >= 0.0f)) return AS_ERR_BAD_WEIGHTS;
    memcpy(q, p + 4 * rows, rows * cols);
    for (size_t k = 0; k < rows * cols; k++)
        if (q[k] < -AS_I8_MAX) return AS_ERR_BAD_WEIGHTS;
    return AS_OK;
}

/* Every tensor, in file order, into the model's storage: f32 and f16 files
 * widened into one f32 buffer; int8 files keep their matrices as int8 (the
 * engine multiplies them so), with the scales and 1-D tensors in the f32
 * buffer. The sizes were checked against the file length before this runs. */
static as_status read_weights(as_model *model, const uint8_t *p) {
    const uint32_t type = model->info.weight_type;
    tensor_shape shape[AS_TENSOR_COUNT];
    tensor_shapes(&model->info, shape);
    uint64_t f32_count = 0, i8_count = 0;
    for (int i = 0; i < AS_TENSOR_COUNT; i++) {
        const uint64_t n = shape[i].rows * shape[i].cols;
        if (type == AS_WEIGHT_I8 && shape[i].matrix) {
            f32_count += shape[i].rows;
            i8_count += n;
        } else {
            f32_count += n;
        }
    }
    if (f32_count > SIZE_MAX / sizeof(float) || i8_count > SIZE_MAX) return AS_ERR_OUT_OF_MEMORY;
    model->weights = malloc(f32_count ? (size_t)f32_count * sizeof(float) : 1);
    if (!model->weights) return AS_ERR_OUT_OF_MEMORY;
    if (i8_count) {
        model->qweights = malloc((size_t)i8_count);
        if (!model->qweights) return AS_ERR_OUT_OF_MEMORY;
    }
    float *w = model->weights;
    int8_t *qw = model->qweights;
    as_matrix matrix[AS_TENSOR_COUNT];
    const float *vector[AS_TENSOR_COUNT];
    memset(matrix, 0, sizeof matrix);
    memset(vector, 0, sizeof vector);
    for (int i = 0; i < AS_TENSOR_COUNT; i++) {
        const size_t rows = (size_t)shape[i].rows, cols = (size_t)shape[i].cols, n = rows * cols;
        as_status st = AS_OK;
        if (n == 0) continue;
        if (type == AS_WEIGHT_I8 && shape[i].matrix) {
            st = read_i8_matrix(p, rows, cols, w, qw);
            matrix[i].scale = w;
            matrix[i].i8 = qw;
            w += rows;
            qw += n;
        } else {
            if (type == AS_WEIGHT_F16) {
                for (size_t k = 0; k < n && st == AS_OK; k++) {
                    uint16_t h = (uint16_t)(p[2 * k] | (p[2 * k + 1] << 8));
                    if (!half_to_float(h, &w[k])) st = AS_ERR_BAD_WEIGHTS;
                }
            } else {
                st = read_f32_values(p, n, w);
            }
            if (shape[i].matrix) matrix[i].f32 = w;
            else vector[i] = w;
            w += n;
        }
        if (st != AS_OK) return st;
        p += (size_t)tensor_file_bytes(&shape[i], type);
    }
    model->src_embedding = matrix[AS_T_SRC_EMBEDDING];
    model->enc_w_ih[0] = matrix[AS_T_ENC_FWD_W_IH];
    model->enc_w_hh[0] = matrix[AS_T_ENC_FWD_W_HH];
    model->enc_b_ih[0] = vector[AS_T_ENC_FWD_B_IH];
    model->enc_b_hh[0] = vector[AS_T_ENC_FWD_B_HH];
    model->enc_ln_ih[0] = (as_layer_norm){vector[AS_T_ENC_FWD_LN_IH_GAIN], vector[AS_T_ENC_FWD_LN_IH_SHIFT]};
    model->enc_ln_hh[0] = (as_layer_norm){vector[AS_T_ENC_FWD_LN_HH_GAIN], vector[AS_T_ENC_FWD_LN_HH_SHIFT]};
    model->enc_w_ih[1] = matrix[AS_T_ENC_BWD_W_IH];
    model->enc_w_hh[1] = matrix[AS_T_ENC_BWD_W_HH];
    model->enc_b_ih[1] = vector[AS_T_ENC_BWD_B_IH];
    model->enc_b_hh[1] = vector[AS_T_ENC_BWD_B_HH];
    model->enc_ln_ih[1] = (as_layer_norm){vector[AS_T_ENC_BWD_LN_IH_GAIN], vector[AS_T_ENC_BWD_LN_IH_SHIFT]};
    model->enc_ln_hh[1] = (as_layer_norm){vector[AS_T_ENC_BWD_LN_HH_GAIN], vector[AS_T_ENC_BWD_LN_HH_SHIFT]};
    model->init_w = matrix[AS_T_INIT_W];
    model->init_b = vector[AS_T_INIT_B];
    model->attn_query_w = matrix[AS_T_ATTN_QUERY_W];
    model->attn_query_b = vector[AS_T_ATTN_QUERY_B];
    model->attn_key_w = matrix[AS_T_ATTN_KEY_W];
    model->attn_key_b = vector[AS_T_ATTN_KEY_B];
    model->attn_v = vector[AS_T_ATTN_V];
    model->attn_v_b = vector[AS_T_ATTN_V_B];
    model->tgt_embedding = matrix[AS_T_TGT_EMBEDDING];
    model->dec_w_ih = matrix[AS_T_DEC_W_IH];
    model->dec_w_hh = matrix[AS_T_DEC_W_HH];
    model->dec_b_ih = vector[AS_T_DEC_B_IH];
    model->dec_b_hh = vector[AS_T_DEC_B_HH];
    model->dec_ln_ih = (as_layer_norm){vector[AS_T_DEC_LN_IH_GAIN], vector[AS_T_DEC_LN_IH_SHIFT]};
    model->dec_ln_hh = (as_layer_norm){vector[AS_T_DEC_LN_HH_GAIN], vector[AS_T_DEC_LN_HH_SHIFT]};
    model->out_w = matrix[AS_T_OUT_W];
    model->out_b = vector[AS_T_OUT_B];
    model->out_ln = (as_layer_norm){vector[AS_T_OUT_LN_GAIN], vector[AS_T_OUT_LN_SHIFT]};
    model->proj_w = matrix[AS_T_PROJ_W];
    model->proj_b = vector[AS_T_PROJ_B];
    return AS_OK;
}

/* ---- public ------------------------------------------------------------ */

as_status as_model_load(const uint8_t *bytes, size_t length, as_model **model_out) {
    if (!model_out) return AS_ERR_NULL_ARGUMENT;
    *model_out = NULL;
    if (!bytes && length > 0) return AS_ERR_NULL_ARGUMENT;

    /* Magic first, on as many bytes as there are: a short text file is "not a
     * model", while a cut-off model is "too short". */
    const size_t magic_len = sizeof AS_FORMAT_MAGIC - 1;
    const size_t have = length < magic_len ? length : magic_len;
    if (have > 0 && memcmp(bytes, AS_FORMAT_MAGIC, have) != 0) return AS_ERR_BAD_MAGIC;
    if (length < AS_OFF_FORMAT_VERSION + 4) return AS_ERR_TOO_SHORT;
    const uint32_t version = read_u32(bytes + AS_OFF_FORMAT_VERSION);
    if (version > AS_FORMAT_VERSION) return AS_ERR_VERSION_TOO_NEW;
    if (version < AS_FORMAT_VERSION_OLDEST) return AS_ERR_VERSION_UNSUPPORTED;
    if (length < AS_HEADER_SIZE) return AS_ERR_TOO_SHORT;

    as_model_info info;
    uint32_t vocab_bytes, tensor_bytes, crc;
    as_status st = parse_header(bytes, &info, &vocab_bytes, &tensor_bytes, &crc);
    if (st != AS_OK) return st;

    /* The whole-size check: nothing past the header is touched before it. */
    const uint64_t vocab_end = (uint64_t)AS_HEADER_SIZE + vocab_bytes;
    const uint64_t tensor_offset = (vocab_end + 3u) & ~(uint64_t)3u;
    const uint64_t expected = tensor_offset + tensor_bytes;
    if ((uint64_t)length != expected) return AS_ERR_SIZE_MISMATCH;

    if (file_crc32(bytes, length) != crc) return AS_ERR_CHECKSUM;

    as_model *model = calloc(1, sizeof *model);
    if (!model) return AS_ERR_OUT_OF_MEMORY;
    model->info = info;
    size_t pos = AS_HEADER_SIZE;
    st = parse_vocab(bytes, (size_t)vocab_end, &pos, info.src_vocab_size, &model->src);
    if (st == AS_OK) st = parse_vocab(bytes, (size_t)vocab_end, &pos, info.tgt_vocab_size, &model->tgt);
    if (st == AS_OK && (info.arch_flags & AS_ARCH_SUBWORDS)) {
        if (!has_subword_base(&model->src) || !has_subword_base(&model->tgt)) st = AS_ERR_BAD_SEGMENTATION;
        if (st == AS_OK) st = parse_merges(bytes, (size_t)vocab_end, &pos, model);
    }
    if (st == AS_OK && pos != (size_t)vocab_end) st = AS_ERR_BAD_VOCABULARY;
    for (size_t i = (size_t)vocab_end; st == AS_OK && i < (size_t)tensor_offset; i++)
        if (bytes[i] != 0) st = AS_ERR_BAD_VOCABULARY;
    if (st == AS_OK) st = build_source_hash(model);
    if (st == AS_OK) st = read_weights(model, bytes + (size_t)tensor_offset);
    if (st == AS_OK) st = as_model_pack_weights(model);
    if (st != AS_OK) {
        as_model_free(model);
        return st;
    }
    *model_out = model;
    return AS_OK;
}

static void free_vocab(as_vocab *v) {
    free(v->text);
    free(v->offset);
    free(v->length);
}

void as_model_free(as_model *model) {
    if (!model) return;
    free_vocab(&model->src);
    free_vocab(&model->tgt);
    free(model->src_hash);
    free(model->merges.entries);
    free(model->merges.hash);
    free(model->weights);
    free(model->qweights);
    free(model);
}

const as_model_info *as_model_get_info(const as_model *model) {
    return model ? &model->info : NULL;
}

static const char *vocab_token(const as_vocab *v, int32_t id, size_t *length_out) {
    if (id < 0 || (uint32_t)id >= v->size) {
        if (length_out) *length_out = 0;
        return NULL;
    }
    if (length_out) *length_out = v->length[id];
    return v->text + v->offset[id];
}

const char *as_model_source_token(const as_model *model, int32_t id, size_t *length_out) {
    if (!model) return NULL;
    return vocab_token(&model->src, id, length_out);
}

const char *as_model_target_token(const as_model *model, int32_t id, size_t *length_out) {
    if (!model) return NULL;
    return vocab_token(&model->tgt, id, length_out);
}
