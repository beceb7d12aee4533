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


def exported_weights_text(m):
    """Which weights the file holds: the best checkpoint, or the mean of the last saves (train.py
    --average-last, used only when it scored higher on the dev sample), with both dev figures."""
    best = f"best dev BLEU at update {m['best'].get('step'):,}"
    avg = m.get("averaging")
    if not avg:
        return best
    span = f"updates {avg['updates'][0]:,}–{avg['updates'][-1]:,}" if avg.get("updates") else "none"
    if avg.get("chosen"):
        return (f"the weights are the mean of the last {avg['saves']} saves ({span}): dev BLEU {avg['dev_bleu']:.2f}, "
                f"against {avg['best_dev_bleu']:.2f} for the best single checkpoint (update {m['best'].get('step'):,})")
    if "dev_bleu" in avg:
        return (f"{best}; the mean of the last {avg['saves']} saves ({span}) scored {avg['dev_bleu']:.2f} "
                f"against its {avg['best_dev_bleu']:.2f}, so not used")
    return f"{best} (checkpoint averaging not measured: {avg.get('reason', 'saves missing')})"


def cpu_time_text(m):
    """'; CPU time N min' when every phase recorded its process time (runs from
    before cpu_seconds have only wall clock, which counts pauses and shared cores)."""
    cpu = m.get("train_cpu_seconds")
    return f"; CPU time {cpu / 60:.1f} min, which pauses and a shared core do not inflate" if cpu else ""


def kernels_text(m):
    """Which OpenBLAS kernels the CPU phases ran, by updates ('' when no phase recorded them):
    Debian's OpenBLAS ran its SSE3 (Prescott) kernels on a CPU it did not know by model until
    models/train/openblas_core.py chose by the CPU's flags, 2.5x slower an update, so a run's
    time depends on it. Phases from before then did not record theirs."""
    by_core = {}
    for phase in m.get("phases") or []:
        if phase.get("device", "cpu") == "cpu":
            core = phase.get("openblas_core") or "unrecorded"
            by_core[core] = by_core.get(core, 0) + phase.get("updates", 0)
    if not any(core != "unrecorded" for core in by_core):
        return ""
    parts = [f"{core} {n:,}" for core, n in by_core.items() if core != "unrecorded"]
    if by_core.get("unrecorded"):
        parts.append(f"not recorded {by_core['unrecorded']:,} (phases from before train.py recorded them)")
    return "OpenBLAS kernels, by updates: " + ", ".join(parts) + "."


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
    kernels = kernels_text(m)
    if kernels:
        sentences.append(kernels)
    if a.get("max_steps"):
        sentences.append(f"The budget is {a['max_steps']:,} updates: a busy machine takes longer, the model is the same.")
    elif a.get("minutes"):
        sentences.append(f"The budget is {a['minutes']:g} minutes of wall clock: on a busy machine the same command makes "
                         "fewer updates and a weaker model, so give it the machine.")
    return " ".join(sentences)


def trained_config(attention, args):
    """model.ModelConfig (normalised) of a run from its training arguments; an
    argument the metrics lack takes the recipe's default."""
    from model import ModelConfig
    d = ModelConfig(src_vocab_size=1, tgt_vocab_size=1)
    return ModelConfig(src_vocab_size=1, tgt_vocab_size=1, attention=attention,
                       embed_dim=args.get("embed", d.embed_dim), encoder_hidden=args.get("hidden", d.encoder_hidden),
                       decoder_hidden=args.get("decoder_hidden", d.decoder_hidden),
                       attention_dim=args.get("attention_dim", d.attention_dim),
                       output_dim=args.get("output_dim", d.output_dim)).normalised()


def dims_text(m):
    """The dimensions the model has, not only those asked for: the attention
    kind fixes some (model.ModelConfig.normalised: dot products need the
    decoder state as wide as the bidirectional annotation; no attention has no
    attention layer), and the card says how dot's are matched."""
    cfg = trained_config(m["attention"], m["args"])
    parts = [f"embed {cfg.embed_dim}", f"encoder {cfg.encoder_hidden}×2 (bidirectional)"]
    if cfg.attention in ("dot", "scaled_dot"):
        parts.append(f"decoder {cfg.decoder_hidden} (= 2 × {cfg.encoder_hidden}, as wide as the bidirectional "
                     "annotation, so the score sᵀh needs no projection)")
    else:
        parts.append(f"decoder {cfg.decoder_hidden}")
    if cfg.attention == "additive":
        parts.append(f"attention {cfg.attention_dim}")
    elif cfg.attention == "general":
        parts.append(f"attention: W of {cfg.decoder_hidden} × {2 * cfg.encoder_hidden} in sᵀWh")
    tied = m["args"].get("tie_target_embeddings", False)
    parts.append(f"deep output {cfg.output_dim}" + (" (the output layer's weights are the target embeddings: tied)" if tied else ""))
    return ", ".join(parts)


def sampling_text(m):
    """How the metrics M's run drew its batches by domain, and its final phase if it had one."""
    def weights_text(weights):
        return ", ".join(f"{k} {v:g}" for k, v in weights.items())
    text = weights_text(m.get("domain_weights") or {}) or "every pair alike"
    if m.get("final_phase"):
        final = m["final_phase"]
        text += f"; after update {final['after_update']:,} (the final phase): {weights_text(final['domain_weights'])}"
    return text


def regularisation_text(a):
    """The training's regularisers from its arguments A: dropout always, label
    smoothing and word dropout when the run used them."""
    parts = [f"dropout {a['dropout']}"]
    if a.get("label_smoothing", 0.0) > 0:
        parts.append(f"label smoothing {a['label_smoothing']:g}")
    if a.get("word_dropout", 0.0) > 0:
        parts.append(f"word dropout {a['word_dropout']:g} (a token's whole embedding zeroed)")
    if a.get("layer_norm", False):
        parts.append("layer normalisation (both GRUs, gate by gate, and the deep output)")
    return ", ".join(parts)


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


DOMAIN_NAMES = {"ui": "software interfaces (menus, dialogs, messages)", "dialogue": "games' dialogue and story text",
                "docs": "manuals and help pages", "descriptions": "Debian's package descriptions", "bible": "Bible verses",
                "dict_sentences": "dictionary example sentences",
                "dictionary": "dictionary words and short phrases (everyday vocabulary)"}


def bleu_tables(m):
    """The subword recipe's two test sets, cased and lower-cased, overall and by length."""
    tests = m.get("tests") or {}
    names = {"ui_test": "UI test (held out by hash: software-interface strings)",
             "general_test": "general test (held out by whole source: a Wesnoth campaign and UFO: Alien Invasion)"}
    # beam search's figures, where eval_alsc.py --beam --write measured them with the engine
    beam = m.get("test_bleu_beam") or {}
    beam_head = (f" cased BLEU, beam {beam['beam_width']} (length penalty {beam['length_penalty']:g}) |"
                 if beam else "")
    lines = [f"| test set | sentences | cased BLEU (13a){', greedy' if beam else ''} | lower-cased BLEU (continuity) | "
             "`<unk>` in output |" + beam_head,
             "|---|---:|---:|---:|---:|" + ("---:|" if beam else "")]
    for key, label in names.items():
        if key in tests:
            t = tests[key]
            beam_cell = ""
            if beam:
                # a sentence the engine refuses (more pieces than the model reads) scores as empty: say so
                refused = beam.get(key, {}).get("refused", 0)
                beam_cell = (f" **{beam[key]['bleu_cased_13a']:.2f}**{f' ({refused} refused)' if refused else ''} |"
                             if key in beam else " — |")
            lines.append(f"| {label} | {t['sentences']:,} | **{t['bleu_cased_13a']:.2f}** | {t['bleu_lowercase_words']:.2f} | "
                         f"{t['unk_in_output']} |" + beam_cell)
    for key, label in names.items():
        if key not in tests:
            continue
        lines += ["", f"By source length, {label.split(' (')[0]}:", "",
                  "| source words | sentences | cased BLEU | 90% interval | lower-cased BLEU |", "|---|---:|---:|---|---:|"]
        cased = tests[key]["bleu_cased_13a_by_source_length"]
        lower = tests[key]["bleu_lowercase_words_by_source_length"]
        for label2 in sorted(cased, key=bucket_order):
            c = cased[label2]
            ci = c.get("ci90")
            lines.append(f"| {label2} | {c['sentences']} | {c['bleu']:.2f} | {f'{ci[0]:.1f}–{ci[1]:.1f}' if ci else ''} | "
                         f"{lower[label2]['bleu']:.2f} |")
    return "\n".join(lines)


def learning_curve(m):
    """Dev BLEU (lower-cased words, the dev sample train.py evaluates) at each
    evaluation of the run, as a table; a sentence when the run kept none."""
    curve = m.get("learning_curve") or []
    if not curve:
        return "This run did not record its learning curve (runs before 2026-12-02 kept only the best point)."
    rows = "\n".join(f"| {p['update']:,} | {p['dev_bleu']:.2f} | "
                      f"{'' if p.get('hours') is None else format(p['hours'], '.2f')} |" for p in curve)
    last = curve[-1]["dev_bleu"] - curve[-2]["dev_bleu"] if len(curve) > 1 else None
    trend = "" if last is None else (f" Over its last {curve[-1]['update'] - curve[-2]['update']:,} updates dev BLEU "
                                     f"moved by {last:+.2f}: " + ("the model was still learning when its budget ended; "
                                                                  "a larger budget would likely help." if last > 0.3
                                                                  else "it had about levelled off."))
    return f"""Dev BLEU (lower-cased, {m['args'].get('dev_sentences', '?')} dev sentences) at each evaluation; hours of
training so far (blank for points recovered from a run's log when states did not yet keep the curve).{trend}

| update | dev BLEU | hours |
|---:|---:|---:|
{rows}"""


def sources_table(stats):
    """Per-source counts of the corpus, grouped by domain (corpus_stats.LANG.json)."""
    by_domain = {}
    for name, p in stats["packages"].items():
        by_domain.setdefault(p.get("domain", "ui"), []).append((name, p))
    lines = ["| domain | source | pairs kept | new sentences |", "|---|---|---:|---:|"]
    for domain in ("ui", "dialogue", "docs", "descriptions", "bible", "dict_sentences", "dictionary", "heldout"):
        items = sorted(by_domain.get(domain, []), key=lambda kv: -kv[1]["new_sources"])
        if not items:
            continue
        label = "held out (general dev/test)" if domain == "heldout" else domain
        shown = items if len(items) <= 8 else items[:6]
        for name, p in shown:
            lines.append(f"| {label} | {name} | {p['pairs_kept']:,} | {p['new_sources']:,} |")
        if len(shown) < len(items):
            rest = items[len(shown):]
            lines.append(f"| {label} | {len(rest)} more packages | {sum(p['pairs_kept'] for _, p in rest):,} | "
                         f"{sum(p['new_sources'] for _, p in rest):,} |")
    return "\n".join(lines)


def everyday_table(path, lang=None):
    """The CLI's --json lines for our own everyday sentences -> a Markdown table,
    with our reference in LANG beside each output (models/testsets/everyday.tsv)."""
    if not path or not os.path.exists(path):
        return ""
    from testsets import EVERYDAY, english_key, read_tsv
    references = {english_key(r["en"]): r[lang] for r in read_tsv(EVERYDAY)} if lang in LANGUAGES else {}
    rows = (["| English (ours) | the model's output | our reference |", "|---|---|---|"] if references
            else ["| English (ours) | the model's output |", "|---|---|"])
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                j = json.loads(line)
                if "hypotheses" in j:  # a beam search's line: its best hypothesis
                    j = {"text": j["text"], "translation": j["hypotheses"][0]["translation"]}
                reference = f" {references.get(english_key(j['text']), '')} |" if references else ""
                rows.append(f"| {j['text']} | {j['translation']} |{reference}")
    return "\n".join(rows)


def teacher_table(m):
    """Cased BLEU on the teacher's test set (teacher_eval.py's figures), or ''."""
    t = m.get("teacher_bleu")
    if not t:
        return ""
    return f"""On the teacher's test set (`models/testsets/teacher.tsv`: {t['sentences']} everyday sentences
with references, written for this repository and never trained on), as the engine
translates it with this file (`models/train/teacher_eval.py`), cased BLEU (13a):

| decoding | all {t['sentences']} sentences | the {t['word_order_sentences']} with word-order swaps |
|---|---:|---:|
| greedy | **{t['greedy']:.2f}** | {t['word_order_greedy']:.2f} |
| beam {t['beam_width']}, length penalty {t['length_penalty']:g} | **{t['beam']:.2f}** | {t['word_order_beam']:.2f} |
"""


def trained_on_short(m):
    """The page's line beside the translation: what the model was trained on and what to
    expect, short enough for two or three lines on a 360 px phone (the card has the long one)."""
    if m.get("segmentation") != "subwords" or not m.get("train_pairs_by_domain"):
        return trained_on(m)
    pairs = sum(m["train_pairs_by_domain"].values())
    return f"Trained on {pairs:,} Debian sentence pairs: short sentences work best, long or rare ones often fail."


def trained_on(m):
    """One line for the card: what the model was trained on and what to expect."""
    by_domain = m.get("train_pairs_by_domain") or {}
    weights = m.get("domain_weights") or {}
    if m.get("segmentation") != "subwords" or not by_domain:
        return ("Trained on menus and dialogs from Debian's translations: everyday sentences often come out "
                "wrong, in lower case.")
    shares = {d: weights.get(d, 0) for d in by_domain} if weights else dict(by_domain)
    total = sum(shares.values()) or 1
    parts = ", ".join(f"{DOMAIN_NAMES.get(d, d)} {shares[d] / total:.0%}" for d in
                      sorted(shares, key=lambda d: -shares[d]) if shares[d] > 0)
    machine = m.get("machine") or {}
    where = "a GPU" if machine.get("device", "cpu").startswith("cuda") else f"{machine.get('cpus', 2)} CPU cores"
    return (f"Trained on {sum(by_domain.values()):,} human-translated sentence pairs that Debian ships ({parts} of what "
            f"training saw), {m['updates']:,} updates on {where}: short sentences and interface text come out best; "
            "long or idiomatic sentences, names and rare words often come out wrong.")


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
    ap.add_argument("--everyday", help="the CLI's --json output for models/train/everyday_sentences.en.txt")
    args = ap.parse_args()
    m = json.load(open(args.metrics, encoding="utf-8"))
    stats = json.load(open(args.corpus_stats, encoding="utf-8"))
    size = os.path.getsize(args.model)
    a = m["args"]
    # (a phase of 0 updates: a resume that found its budget done, in metrics from before train.py left those out)
    phases = [p for p in m.get("phases") or [] if p.get("updates") != 0] or [{"seconds": m["train_seconds"], "args": a}]
    if m.get("segmentation") == "subwords":
        text = subword_card(args, m, stats, size, a, phases)
    else:
        text = word_card(args, m, stats, size, a, phases)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {args.out}")


def word_card(args, m, stats, size, a, phases):
    """The card of a word-level model (the zoo's, and models before subwords)."""
    splits = {k: v for k, v in stats.get("splits", {}).items() if not k.startswith("dropped_")}
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
| dims | {dims_text(m)} |
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
    return text


def subword_card(args, m, stats, size, a, phases):
    """The card of a model of the subword recipe (./build.sh model)."""
    machine = m.get("machine") or {}
    runs = "\n".join(f"{i}. {p['updates']:,} updates in {p['seconds'] / 60:.1f} min on {p.get('device', 'cpu')}"
                      f" (ended {p.get('ended', '?')})" for i, p in enumerate(phases, 1))
    weights = sampling_text(m)
    everyday = everyday_table(args.everyday, args.id.split("-")[1])
    teacher = teacher_table(m)
    return f"""# Model card: `{os.path.basename(args.model)}` ({args.id})

A GRU encoder-decoder with {ATTENTION_NAMES[m['attention']]} (Bahdanau, Cho &
Bengio 2015), English → {LANGUAGES.get(args.id.split('-')[1], args.id.split('-')[1])}, on cased subword pieces, trained by this
repository's scripts.

{trained_on(m)}

| | |
|---|---|
| attention | {m['attention']} |
| parameters | {m['parameters']:,} |
| file size | {size:,} bytes ({WEIGHT_NOTES[args.weights]}) |
| vocabularies | {m['src_vocab']:,} source / {m['tgt_vocab']:,} target subword pieces, cased, learned by `models/train/subword.py` (byte fallback: no `<unk>`) |
| dims | {dims_text(m)} |
| training pairs | {m['train_pairs']:,} (≤ {a['max_tokens']} pieces each side): {", ".join(f"{k} {v:,}" for k, v in m['train_pairs_by_domain'].items())} |
| sampling | each update's {a['batch']} pairs drawn by domain: {weights} |
| training | {m['updates']:,} updates of {a['batch']} pairs, Adam lr {a['lr']} held for {a['decay_start']:.0%} of the budget then falling linearly to {a['final_lr_ratio']:g}×; sampled softmax (+{a['sampled_negatives']} random pieces) except the last {a['full_softmax_tail']:.0%}; {regularisation_text(a)}; {exported_weights_text(m)} |
| training time | {m['train_seconds'] / 60:.1f} min, {m['train_seconds'] / max(m['updates'], 1):.2f} s per update ({machine.get('device', 'cpu')}, {machine.get('cpus', '?')} cores, {machine.get('torch_threads', '?')} torch thread){cpu_time_text(m)} |

## BLEU

{bleu_tables(m)}

Cased BLEU is corpus BLEU on the detokenised output and reference, 13a
tokens (sacreBLEU's default), greedy decoding; the lower-cased figure is the
one earlier word-level models reported (`models/train/tokenize_text.py`
tokens), kept for continuity.{f" int8 weights: the checkpoint with f32 weights scores {m['f32_test_bleu']:.2f} lower-cased on the UI test." if 'f32_test_bleu' in m else ''}
{f"{chr(10)}{teacher}" if teacher else ""}
## Training runs

{runs}

{learning_curve(m)}

The budget is {a['updates']:,} updates, not a time: a busy machine takes
longer and makes the same model. Every 250 updates the whole state is saved
outside the work tree, and the same command resumes it.
{card_note(args.notes, args.id)}

## Everyday sentences

Twenty sentences we wrote (`models/train/everyday_sentences.en.txt`), as the
engine translates them with this file, good and bad, beside the reference we
wrote (`models/testsets/everyday.tsv`; never trained on):

{everyday}

## Corpus

Human translations that Debian ships (`models/train/packages.txt`,
`models/train/sources.txt`; counts in `models/train/{os.path.basename(args.corpus_stats)}`),
split into sentences, cleaned and deduplicated by `models/train/corpus.py`:

{sources_table(stats)}

## Rebuild

`{args.rebuild}` (corpus download + cleaning, training, export, parity
fixtures, this card); it resumes a stopped run. Every flag of the run is in
`models/{args.id}.metrics.json` (`args`).
"""


if __name__ == "__main__":
    main()
