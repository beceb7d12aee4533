"""Rebuild models/index.json (the page's model picker) from the committed
model files and their metrics.

  /usr/bin/python3 models/train/catalogue.py [--models models] [--default en-fr]

Every models/<id>.alsc with a models/<id>.metrics.json beside it is listed.
"""
import argparse
import glob
import json
import os

LANGUAGE_NAMES = {"en": "English", "fr": "French", "de": "German", "es": "Spanish"}
ATTENTION_NAMES = {"additive": "Bahdanau additive", "dot": "Luong dot", "general": "Luong general",
                   "scaled_dot": "scaled dot product", "none": "no attention"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default="models")
    ap.add_argument("--default", default="en-fr")
    args = ap.parse_args()
    entries = []
    for path in sorted(glob.glob(os.path.join(args.models, "*.alsc"))):
        model_id = os.path.basename(path)[:-len(".alsc")]
        metrics_path = os.path.join(args.models, f"{model_id}.metrics.json")
        if not os.path.exists(metrics_path):
            continue
        m = json.load(open(metrics_path, encoding="utf-8"))
        source, target = model_id.split("-")[:2]
        entries.append({
            "id": model_id, "file": os.path.basename(path),
            "label": f"{LANGUAGE_NAMES.get(source, source)} → {LANGUAGE_NAMES.get(target, target)} "
                     f"({ATTENTION_NAMES.get(m['attention'], m['attention'])})",
            "source": source, "target": target, "attention": m["attention"],
            "bytes": os.path.getsize(path), "parameters": m["parameters"], "bleu": m["test_bleu"],
            "card": f"{model_id}.md",
        })
    if not any(e["id"] == args.default for e in entries):
        raise SystemExit(f"catalogue: default model {args.default} has no .alsc + .metrics.json in {args.models}")
    index = {"default": args.default, "models": entries}
    with open(os.path.join(args.models, "index.json"), "w", encoding="utf-8") as f:
        json.dump(index, f, ensure_ascii=False, indent=2)
        f.write("\n")
    print(f"catalogue: {len(entries)} model(s) in {args.models}/index.json")


if __name__ == "__main__":
    main()
