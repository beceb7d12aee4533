"""A test model of the PyTorch seq2seq tutorial's architecture, end to end.

  /usr/bin/python3 tests/support/tutorial_model.py OUT_DIR

What a student does, in miniature: the tutorial's networks (defined below
from its description: EncoderRNN, BahdanauAttention, AttnDecoderRNN, hidden
size H everywhere), trained for a few seconds on the made-up corpus of
models/train/toy_corpus.py normalised with the tutorial's normalizeString,
saved with the three lines of models/train/convert_tutorial.py's docstring,
then converted with it. Writes OUT_DIR/tutorial.alsc (f32, the converter's
default) and tutorial-int8.alsc (--int8), each with its .parity.json
(tests/parity.test.mjs), tutorial-checkpoint.pt and tutorial.meta.json.

Before it writes the meta file it checks the converter against this module's
own tutorial-style evaluate() (the networks' forward(), greedy for
MAX_LENGTH steps, words up to EOS): every fixture sentence whose words are
all in the vocabulary must give the same words. tests/byo.test.mjs reads the
result. `./build.sh models` runs this (about 5 s on one core).
"""
import json
import os
import random
import subprocess
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
TRAIN = os.path.join(HERE, "..", "..", "models", "train")
sys.path.insert(0, TRAIN)
from tutorial_text import normalize_string  # noqa: E402

SOS_token, EOS_token = 0, 1
MAX_LENGTH = 10
HIDDEN = 32
SENTENCES = [
    "Open the file",
    "Show the new window!",
    "Print the Zorglub page",          # unknown word: <unk>, zero embedding (the tutorial would fail)
    "DÉLETE the sélected document?",   # accents folded, '?' its own token
    "save   the LAST   menu.",         # '.' dropped by the current tutorial
    "Close the current dialog",
    "Hide the list",
]


class Lang:
    """The tutorial's vocabulary: index2word {0: "SOS", 1: "EOS", ...}."""

    def __init__(self):
        self.word2index, self.index2word = {}, {0: "SOS", 1: "EOS"}

    def add(self, sentence):
        for word in sentence.split(" "):
            if word not in self.word2index:
                self.word2index[word] = len(self.index2word)
                self.index2word[len(self.index2word)] = word


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size, dropout_p=0.1):
        super().__init__()
        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, ids):
        """ids (B,S) -> outputs (B,S,H), final hidden (1,B,H)."""
        return self.gru(self.dropout(self.embedding(ids)))


class BahdanauAttention(nn.Module):
    def __init__(self, hidden_size):
        super().__init__()
        self.Wa = nn.Linear(hidden_size, hidden_size)
        self.Ua = nn.Linear(hidden_size, hidden_size)
        self.Va = nn.Linear(hidden_size, 1)

    def forward(self, query, keys):
        """query (B,1,H), keys (B,S,H) -> context (B,1,H), weights (B,1,S)."""
        scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys))).squeeze(2).unsqueeze(1)
        weights = F.softmax(scores, dim=-1)
        return torch.bmm(weights, keys), weights


class AttnDecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size, dropout_p=0.1):
        super().__init__()
        self.embedding = nn.Embedding(output_size, hidden_size)
        self.attention = BahdanauAttention(hidden_size)
        self.gru = nn.GRU(2 * hidden_size, hidden_size, batch_first=True)
        self.out = nn.Linear(hidden_size, output_size)
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, encoder_outputs, encoder_hidden, target=None):
        """MAX_LENGTH steps from SOS, teacher-forced when target (B,MAX_LENGTH)
        is given, else greedy -> log-probabilities (B,MAX_LENGTH,V)."""
        batch = encoder_outputs.size(0)
        decoder_input = torch.full((batch, 1), SOS_token, dtype=torch.long)
        hidden, outputs = encoder_hidden, []
        for i in range(MAX_LENGTH):
            embedded = self.dropout(self.embedding(decoder_input))
            context, _ = self.attention(hidden.permute(1, 0, 2), encoder_outputs)
            output, hidden = self.gru(torch.cat((embedded, context), dim=2), hidden)
            output = self.out(output)
            outputs.append(output)
            decoder_input = target[:, i].unsqueeze(1) if target is not None else output.topk(1)[1].squeeze(-1)
        return F.log_softmax(torch.cat(outputs, dim=1), dim=-1)


def read_pairs(path):
    with open(path, encoding="utf-8") as f:
        return [tuple(normalize_string(s) for s in line.rstrip("\n").split("\t")) for line in f if "\t" in line]


def padded(lang, sentences):
    """Sentences -> (B, MAX_LENGTH) ids + EOS, zero-padded like the tutorial's get_dataloader."""
    out = torch.zeros(len(sentences), MAX_LENGTH, dtype=torch.long)
    for b, s in enumerate(sentences):
        ids = [lang.word2index[w] for w in s.split(" ")] + [EOS_token]
        out[b, :len(ids)] = torch.tensor(ids)
    return out


def train(pairs, input_lang, output_lang, seconds_budget=8.0, epochs=20):
    """Adam, teacher forcing. Unlike the tutorial, a batch holds sources of
    one length, so the encoder never reads padding: evaluate() does not pad,
    and on this tiny corpus the difference decides whether it learns."""
    torch.manual_seed(5)
    encoder = EncoderRNN(len(input_lang.index2word), HIDDEN)
    decoder = AttnDecoderRNN(HIDDEN, len(output_lang.index2word))
    params = list(encoder.parameters()) + list(decoder.parameters())
    optimizer = torch.optim.Adam(params, lr=0.01)
    by_length = {}
    for en, fr in pairs:
        by_length.setdefault(len(en.split(" ")), []).append((en, fr))
    groups = [(padded(input_lang, [p[0] for p in group])[:, :n + 1], padded(output_lang, [p[1] for p in group]))
              for n, group in sorted(by_length.items())]
    start, rng, loss = time.time(), random.Random(5), None
    for epoch in range(epochs):
        batches = [(src, tgt, i) for src, tgt in groups for i in range(0, len(src), 32)]
        rng.shuffle(batches)
        for src, tgt, i in batches:
            outputs, hidden = encoder(src[i:i + 32])
            log_probs = decoder(outputs, hidden, tgt[i:i + 32])
            loss = F.nll_loss(log_probs.reshape(-1, log_probs.size(-1)), tgt[i:i + 32].reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        if time.time() - start > seconds_budget:
            break
    return encoder.eval(), decoder.eval(), epoch + 1, float(loss)


@torch.no_grad()
def evaluate(encoder, decoder, sentence, input_lang, output_lang):
    """The tutorial's evaluate(): decoded words up to and including '<EOS>'."""
    ids = torch.tensor([[input_lang.word2index[w] for w in normalize_string(sentence).split(" ")] + [EOS_token]])
    outputs, hidden = encoder(ids)
    decoded = decoder(outputs, hidden).topk(1)[1].squeeze()
    words = []
    for idx in decoded.tolist():
        if idx == EOS_token:
            words.append("<EOS>")
            break
        words.append(output_lang.index2word[idx])
    return words


def main():
    out = sys.argv[1]
    run_dir = os.path.join(out, "tutorial-run")
    os.makedirs(run_dir, exist_ok=True)
    started = time.time()
    subprocess.run([sys.executable, os.path.join(TRAIN, "toy_corpus.py"), run_dir, "--pairs", "400"], check=True)
    pairs = read_pairs(os.path.join(run_dir, "train.tsv"))
    input_lang, output_lang = Lang(), Lang()
    for en, fr in pairs:
        input_lang.add(en)
        output_lang.add(fr)
    encoder, decoder, epochs, loss = train(pairs, input_lang, output_lang)

    # What a student adds to the tutorial (convert_tutorial.py's docstring):
    torch.save({"encoder": encoder.state_dict(), "decoder": decoder.state_dict(),
                "input_lang": input_lang.index2word, "output_lang": output_lang.index2word},
               os.path.join(out, "tutorial-checkpoint.pt"))

    sentences = os.path.join(run_dir, "sentences.txt")
    with open(sentences, "w", encoding="utf-8") as f:
        f.write("\n".join(SENTENCES) + "\n")
    for name, extra in (("tutorial", []), ("tutorial-int8", ["--int8"])):
        subprocess.run([sys.executable, os.path.join(TRAIN, "convert_tutorial.py"),
                        os.path.join(out, "tutorial-checkpoint.pt"), os.path.join(out, f"{name}.alsc"),
                        "--languages", "en,fr", "--fixtures", os.path.join(out, f"{name}.parity.json"),
                        "--sentences", sentences] + extra, check=True, stdout=subprocess.DEVNULL)

    with open(os.path.join(out, "tutorial.parity.json"), encoding="utf-8") as f:
        fixture = json.load(f)
    compared = []
    for case in fixture["cases"]:
        words = normalize_string(case["text"]).split(" ")
        if case["score_scale"] != 1.0 or any(w not in input_lang.word2index for w in words):
            continue
        want = evaluate(encoder, decoder, case["text"], input_lang, output_lang)
        got = ["<EOS>" if t == "</s>" else t for t in case["target_tokens"]]
        if got != want:
            raise SystemExit(f"tutorial_model: converter's evaluate() differs from the tutorial's on "
                             f"{case['text']!r}: {got} vs {want}")
        compared.append({"text": case["text"], "words": want})
    meta = {"hidden": HIDDEN, "pairs": len(pairs), "epochs": epochs, "final_loss": loss,
            "source_words": len(input_lang.index2word), "target_words": len(output_lang.index2word),
            "tutorial_evaluate_matches": compared, "seconds": round(time.time() - started, 2)}
    with open(os.path.join(out, "tutorial.meta.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1)
    print(f"tutorial model: {epochs} epochs, loss {loss:.3f}, {len(compared)} sentences identical to the "
          f"tutorial-style evaluate(), {meta['seconds']} s")


if __name__ == "__main__":
    main()
