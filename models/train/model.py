"""The translator: bidirectional GRU encoder, GRU decoder, pluggable attention.

This module is the reference the C engine (src/engine.c) mirrors step for step;
models/FORMAT.md lists the tensors in the order the exporter writes them.

Shapes use: B batch, S source length, T target length, E embed_dim,
He encoder_hidden (per direction), Hd decoder_hidden, A attention_dim,
O output_dim, Vs/Vt vocabulary sizes.
"""
import math
from dataclasses import dataclass, asdict

import torch
import torch.nn as nn
import torch.nn.functional as F

PAD, UNK, BOS, EOS = 0, 1, 2, 3
SPECIALS = ["<pad>", "<unk>", "<s>", "</s>"]

# attention_kind values, shared with the file format (src/alignscope_format.h)
ATTENTION_KINDS = {"none": 0, "additive": 1, "dot": 2, "general": 3, "scaled_dot": 4}


@dataclass
class ModelConfig:
    src_vocab_size: int
    tgt_vocab_size: int
    attention: str = "additive"
    embed_dim: int = 128
    encoder_hidden: int = 256
    decoder_hidden: int = 256
    attention_dim: int = 256
    output_dim: int = 256
    dropout: float = 0.2
    # Training-only choices (the file stores the same tensors either way):
    # tie_target_embeddings: the output layer's weights are the target embedding
    # table (Press & Wolf 2017; needs output_dim == embed_dim); word_dropout: the
    # chance that a token's embedding, source or target, is zeroed in training
    # (Sennrich & Zhang 2019's word dropout).
    tie_target_embeddings: bool = False
    word_dropout: float = 0.0
    # layer_norm: layer normalisation (Ba, Kiros & Hinton 2016) inside both GRUs and
    # of the deep output, issue 28's recipe list. Unlike the two above it changes the
    # network the engine runs: the file says so (arch_flags layer_norm) and carries the
    # gains and shifts in place of the GRU biases (models/FORMAT.md 4.1).
    layer_norm: bool = False

    def normalised(self):
        """Fill in dims that the attention kind fixes (dot needs Hd == 2He)."""
        cfg = ModelConfig(**asdict(self))
        if cfg.attention in ("dot", "scaled_dot"):
            cfg.decoder_hidden = 2 * cfg.encoder_hidden
            cfg.attention_dim = 0
        elif cfg.attention == "general":
            cfg.attention_dim = cfg.decoder_hidden
        elif cfg.attention == "none":
            cfg.attention_dim = 0
        return cfg

    def trained_score_scale(self):
        """Multiplier applied to scores before the softmax during training."""
        if self.attention == "scaled_dot":
            return 1.0 / math.sqrt(self.decoder_hidden)
        return 1.0


# The epsilon under every layer norm's square root; src/alignscope_format.h
# AS_LAYER_NORM_EPSILON is the engine's (tests/definitions.test.mjs compares them).
LAYER_NORM_EPSILON = 1e-5


class BlockLayerNorm(nn.Module):
    """Layer normalisation of a GRU pre-activation (..., blocks*H), each H-block (a
    gate's r, z or n) by its own mean and variance, then a learnt gain and shift
    (blocks*H,). The shift is the block's bias."""

    def __init__(self, blocks, size):
        super().__init__()
        self.blocks, self.size = blocks, size
        self.gain = nn.Parameter(torch.ones(blocks * size))
        self.shift = nn.Parameter(torch.zeros(blocks * size))
        self.epsilon = LAYER_NORM_EPSILON

    def forward(self, x):
        # (the shape as a list, not reshape(*shape[:-1], ...): the same view, and
        # TorchScript compiles it, which the bench's ONNX export of the encoder needs)
        blocked = x.reshape(list(x.shape[:-1]) + [self.blocks, self.size])
        normed = F.layer_norm(blocked, (self.size,), eps=self.epsilon)
        return normed.reshape(x.shape) * self.gain + self.shift


class LayerNormGRUCell(nn.Module):
    """A GRU cell with both pre-activations layer-normalised, gate by gate:
        gi = LN_i(W_ih x)  (B,3H)      gh = LN_h(W_hh h)  (B,3H)   blocks r | z | n
        r = sigmoid(gi_r + gh_r)   z = sigmoid(gi_z + gh_z)   n = tanh(gi_n + r * gh_n)
        h' = (1 - z) * n + z * h
    the same gate algebra as nn.GRUCell, the LN shifts standing for its biases.
    input_part works on any leading shape, so the encoder does all time steps at once."""

    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.weight_ih = nn.Linear(input_size, 3 * hidden_size, bias=False)
        self.weight_hh = nn.Linear(hidden_size, 3 * hidden_size, bias=False)
        self.norm_ih = BlockLayerNorm(3, hidden_size)
        self.norm_hh = BlockLayerNorm(3, hidden_size)

    def input_part(self, x):
        """x (..., I) -> gi (..., 3H)."""
        return self.norm_ih(self.weight_ih(x))

    def step(self, gi, h):
        """gi (B,3H) from input_part, h (B,H) -> h' (B,H)."""
        gh = self.norm_hh(self.weight_hh(h))
        gi_r, gi_z, gi_n = gi.chunk(3, dim=-1)
        gh_r, gh_z, gh_n = gh.chunk(3, dim=-1)
        r = torch.sigmoid(gi_r + gh_r)
        z = torch.sigmoid(gi_z + gh_z)
        n = torch.tanh(gi_n + r * gh_n)
        return (1 - z) * n + z * h

    def forward(self, x, h):
        return self.step(self.input_part(x), h)


class LayerNormBiGRU(nn.Module):
    """Bidirectional layer-normalised GRU over padded batches: embedded (B,S,I) and
    mask (B,S) (True on real tokens, which come first) -> annotations (B,S,2H),
    [forward ; backward], zero at padding as pad_packed_sequence gives. A padded
    position leaves the state as it was, so the backward pass starts from zeros at
    each sentence's own last token: every sentence is encoded as if alone."""

    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.forward_cell = LayerNormGRUCell(input_size, hidden_size)
        self.backward_cell = LayerNormGRUCell(input_size, hidden_size)

    def run(self, cell, gi, mask, steps):
        # gi (B,S,3H) is read one position at a time through unbind's views: their
        # gradients come back as one stack. Indexing gi[:, t] instead would give each
        # step's gradient as a zero-filled (B,S,3H) tensor to be summed, S times per
        # direction: 40 % of an update went to that fill and add (batch 192, S 18).
        B, H = gi.size(0), self.hidden_size
        gi_at = gi.unbind(1)
        keep_at = mask.unsqueeze(2).unbind(1)
        h = gi.new_zeros(B, H)
        outputs = [None] * gi.size(1)
        for t in steps:
            keep = keep_at[t]
            h = torch.where(keep, cell.step(gi_at[t], h), h)
            outputs[t] = h * keep
        return torch.stack(outputs, dim=1)

    def forward(self, embedded, mask):
        S = embedded.size(1)
        forward_states = self.run(self.forward_cell, self.forward_cell.input_part(embedded), mask, range(S))
        backward_states = self.run(self.backward_cell, self.backward_cell.input_part(embedded), mask,
                                   range(S - 1, -1, -1))
        return torch.cat([forward_states, backward_states], dim=2)


class Seq2SeqAttention(nn.Module):
    def __init__(self, config: ModelConfig):
        super().__init__()
        cfg = config.normalised()
        self.config = cfg
        E, He, Hd, A, O = cfg.embed_dim, cfg.encoder_hidden, cfg.decoder_hidden, cfg.attention_dim, cfg.output_dim
        self.src_embedding = nn.Embedding(cfg.src_vocab_size, E, padding_idx=PAD)
        if cfg.layer_norm:
            self.encoder = LayerNormBiGRU(E, He)
        else:
            self.encoder = nn.GRU(E, He, batch_first=True, bidirectional=True)
        self.init_state = nn.Linear(He, Hd)  # s0 = tanh(W h_backward_0 + b)
        if cfg.attention == "additive":
            self.attn_query = nn.Linear(Hd, A, bias=False)   # W_a
            self.attn_key = nn.Linear(2 * He, A, bias=False)  # U_a
            self.attn_v = nn.Parameter(torch.empty(A).uniform_(-0.1, 0.1))
        elif cfg.attention == "general":
            self.attn_key = nn.Linear(2 * He, Hd, bias=False)  # W in s^T W h
        self.tgt_embedding = nn.Embedding(cfg.tgt_vocab_size, E, padding_idx=PAD)
        self.decoder_cell = (LayerNormGRUCell if cfg.layer_norm else nn.GRUCell)(E + 2 * He, Hd)
        self.deep_output = nn.Linear(Hd + 2 * He + E, O)
        # t = tanh(LN(deep_output(...))) under layer_norm: one block of O
        self.deep_output_norm = BlockLayerNorm(1, O) if cfg.layer_norm else None
        self.projection = nn.Linear(O, cfg.tgt_vocab_size)
        if cfg.tie_target_embeddings:
            if O != E:
                raise ValueError(f"tied target embeddings need output_dim == embed_dim (here {O} and {E})")
            self.projection.weight = self.tgt_embedding.weight  # one (Vt,E) table, read both ways
        self.dropout = nn.Dropout(cfg.dropout)
        self.score_scale = cfg.trained_score_scale()

    def drop_words(self, embedded):
        """Word dropout in training: each token's embedding (..., E) zeroed with chance
        config.word_dropout, the whole vector at once. Draws no random number when 0,
        so a run without it keeps its exact trajectory."""
        p = self.config.word_dropout
        if not self.training or p <= 0:
            return embedded
        keep = torch.rand(embedded.shape[:-1] + (1,), device=embedded.device) >= p
        return embedded * keep

    # -- encoder -------------------------------------------------------------
    def encode(self, src, src_lengths):
        """src (B,S) ids -> annotations H (B,S,2He), keys (B,S,*), s0 (B,Hd)."""
        embedded = self.dropout(self.drop_words(self.src_embedding(src)))
        if self.config.layer_norm:
            annotations = self.encoder(embedded, src != PAD)
        else:
            packed = nn.utils.rnn.pack_padded_sequence(
                embedded, src_lengths.cpu(), batch_first=True, enforce_sorted=False)
            packed_out, _ = self.encoder(packed)
            annotations, _ = nn.utils.rnn.pad_packed_sequence(
                packed_out, batch_first=True, total_length=src.size(1))
        He = self.config.encoder_hidden
        backward_first = annotations[:, 0, He:]
        s0 = torch.tanh(self.init_state(backward_first))
        if self.config.attention == "additive":
            keys = self.attn_key(annotations)          # U_a h_j, once per sentence
        elif self.config.attention == "general":
            keys = self.attn_key(annotations)          # W h_j
        else:
            keys = annotations
        return annotations, keys, s0

    def summary_context(self, annotations, src_lengths):
        """No-attention baseline: [forward last ; backward first] (B,2He)."""
        He = self.config.encoder_hidden
        idx = (src_lengths - 1).view(-1, 1, 1).expand(-1, 1, 2 * He)
        last = annotations.gather(1, idx).squeeze(1)
        return torch.cat([last[:, :He], annotations[:, 0, He:]], dim=1)

    # -- attention -----------------------------------------------------------
    def attention_scores(self, state, keys):
        """Raw scores e_tj before scaling: state (B,Hd), keys (B,S,K) -> (B,S)."""
        kind = self.config.attention
        if kind == "additive":
            query = self.attn_query(state).unsqueeze(1)
            return torch.tanh(query + keys) @ self.attn_v
        return torch.bmm(keys, state.unsqueeze(2)).squeeze(2)

    def attend(self, state, annotations, keys, src_mask, score_scale, forced_alpha=None):
        """-> context (B,2He), alpha (B,S), raw scores (B,S). forced_alpha (B,S): the
        weights to use instead of the softmax (the engine's attention override)."""
        scores = self.attention_scores(state, keys)
        if forced_alpha is not None:
            alpha = forced_alpha
        else:
            scaled = (scores * score_scale).masked_fill(~src_mask, float("-inf"))
            alpha = F.softmax(scaled, dim=1)
        context = torch.bmm(alpha.unsqueeze(1), annotations).squeeze(1)
        return context, alpha, scores

    # -- decoder -------------------------------------------------------------
    def decoder_step(self, prev_token, state, annotations, keys, src_mask, summary, score_scale, forced_alpha=None):
        """One step: y_{t-1} (B,), s_{t-1} (B,Hd) -> features (B,O), s_t, alpha, scores.
        forced_alpha (B,S) or None: alpha_t given instead of the softmax."""
        embedded = self.dropout(self.drop_words(self.tgt_embedding(prev_token)))
        if self.config.attention == "none":
            context, alpha, scores = summary, None, None
        else:
            context, alpha, scores = self.attend(state, annotations, keys, src_mask, score_scale, forced_alpha)
        new_state = self.decoder_cell(torch.cat([embedded, context], dim=1), state)
        pre_activation = self.deep_output(torch.cat([new_state, context, embedded], dim=1))
        if self.deep_output_norm is not None:
            pre_activation = self.deep_output_norm(pre_activation)
        features = torch.tanh(pre_activation)
        return self.dropout(features), new_state, alpha, scores, context

    def forward(self, src, src_lengths, tgt_in):
        """Teacher forcing: tgt_in (B,T) starts with <s>; returns logits (B,T,Vt)."""
        return self.projection(self.features(src, src_lengths, tgt_in))

    def features(self, src, src_lengths, tgt_in):
        """Teacher forcing up to the output layer: -> deep-output features (B,T,O)."""
        annotations, keys, state = self.encode(src, src_lengths)
        src_mask = src != PAD
        summary = self.summary_context(annotations, src_lengths) if self.config.attention == "none" else None
        features = []
        for t in range(tgt_in.size(1)):
            out, state, _, _, _ = self.decoder_step(
                tgt_in[:, t], state, annotations, keys, src_mask, summary, self.score_scale)
            features.append(out)
        return torch.stack(features, dim=1)

    @torch.no_grad()
    def greedy(self, src, src_lengths, max_len, score_scale=None, banned=()):
        """Batched greedy decoding -> list of token id lists (without </s>), alphas.
        banned: token ids never chosen (a subword model's <pad> <unk> <s>)."""
        scale = self.score_scale if score_scale is None else score_scale
        annotations, keys, state = self.encode(src, src_lengths)
        src_mask = src != PAD
        summary = self.summary_context(annotations, src_lengths) if self.config.attention == "none" else None
        B = src.size(0)
        prev = torch.full((B,), BOS, dtype=torch.long, device=src.device)
        done = torch.zeros(B, dtype=torch.bool, device=src.device)
        outputs, alphas = [], []
        for _ in range(max_len):
            out, state, alpha, _, _ = self.decoder_step(prev, state, annotations, keys, src_mask, summary, scale)
            logits = self.projection(out)
            if banned:
                logits[:, list(banned)] = float("-inf")
            prev = logits.argmax(dim=1)
            outputs.append(prev)
            alphas.append(alpha)
            done |= prev == EOS
            if done.all():
                break
        outputs = torch.stack(outputs, dim=1).tolist()
        results = []
        for row in outputs:
            results.append(row[:row.index(EOS)] if EOS in row else row)
        return results, alphas


def suppress_specials(model):
    """A subword model never emits <pad>, <unk> or <s>: zero projection rows and a
    -10000 bias, in the weights themselves, so the engine needs no rule of its own.
    A model whose output layer is tied to its target embeddings is untied first
    (the projection gets its own copy): <s>'s embedding is the decoder's first
    input and must not be zeroed with its output row."""
    with torch.no_grad():
        if model.projection.weight is model.tgt_embedding.weight:
            model.projection.weight = nn.Parameter(model.tgt_embedding.weight.detach().clone())
        for token_id in (PAD, UNK, BOS):
            model.projection.weight[token_id].zero_()
            model.projection.bias[token_id] = -10000.0


def max_target_tokens(source_tokens):
    """Decoding length cap, shared with the C engine: 2*S + 10."""
    return 2 * source_tokens + 10
