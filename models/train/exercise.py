"""The teaching notes' exercise "Add attention to your seq2seq", runnable:
the PyTorch tutorial's seq2seq trained twice on the same sentences, without
attention and with Luong's dot-product attention, compared by validation BLEU
overall and on the longest 10% of validation sentences, and both exported as
.alsc files that the page opens.

  ./build.sh exercise       (LANG_PAIR, EXERCISE_UPDATES, EXERCISE_MINUTES, EXERCISE_DATA, EXERCISE_OUT)
  /usr/bin/python3 models/train/exercise.py --data models/train/data/en-fr --out build/exercise/en-fr \
      [--languages en,fr] [--updates N] [--minutes M]

The two models (hidden size H = 128, the tutorial's):
- no attention: the tutorial's EncoderRNN and DecoderRNN (the decoder's GRU
  starts from the encoder's last state and reads ReLU(embedding) alone);
- dot attention: the tutorial's EncoderRNN and AttnDecoderRNN with its
  BahdanauAttention replaced by Luong's dot score: at each step the query
  (the decoder state before the step) is compared with every encoder output
  by a dot product, the softmax of the scores weighs the outputs into the
  context, and [embedding; context] goes into the GRU. No parameters of its
  own: the rest of the network is the same.

The sentences: corpus.py's train.tsv and dev.tsv (English -> LANG), normalised
with the tutorial's normalizeString (models/train/tutorial_text.py), pairs of
1 to --max-words words on both sides whose words are all among the --vocab
most frequent of their side in those training pairs (the tutorial has no
unknown word; its own data is a filtered subset too). Validation: up to
--dev-sentences such pairs of dev.tsv, drawn with a fixed seed.

Training: Adam, teacher forcing, cross-entropy, batches of --batch pairs of
one source length (the encoder never reads padding, as evaluate() does not),
--updates updates each, the same batches in the same order for both. With
two or more cores the two models train side by side, one thread each
(processes of this script, --train-one). --minutes stops each earlier (for a
slow machine): the table says how many updates each got.

Then each network is saved as a student saves the tutorial's (the three lines
of convert_tutorial.py's docstring) and converted by convert_tutorial.py
(f32, max_target_tokens = --max-words + 1, the tutorial's MAX_LENGTH), and
the engine (build/native/alignscope, greedy) translates the validation
sentences from the files: BLEU (bleu.corpus_bleu, 4-gram, on the normalised
words, as the tutorial's vocabulary has them) is the page's, not a PyTorch
twin's. The engine's words are also compared with this script's own PyTorch
greedy decoding of the same networks. Writes to --out: the two .alsc files,
the checkpoints, each run's log and results.json (the table's numbers).
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import openblas_core  # noqa: E402,F401  (its choice is in the environment of the trainings it starts)
from tutorial_text import tutorial_tokens  # noqa: E402

KINDS = ("none", "dot")
TITLES = {"none": "no attention (DecoderRNN)", "dot": "dot attention (Luong)"}
SOS_TOKEN, EOS_TOKEN = 0, 1  # the tutorial's ids; words from 2
DEFAULT_CLI = os.path.join(HERE, "..", "..", "build", "native", "alignscope")


def fail(message):
    raise SystemExit(f"exercise: {message}")


def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1 or str(value) != text.strip():
        raise argparse.ArgumentTypeError(f"must be a positive whole number, not {text!r}")
    return value


def positive_float(text):
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value > 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"must be a positive number, not {text!r}")
    return value


# ---- the sentences ---------------------------------------------------------------

def read_tsv(path):
    """corpus.py's TSV (English, translation[, domain, package]) -> [(english, translation)]."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 2 and parts[0].strip() and parts[1].strip():
                rows.append((parts[0], parts[1]))
    return rows


def short_pairs(rows, max_words):
    """-> [(source words, target words)] of 1 ... max_words words each, normalised the tutorial's way."""
    out = []
    for src, tgt in rows:
        s, t = tutorial_tokens(src), tutorial_tokens(tgt)
        if 1 <= len(s) <= max_words and 1 <= len(t) <= max_words:
            out.append((s, t))
    return out


def prepare(args):
    """The corpus folder -> the training and validation pairs as tutorial ids,
    and both vocabularies (index2word lists: SOS, EOS, words by frequency)."""
    if not os.path.isdir(args.data):
        fail(f"no corpus folder {args.data}: build one with `/usr/bin/python3 models/train/corpus.py --lang LANG` "
             "(./build.sh exercise does that for models/train/data/en-LANG)")
    paths = {name: os.path.join(args.data, f"{name}.tsv") for name in ("train", "dev")}
    for name, path in paths.items():
        if not os.path.isfile(path):
            fail(f"{path} is missing: the corpus folder needs train.tsv and dev.tsv (corpus.py writes both)")
    train = short_pairs(read_tsv(paths["train"]), args.max_words)
    if not train:
        fail(f"{paths['train']} has no sentence pair of 1 to {args.max_words} words on both sides")
    counts = [Counter(w for pair in train for w in pair[side]) for side in (0, 1)]
    vocab = [["SOS", "EOS"] + [w for w, _ in c.most_common(args.vocab)] for c in counts]
    index = [{w: i for i, w in enumerate(v)} for v in vocab]

    def covered(pairs):
        return [([index[0][w] for w in s], [index[1][w] for w in t]) for s, t in pairs
                if all(w in index[0] for w in s) and all(w in index[1] for w in t)]

    train_ids = covered(train)
    dev_ids = covered(short_pairs(read_tsv(paths["dev"]), args.max_words))
    if not dev_ids:
        fail(f"{paths['dev']} has no pair of 1 to {args.max_words} words whose words are all in the vocabulary")
    if len(dev_ids) > args.dev_sentences:
        picked = sorted(random.Random(args.seed).sample(range(len(dev_ids)), args.dev_sentences))
        dev_ids = [dev_ids[i] for i in picked]
    return {"train": train_ids, "dev": dev_ids, "input_lang": vocab[0], "output_lang": vocab[1],
            "max_words": args.max_words}


# ---- the networks: the tutorial's, with a dot-product attention ------------------------

def networks(kind, input_size, output_size, hidden_size):
    """(encoder, decoder) for kind "none" (DecoderRNN) or "dot" (AttnDecoderRNN, dot scores)."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class EncoderRNN(nn.Module):
        def __init__(self, input_size, hidden_size, dropout_p=0.1):
            super().__init__()
            self.embedding = nn.Embedding(input_size, hidden_size)
            self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
            self.dropout = nn.Dropout(dropout_p)

        def forward(self, ids):
            """ids (B,S) -> outputs (B,S,H), final hidden (1,B,H)."""
            return self.gru(self.dropout(self.embedding(ids)))

    class DecoderRNN(nn.Module):
        """The tutorial's decoder without attention."""

        def __init__(self, hidden_size, output_size):
            super().__init__()
            self.embedding = nn.Embedding(output_size, hidden_size)
            self.gru = nn.GRU(hidden_size, hidden_size, batch_first=True)
            self.out = nn.Linear(hidden_size, output_size)

        def forward(self, encoder_outputs, encoder_hidden, inputs):
            """Teacher forcing: inputs (B,T) = SOS then the target -> logits (B,T,V).
            The whole sequence in one GRU call: the same as T steps."""
            output, _ = self.gru(F.relu(self.embedding(inputs)), encoder_hidden)
            return self.out(output)

        def step(self, prev, hidden, encoder_outputs):
            """prev (B,1) -> logits (B,1,V), hidden (1,B,H): the tutorial's forward_step."""
            output, hidden = self.gru(F.relu(self.embedding(prev)), hidden)
            return self.out(output), hidden

    class DotAttention(nn.Module):
        """Luong's dot score: query (B,1,H) . keys (B,S,H) -> context (B,1,H), weights (B,1,S)."""

        def forward(self, query, keys):
            weights = F.softmax(torch.bmm(query, keys.transpose(1, 2)), dim=-1)
            return torch.bmm(weights, keys), weights

    class AttnDecoderRNN(nn.Module):
        """The tutorial's AttnDecoderRNN, DotAttention in place of BahdanauAttention."""

        def __init__(self, hidden_size, output_size, dropout_p=0.1):
            super().__init__()
            self.embedding = nn.Embedding(output_size, hidden_size)
            self.attention = DotAttention()
            self.gru = nn.GRU(2 * hidden_size, hidden_size, batch_first=True)
            self.out = nn.Linear(hidden_size, output_size)
            self.dropout = nn.Dropout(dropout_p)

        def forward(self, encoder_outputs, encoder_hidden, inputs):
            """Teacher forcing: inputs (B,T) -> logits (B,T,V); one projection for all steps."""
            embedded, hidden, outputs = self.dropout(self.embedding(inputs)), encoder_hidden, []
            for t in range(inputs.size(1)):
                context, _ = self.attention(hidden.permute(1, 0, 2), encoder_outputs)
                output, hidden = self.gru(torch.cat((embedded[:, t:t + 1], context), dim=2), hidden)
                outputs.append(output)
            return self.out(torch.cat(outputs, dim=1))

        def step(self, prev, hidden, encoder_outputs):
            embedded = self.dropout(self.embedding(prev))
            context, _ = self.attention(hidden.permute(1, 0, 2), encoder_outputs)
            output, hidden = self.gru(torch.cat((embedded, context), dim=2), hidden)
            return self.out(output), hidden

    decoder = DecoderRNN(hidden_size, output_size) if kind == "none" else AttnDecoderRNN(hidden_size, output_size)
    return EncoderRNN(input_size, hidden_size), decoder


# ---- training one model (a child process) ------------------------------------------

def batches(pairs, size, rng):
    """Endless batches of pairs with one source length, in an order rng draws."""
    by_length = {}
    for pair in pairs:
        by_length.setdefault(len(pair[0]), []).append(pair)
    while True:
        epoch = []
        for length in sorted(by_length):
            group = by_length[length][:]
            rng.shuffle(group)
            epoch += [group[i:i + size] for i in range(0, len(group), size)]
        rng.shuffle(epoch)
        yield from epoch


def tensors(batch):
    """-> source (B,S+1) ending in EOS, decoder inputs (B,T) from SOS, targets (B,T) ending in EOS, -1 after."""
    import torch
    width = max(len(t) for _, t in batch) + 1
    source = torch.tensor([s + [EOS_TOKEN] for s, _ in batch])
    inputs = torch.full((len(batch), width), EOS_TOKEN, dtype=torch.long)
    targets = torch.full((len(batch), width), -1, dtype=torch.long)
    for b, (_, t) in enumerate(batch):
        inputs[b, :len(t) + 1] = torch.tensor([SOS_TOKEN] + t)
        targets[b, :len(t) + 1] = torch.tensor(t + [EOS_TOKEN])
    return source, inputs, targets


def greedy(encoder, decoder, sources, max_length):
    """The tutorial's evaluate() for each source (id lists), batched by length:
    -> target ids up to EOS (included), at most the engine's
    min(2 * S + 10, max_length) of them, S counting the appended EOS."""
    import torch
    out = [None] * len(sources)
    by_length = {}
    for i, s in enumerate(sources):
        by_length.setdefault(len(s), []).append(i)
    with torch.no_grad():
        for length, ids in by_length.items():
            for at in range(0, len(ids), 256):
                chunk = ids[at:at + 256]
                outputs, hidden = encoder(torch.tensor([sources[i] + [EOS_TOKEN] for i in chunk]))
                prev, steps = torch.full((len(chunk), 1), SOS_TOKEN, dtype=torch.long), []
                for _ in range(min(2 * (length + 1) + 10, max_length)):
                    logits, hidden = decoder.step(prev, hidden, outputs)
                    prev = logits.argmax(dim=-1)
                    steps.append(prev)
                rows = torch.cat(steps, dim=1).tolist()
                for i, row in zip(chunk, rows):
                    out[i] = row[:row.index(EOS_TOKEN) + 1] if EOS_TOKEN in row else row
    return out


def train_one(args):
    """One model: args.updates updates (or args.minutes), then the tutorial's
    checkpoint (tutorial-KIND.pt) and KIND.train.json (its updates, time,
    loss and the PyTorch greedy translations of the validation sources)."""
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(args.threads)
    from checkpoints import load_own
    data = load_own(args.prepared)
    kind = args.train_one
    torch.manual_seed(args.seed)
    encoder, decoder = networks(kind, len(data["input_lang"]), len(data["output_lang"]), args.hidden)
    params = list(encoder.parameters()) + list(decoder.parameters())
    optimizer = torch.optim.Adam(params, lr=args.lr)
    stream = batches(data["train"], args.batch, random.Random(args.seed))
    started = time.time()
    deadline = started + 60 * args.minutes if args.minutes else math.inf
    update, recent, stopped_early = 0, [], False
    while update < args.updates:
        if time.time() > deadline:
            stopped_early = True
            break
        source, inputs, targets = tensors(next(stream))
        outputs, hidden = encoder(source)
        logits = decoder(outputs, hidden, inputs)
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1), ignore_index=-1)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 5.0)
        optimizer.step()
        update += 1
        recent = (recent + [float(loss)])[-100:]
        if update % args.log_every == 0 or update == args.updates:
            print(f"[{kind:>4}] update {update}/{args.updates}, loss {sum(recent) / len(recent):.3f}, "
                  f"{time.time() - started:.0f} s", flush=True)
    seconds = time.time() - started
    encoder.eval()
    decoder.eval()
    checkpoint = os.path.join(args.out, f"tutorial-{kind}.pt")
    # What a student adds to the tutorial (convert_tutorial.py's docstring):
    torch.save({"encoder": encoder.state_dict(), "decoder": decoder.state_dict(),
                "input_lang": dict(enumerate(data["input_lang"])), "output_lang": dict(enumerate(data["output_lang"]))},
               checkpoint)
    decoded = greedy(encoder, decoder, [s for s, _ in data["dev"]], data["max_words"] + 1)
    with open(os.path.join(args.out, f"{kind}.train.json"), "w", encoding="utf-8") as f:
        json.dump({"kind": kind, "updates": update, "seconds": round(seconds, 1), "stopped_by_minutes": stopped_early,
                   "loss": sum(recent) / len(recent) if recent else None, "pytorch_greedy": decoded}, f)


# ---- both models, the engine's BLEU, the table ---------------------------------------

def run_training(args, prepared, jobs):
    """Trains both kinds, `jobs` at a time, as child processes of this script."""
    threads = max(1, (os.cpu_count() or 1) // jobs)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": str(threads), "OMP_NUM_THREADS": str(threads)}
    command = [sys.executable, os.path.abspath(__file__), "--prepared", prepared, "--out", args.out,
               "--updates", str(args.updates), "--hidden", str(args.hidden), "--batch", str(args.batch),
               "--lr", str(args.lr), "--seed", str(args.seed), "--threads", str(threads),
               "--log-every", str(args.log_every)] + (["--minutes", str(args.minutes)] if args.minutes else [])
    pending, running = list(KINDS), {}
    try:
        while pending or running:
            while pending and len(running) < jobs:
                kind = pending.pop(0)
                running[kind] = subprocess.Popen(command + ["--train-one", kind], env=env)
            kind, child = next(iter(running.items()))
            if child.wait() != 0:
                fail(f"training the {TITLES[kind]} model failed (exit {child.returncode}); its messages are above")
            del running[kind]
    finally:
        for child in running.values():
            child.terminate()


def longest_tenth(dev):
    """Indices of the longest 10% of the validation pairs by source words (at least one; ties by order)."""
    count = max(1, math.ceil(len(dev) / 10))
    return sorted(sorted(range(len(dev)), key=lambda i: -len(dev[i][0]))[:count])


def evaluate(args, data, kind, alsc):
    """The engine's greedy translations of the validation sources from the file -> BLEU overall and
    on the longest tenth, and how many agree word for word with the PyTorch greedy decoding."""
    from bleu import corpus_bleu
    from convert_tutorial import our_id
    from eval_alsc import engine_outputs
    src_words, tgt_words = data["input_lang"], data["output_lang"]
    sources = [" ".join(src_words[i] for i in s) for s, _ in data["dev"]]
    outputs, refused = engine_outputs(args.cli, alsc, sources)
    if refused:
        fail(f"the engine refused {refused} validation sentences with {alsc}")
    hypotheses = [out["translation"].split() for out in outputs]
    references = [[tgt_words[i] for i in t] for _, t in data["dev"]]
    longest = longest_tenth(data["dev"])
    with open(os.path.join(args.out, f"{kind}.train.json"), encoding="utf-8") as f:
        trained = json.load(f)
    agree = sum(out["target_ids"] == [our_id(i) for i in ids] for out, ids in zip(outputs, trained["pytorch_greedy"]))
    return {"updates": trained["updates"], "train_seconds": trained["seconds"],
            "stopped_by_minutes": trained["stopped_by_minutes"], "loss": trained["loss"],
            "bleu": round(corpus_bleu(hypotheses, references), 2),
            "bleu_longest_10pct": round(corpus_bleu([hypotheses[i] for i in longest],
                                                    [references[i] for i in longest]), 2),
            "engine_agrees_with_pytorch": agree, "file": alsc}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", help="a corpus folder with train.tsv and dev.tsv (models/train/data/en-LANG)")
    ap.add_argument("--out", required=True, help="where the model files, checkpoints and results go")
    ap.add_argument("--languages", default="en,fr", help="source,target tags for the files (default en,fr)")
    ap.add_argument("--updates", type=positive_int, default=4000, help="updates per model (default 4000, as ./build.sh exercise)")
    ap.add_argument("--minutes", type=positive_float, help="stop each model's training after this many minutes")
    ap.add_argument("--max-words", type=positive_int, default=15, help="words per side at most (default 15)")
    ap.add_argument("--vocab", type=positive_int, default=4000, help="words per side kept (default 4000)")
    ap.add_argument("--dev-sentences", type=positive_int, default=1000, help="validation pairs at most (default 1000)")
    ap.add_argument("--hidden", type=positive_int, default=128, help="the tutorial's hidden_size (default 128)")
    ap.add_argument("--batch", type=positive_int, default=64, help="pairs per update (default 64)")
    ap.add_argument("--lr", type=positive_float, default=3e-3, help="Adam's learning rate (default 3e-3)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=positive_int, help="models trained at a time (default: 2 with 2 cores or more)")
    ap.add_argument("--cli", default=DEFAULT_CLI, help="the native engine (build/native/alignscope)")
    ap.add_argument("--log-every", type=positive_int, default=100, help=argparse.SUPPRESS)
    ap.add_argument("--train-one", choices=KINDS, help=argparse.SUPPRESS)
    ap.add_argument("--prepared", help=argparse.SUPPRESS)
    ap.add_argument("--threads", type=positive_int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.train_one:
        return train_one(args)
    if not args.data:
        ap.error("--data is required")
    languages = args.languages.split(",")
    if not os.path.exists(args.cli):
        fail(f"{args.cli} is missing: run ./build.sh native")
    import torch
    started = time.time()
    os.makedirs(args.out, exist_ok=True)
    data = prepare(args)
    prepared = os.path.join(args.out, "prepared.pt")
    torch.save(data, prepared)
    lengths = [len(s) for s, _ in data["dev"]]
    print(f"exercise: {len(data['train'])} training pairs and {len(data['dev'])} validation pairs of 1 to "
          f"{args.max_words} words from {args.data}, vocabularies {len(data['input_lang']) - 2} -> "
          f"{len(data['output_lang']) - 2} words; {args.updates} updates of {args.batch} pairs per model", flush=True)
    jobs = args.jobs or (2 if (os.cpu_count() or 1) >= 2 else 1)
    run_training(args, prepared, jobs)

    results = {}
    for kind in KINDS:
        alsc = os.path.join(args.out, f"{'-'.join(languages)}-tutorial-{kind}.alsc")
        convert = subprocess.run([sys.executable, os.path.join(HERE, "convert_tutorial.py"),
                                  os.path.join(args.out, f"tutorial-{kind}.pt"), alsc, "--languages", args.languages,
                                  "--max-length", str(args.max_words + 1)], capture_output=True, text=True)
        if convert.returncode != 0:
            fail(f"converting the {TITLES[kind]} model failed: {convert.stderr.strip() or convert.stdout.strip()}")
        results[kind] = evaluate(args, data, kind, alsc)
    os.remove(prepared)

    longest = longest_tenth(data["dev"])
    short, long_ = min(lengths[i] for i in longest), max(lengths[i] for i in longest)
    span = f"{short}-{long_}" if short != long_ else f"{short}"
    header = f"longest 10% ({len(longest)}, {span} words)"
    print(f"\nValidation BLEU, {len(lengths)} sentences of {os.path.join(args.data, 'dev.tsv')} "
          f"(the engine's greedy translations from the exported files)")
    print(f"{'model':<28}{'updates':>9}{'overall':>10}  {header}")
    for kind in KINDS:
        r = results[kind]
        print(f"{TITLES[kind]:<28}{r['updates']:>9}{r['bleu']:>10.2f}  {r['bleu_longest_10pct']:>{len(header)}.2f}")
    gain = {k: results["dot"][k] - results["none"][k] for k in ("bleu", "bleu_longest_10pct")}
    print(f"{'attention gains':<28}{'':>9}{gain['bleu']:>+10.2f}  {gain['bleu_longest_10pct']:>+{len(header)}.2f}")
    for kind in KINDS:
        r = results[kind]
        note = f" (stopped by the {args.minutes}-minute limit)" if r["stopped_by_minutes"] else ""
        print(f"{TITLES[kind]}: {r['updates']} updates in {r['train_seconds']:.0f} s{note}; the engine's words match "
              f"PyTorch's greedy decoding on {r['engine_agrees_with_pytorch']} of {len(lengths)} sentences")
    summary = {"data": args.data, "validation_sentences": len(lengths), "longest_10pct": len(longest),
               "longest_10pct_words": [short, long_], "training_pairs": len(data["train"]),
               "updates": args.updates, "batch": args.batch, "hidden": args.hidden,
               "seconds": round(time.time() - started, 1), "models": results}
    with open(os.path.join(args.out, "results.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)
    print(f"\nThe two models, for the page (alignscope {'-'.join(languages)} tutorial models, f32):")
    for kind in KINDS:
        print(f"  {results[kind]['file']}   {TITLES[kind]}")
    print("Open one: ./build.sh serve, then \"Open a model file...\" (or drop the file on the page); the\n"
          "dot-attention model shows its alignment, the other has none to show. On the command line:\n"
          f"  build/native/alignscope --model {results['dot']['file']} \"{' '.join(data['input_lang'][i] for i in data['dev'][longest[0]][0])}\"")
    print(f"exercise: {time.time() - started:.0f} s in all; the numbers are in {os.path.join(args.out, 'results.json')}")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("exercise: interrupted")
