"""A small made-up English->French corpus for the pipeline smoke test.

The smoke test (tests/pipeline.test.mjs) must not depend on downloading the
real corpus, so it trains a few steps on these template sentences instead.
Every sentence here is written by this script; nothing comes from outside.

  /usr/bin/python3 models/train/toy_corpus.py OUT_DIR [--pairs 400]
"""
import argparse
import os
import random

VERBS = [("open", "ouvrir"), ("close", "fermer"), ("show", "afficher"), ("hide", "masquer"),
         ("save", "enregistrer"), ("delete", "supprimer"), ("print", "imprimer"), ("select", "sélectionner")]
NOUNS = [("file", "fichier", "le"), ("window", "fenêtre", "la"), ("dialog", "dialogue", "le"),
         ("folder", "dossier", "le"), ("page", "page", "la"), ("image", "image", "l'"),
         ("document", "document", "le"), ("list", "liste", "la"), ("menu", "menu", "le")]
ADJECTIVES = [("new", "nouveau", "nouvelle"), ("current", "actuel", "actuelle"),
              ("selected", "sélectionné", "sélectionnée"), ("last", "dernier", "dernière")]
FEMININE = {"fenêtre", "page", "image", "liste"}


def phrase(rng):
    verb_en, verb_fr = rng.choice(VERBS)
    noun_en, noun_fr, article = rng.choice(NOUNS)
    if rng.random() < 0.5:
        adj_en, adj_m, adj_f = rng.choice(ADJECTIVES)
        adj_fr = adj_f if noun_fr in FEMININE else adj_m
        article = "la" if noun_fr in FEMININE else "le"
        return f"{verb_en.capitalize()} the {adj_en} {noun_en}", f"{verb_fr.capitalize()} {article} {noun_fr} {adj_fr}"
    joiner = "" if article.endswith("'") else " "
    return f"{verb_en.capitalize()} the {noun_en}", f"{verb_fr.capitalize()} {article}{joiner}{noun_fr}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--pairs", type=int, default=400)
    args = ap.parse_args()
    rng = random.Random(3)
    os.makedirs(args.out, exist_ok=True)
    pairs = [phrase(rng) for _ in range(args.pairs)]
    splits = {"train": pairs[: int(0.8 * len(pairs))], "dev": pairs[int(0.8 * len(pairs)): int(0.9 * len(pairs))],
              "test": pairs[int(0.9 * len(pairs)):]}
    for name, rows in splits.items():
        with open(os.path.join(args.out, f"{name}.tsv"), "w", encoding="utf-8") as f:
            for en, fr in rows:
                f.write(f"{en}\t{fr}\n")


if __name__ == "__main__":
    main()
