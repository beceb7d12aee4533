"""Write a model card (Markdown) from a training run's metrics and the corpus stats.

  /usr/bin/python3 models/train/card.py --metrics RUN/metrics.json \
      --corpus-stats models/train/corpus_stats.fr.json --model models/en-fr.alsc \
      --id en-fr --out models/en-fr.md
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bleu import bucket_order  # noqa: E402

LANGUAGES = {"fr": "French", "de": "German", "es": "Spanish"}
ATTENTION_NAMES = {"additive": "additive attention", "dot": "Luong dot attention",
                   "general": "Luong general attention", "scaled_dot": "scaled dot-product attention",
                   "none": "no attention (fixed summary context)"}


def time_note(m):
    """How the training time was measured, from what train.py recorded: the
    average update, the machine (when the run recorded it) and what the
    budget means for someone re-running the command."""
    a = m["args"]
    sentences = []
    updates = m.get("updates")
    machine = m.get("machine")
    if machine:
        sentences.append(f"Times are wall clock on a {machine['cpus']}-core machine: {machine['torch_threads']} torch thread, "
                         f"OPENBLAS_NUM_THREADS={machine.get('openblas_threads') or 'unset'}; the load average was "
                         f"{machine['load_average_at_end'][0]:g} when training ended.")
    if updates:
        sentences.append(f"{m['train_seconds'] / updates:.2f} s per update on average.")
    if a.get("max_steps"):
        sentences.append(f"The budget is {a['max_steps']:,} updates: a busy machine takes longer, the model is the same.")
    elif a.get("minutes"):
        sentences.append(f"The budget is {a['minutes']:g} minutes of wall clock: on a busy machine the same command makes "
                         "fewer updates and a weaker model, so give it the machine.")
    return " ".join(sentences)


def card_note(notes_path, model_id):
    """A hand-written note for this model id from NOTES (JSON {id: text}),
    kept in the repository so that re-exporting the cards keeps it."""
    if not notes_path or not os.path.exists(notes_path):
        return ""
    with open(notes_path, encoding="utf-8") as f:
        return json.load(f).get(model_id, "")


def describe_schedule(a):
    """One line on a training run's optimiser schedule, from its recorded args."""
    text = f"batch {a['batch']}, Adam lr {a['lr']}"
    if "decay_start" in a:
        text += (f" held for the first {a['decay_start']:.0%} of the budget, then falling linearly to"
                 f" {a['final_lr_ratio']:g}× at its end")
    elif "decay" in a:
        text += f", × {a['decay']} after every epoch from epoch {a['decay_from_epoch']} on"
    if a.get("sampled_negatives"):
        text += (f"; sampled softmax (the batch's target words + {a['sampled_negatives']} random words)"
                 f" except for the last {a['full_softmax_tail']:.0%}, which uses the full softmax")
    if a.get("max_steps"):
        text += f"; budget {a['max_steps']:,} updates"
    elif a.get("minutes"):
        text += f"; budget {a['minutes']:g} min"
    if a.get("resume"):
        text += " (continued from the previous phase)"
    return text


WEIGHT_NOTES = {"f16": "f16 weights, widened to f32 at load",
                "f32": "f32 weights",
                "int8": "int8 matrices with one f32 scale per row; kept int8 in memory"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--metrics", required=True)
    ap.add_argument("--corpus-stats", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--id", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--rebuild", default="./build.sh model")
    ap.add_argument("--notes", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "card_notes.json"),
                    help="JSON {model id: a hand-written note on the training run} (default: card_notes.json here)")
    ap.add_argument("--weights", default="f16", choices=sorted(WEIGHT_NOTES))
    args = ap.parse_args()
    m = json.load(open(args.metrics, encoding="utf-8"))
    stats = json.load(open(args.corpus_stats, encoding="utf-8"))
    size = os.path.getsize(args.model)
    a = m["args"]
    splits = stats.get("splits", {})
    phases = m.get("phases") or [{"seconds": m["train_seconds"], "args": a}]
    phase_lines = "\n".join(f"{i}. {p['seconds'] / 60:.1f} min: {describe_schedule(p['args'])}"
                            for i, p in enumerate(phases, 1))
    rows = "\n".join(f"| {label} | {v['sentences']} | {v['bleu']:.2f} |"
                     for label, v in sorted(m["test_bleu_by_source_length"].items(),
                                            key=lambda kv: bucket_order(kv[0])))
    text = f"""# Model card: `{os.path.basename(args.model)}` ({args.id})

A GRU encoder-decoder with {ATTENTION_NAMES[m['attention']]} (Bahdanau, Cho &
Bengio 2015), English → {LANGUAGES.get(args.id.split('-')[1], args.id.split('-')[1])}, trained by this repository's scripts.

| | |
|---|---|
| attention | {m['attention']} |
| parameters | {m['parameters']:,} |
| file size | {size:,} bytes ({WEIGHT_NOTES[args.weights]}) |
| vocabularies | {m['src_vocab']} source / {m['tgt_vocab']} target words ({m['src_token_coverage']:.1%} / {m['tgt_token_coverage']:.1%} of training tokens covered) |
| dims | embed {a['embed']}, encoder {a['hidden']}×2 (bidirectional), decoder {a['decoder_hidden']}, attention {a['attention_dim']}, deep output {a['output_dim']} |
| training pairs | {m['train_pairs']:,} (≤ {a['max_tokens']} tokens each side) |
| dev / test pairs | {m['dev_pairs']:,} / {m['test_pairs']:,} |
| training | {m['updates']:,} updates, batch {a['batch']}, Adam lr {a['lr']}, dropout {a['dropout']}, best dev BLEU at update {m['best'].get('step'):,} |
| training time | {m['train_seconds'] / 60:.1f} min on this machine's CPU ({a['threads']} torch thread) |
| **test BLEU** | **{m['test_bleu']:.2f}**{f" (the same checkpoint with f32 weights: {m['f32_test_bleu']:.2f})" if 'f32_test_bleu' in m else ''} |

BLEU is corpus BLEU (4-gram, uniform weights, brevity penalty, one
reference), computed by `models/train/bleu.py` on lower-cased tokens from
`models/train/tokenize_text.py` (the model's own tokenisation, FORMAT.md §5),
after greedy decoding with `<unk>` replaced by the most-attended source word.
It is not comparable to sacreBLEU figures on detokenised, cased text.

## Training

{phase_lines}

The best checkpoint by dev BLEU (600 dev sentences) is the one exported.
{" ".join(x for x in (time_note(m), card_note(args.notes, args.id)) if x)}

## BLEU by source length (test split)

| source tokens | sentences | BLEU |
|---|---:|---:|
{rows}

## Corpus

Human translations from the gettext catalogues (`.mo`) of Debian packages
(list pinned in `models/train/packages.txt`, per-package counts in
`models/train/{os.path.basename(args.corpus_stats)}`): {stats.get('total_pairs', sum(splits.values()) if splits else 'see stats')} clean pairs,
split by a hash of the case- and punctuation-folded source ({json.dumps(splits)}).
Short UI strings dominate; expect menu-and-dialog French, not literary French.

## Rebuild

`{args.rebuild}` (corpus download + cleaning, training, export, parity
fixtures, this card). Every flag of the run is in `models/{args.id}.metrics.json`
(`phases[].args`).
"""
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
