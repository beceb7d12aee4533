"""Rebuild models/index.json (the page's model picker) from the committed
model files and their metrics.

  /usr/bin/python3 models/train/catalogue.py [--models models] [--default ID]

Every models/<id>.alsc with a models/<id>.metrics.json beside it is listed,
the default first. Without --default, the default is the smallest English →
French additive model whose BLEU is within 0.5 of the best one's (issue #4:
the page should download the smallest model that keeps BLEU): cased BLEU on
the general test where models have it, else the UI test's.
"""
import argparse
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from card import trained_on_short  # noqa: E402

LANGUAGE_NAMES = {"en": "English", "fr": "French", "de": "German", "es": "Spanish"}
ATTENTION_NAMES = {"additive": "Bahdanau additive", "dot": "Luong dot", "general": "Luong general",
                   "scaled_dot": "scaled dot product", "none": "no attention"}


def report_caption(report_path):
    """The report's verdict paragraph (the line starting with **), as plain text."""
    if not os.path.exists(report_path):
        return ""
    with open(report_path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("**"):
                return line.strip().replace("**", "")
    return ""


def report_budgets(models_dir):
    """What each line of the report's figure was trained for, for its caption:
    {"budgets": {kind: updates}}, of the models report.py compares
    (report.load_models). The page says "equal budget" only when they are equal."""
    import report
    budgets = {kind: m["metrics"]["updates"] for kind, m in sorted(report.load_models(models_dir).items())
               if m["metrics"].get("updates")}
    return {"budgets": budgets} if budgets else {}


EXERCISE_KINDS = ("none", "additive", "dot")
# report.by_length's measure name -> the key the page words it by (web/lib/exercise.js).
MEASURES = {"cased BLEU (13a tokens)": "cased13a", "lower-cased word BLEU": "lowercaseWords"}


def report_by_length(models_dir):
    """The exercise card's numbers (web/cards/exercise.js): the report's own BLEU
    by source length on the UI test (report.by_length: the rows of REPORT.md's
    table and figure) for no attention, additive and dot, each model's overall
    test BLEU and validation BLEU, and the longest 10% of the UI test as
    report.py measured it (report/longest-tenth.json). {} when the report
    lacks two of the three kinds or measures them differently."""
    import report
    from bleu import bucket_order
    models = report.load_models(models_dir)
    kinds = [k for k in EXERCISE_KINDS if k in models]
    rows = {k: report.by_length(models[k]["metrics"], "ui_test") for k in kinds}
    kinds = [k for k in kinds if rows[k][1]]
    if len(kinds) < 2 or len({rows[k][0] for k in kinds}) != 1 or rows[kinds[0]][0] not in MEASURES:
        return {}
    buckets = sorted(set.intersection(*[set(rows[k][1]) for k in kinds]), key=bucket_order)
    out = {"testSet": "ui_test", "measure": MEASURES[rows[kinds[0]][0]], "models": {}, "buckets": []}
    for k in kinds:
        m = models[k]["metrics"]
        entry = {"id": models[k]["id"], "bleu": report.overall(m, "ui_test")}
        if (m.get("best") or {}).get("dev_bleu") is not None:  # train.py: lower-cased words on its dev sample
            entry["devBleu"] = round(m["best"]["dev_bleu"], 2)
            entry["devSentences"] = (m.get("args") or {}).get("dev_sentences")
        out["models"][k] = entry
    for b in buckets:
        out["buckets"].append({"words": b, "sentences": rows[kinds[0]][1][b]["sentences"],
                               "bleu": {k: {"bleu": rows[k][1][b]["bleu"], "ci90": rows[k][1][b].get("ci90")} for k in kinds}})
    path = os.path.join(models_dir, "report", report.LONGEST_JSON)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            longest = json.load(f)
        measured = longest["models"]
        # The same files as the buckets' metrics, or the row would mix models.
        if all(k in measured and measured[k]["id"] == out["models"][k]["id"] for k in kinds):
            out["longest"] = {"testSet": longest["test_set"], "share": longest["share"], "minWords": longest["min_words"],
                              "sentences": longest["sentences"], "sentencesInSet": longest["sentences_in_set"],
                              "measure": MEASURES[longest["measure"]],
                              "bleu": {k: {"bleu": measured[k]["bleu"], "ci90": measured[k]["ci90"],
                                           **({"minusNone": measured[k]["minus_none"]} if "minus_none" in measured[k] else {})}
                                       for k in kinds}}
    return {"byLength": out}


def report_local(models_dir):
    """The numbers the step-through's local window and the erasure card cite
    (web/lib/local.js localReport): report.py --local-only's measure on the UI
    test (report/local-attention.json), per attention kind: how often
    attention's and erasure's argmax word agreed, and BLEU with local-m windows
    against global attention. {} without the file."""
    import report
    path = os.path.join(models_dir, "report", report.LOCAL_JSON)
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        r = json.load(f)
    kinds = {}
    for k, e in r["kinds"].items():
        kinds[k] = {"id": e["id"], "steps": e["steps"], "compared": e["compared"], "global": e["global"],
                    **({"agreement": e["agreement"]} if "agreement" in e else {}),
                    "windows": {d: {"bleu": w["bleu"], "ci90": w["ci90"], "minusGlobal": w["minus_global"], "changed": w["changed"]}
                                for d, w in e["windows"].items()}}
    return {"local": {"testSet": r["test_set"], "sentences": r["sentences"], "sentencesInSet": r["sentences_in_set"],
                      "windows": r["windows"], "minNeededNats": r["min_needed_nats"], "kinds": kinds}}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="models")
    ap.add_argument("--default", help="model id (default: see above)")
    args = ap.parse_args()
    entries = []
    for path in sorted(glob.glob(os.path.join(args.models, "*.alsc"))):
        model_id = os.path.basename(path)[:-len(".alsc")]
        metrics_path = os.path.join(args.models, f"{model_id}.metrics.json")
        if not os.path.exists(metrics_path):
            continue
        m = json.load(open(metrics_path, encoding="utf-8"))
        source, target = model_id.split("-")[:2]
        weights = m.get("weights", "f16")
        entries.append({
            "id": model_id, "file": os.path.basename(path),
            "label": f"{LANGUAGE_NAMES.get(source, source)} → {LANGUAGE_NAMES.get(target, target)} "
                     f"({ATTENTION_NAMES.get(m['attention'], m['attention'])}, {weights})",
            "weights": weights,
            "source": source, "target": target, "attention": m["attention"],
            "bytes": os.path.getsize(path), "parameters": m["parameters"], "bleu": m["test_bleu"],
            "card": f"{model_id}.md",
            # what the page says under the model, and the budget it was trained with
            "trainedOn": trained_on_short(m), "segmentation": m.get("segmentation", "words"),
            "updates": m.get("updates"), "trainSeconds": m.get("train_seconds"),
        })
        # the number behind trainedOn: the page words that line in its UI language, the number in its locale
        if m.get("segmentation") == "subwords" and m.get("train_pairs_by_domain"):
            entries[-1]["trainPairs"] = sum(m["train_pairs_by_domain"].values())
        if (m.get("args") or {}).get("layer_norm"):  # arch_flags layer_norm: the page names it under the picker
            entries[-1]["layerNorm"] = True
        if m.get("train_cpu_seconds"):  # runs from before train.py recorded it have wall clock only
            entries[-1]["trainCpuSeconds"] = m["train_cpu_seconds"]
        teacher = m.get("teacher_bleu")  # models/train/teacher_eval.py: cased BLEU on our own test set
        if teacher:
            entries[-1]["teacherBleu"] = {"greedy": teacher["greedy"], "beam": teacher["beam"],
                                          "beamWidth": teacher["beam_width"]}
        general = (m.get("tests") or {}).get("general_test")
        if general:
            entries[-1]["generalBleu"] = general["bleu_cased_13a"]
            entries[-1]["uiBleuCased"] = m["tests"]["ui_test"]["bleu_cased_13a"]
    # Two files of one kind and weight type (the default and the zoo's additive
    # model, trained by different recipes) are told apart: the zoo's says so.
    labels = [e["label"] for e in entries]
    for e in entries:
        if labels.count(e["label"]) > 1 and os.path.exists(os.path.join(args.models, "report", f"{e['id']}.metrics.json")):
            e["label"] = f"{e['label'][:-1]}, comparison recipe)"
    default = args.default
    if default is None:
        candidates = [e for e in entries if (e["source"], e["target"], e["attention"]) == ("en", "fr", "additive")]
        if not candidates:
            raise SystemExit(f"catalogue: no en-fr additive model in {args.models}; pass --default")
        # A model measured on the general test (the sentences people type) wins
        # over one measured on interface strings alone; then BLEU, then size.
        general = [e for e in candidates if "generalBleu" in e]
        score = (lambda e: e["generalBleu"]) if general else (lambda e: e["bleu"])
        candidates = general or candidates
        best = max(score(e) for e in candidates)
        default = min((e for e in candidates if score(e) >= best - 0.5), key=lambda e: e["bytes"])["id"]
    if not any(e["id"] == default for e in entries):
        raise SystemExit(f"catalogue: default model {default} has no .alsc + .metrics.json in {args.models}")
    # Default first, then by language pair, the additive model of each pair first.
    kind_rank = {"additive": 0, "general": 1, "dot": 2, "scaled_dot": 3, "none": 4}
    entries.sort(key=lambda e: (e["id"] != default, e["target"] != "fr", e["target"],
                                kind_rank.get(e["attention"], 9), e["bytes"]))
    index = {"default": default, "models": entries}
    # The zoo's comparison figure (models/REPORT.md), for the page's model table.
    figure = os.path.join(args.models, "report", "bleu-by-length.svg")
    if os.path.exists(figure):
        index["report"] = {"figure": "report/bleu-by-length.svg", "text": "REPORT.md",
                           "caption": report_caption(os.path.join(args.models, "REPORT.md")),
                           **report_budgets(args.models), **report_by_length(args.models),
                           **report_local(args.models)}
    with open(os.path.join(args.models, "index.json"), "w", encoding="utf-8") as f:
        json.dump(index, f, ensure_ascii=False, indent=2)
        f.write("\n")
    print(f"catalogue: {len(entries)} model(s) in {args.models}/index.json")


if __name__ == "__main__":
    main()
