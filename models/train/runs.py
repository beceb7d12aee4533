"""Where the resumable training runs stand (./build.sh runs).

  /usr/bin/python3 models/train/runs.py [--root ~/.cache/alignscope/runs] [--models models] [--json | --table]

A run is a folder under --root holding train.py's state.pt (./build.sh model
and zoo keep one per language pair and attention kind). For each: its
update out of its budget, the best dev BLEU so far, its learning curve, the
hours it has trained and, at the pace it has kept, the hours it still needs;
once its budget is done, the model file it was exported to (a metrics file
under --models whose training phases end where the state's do), if any.
A state that cannot be read is reported, not fatal: the next run of the same
command starts that model afresh. --table: the runs' dev BLEU side by side at
each update any of them was evaluated at (./build.sh ablate prints its
ablations this way: runs of one budget and seed, compared at equal updates).
"""
import argparse
import json
import os
import sys

DEFAULT_ROOT = os.path.join(os.path.expanduser("~"), ".cache", "alignscope", "runs")
DEFAULT_MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def phases_end(phases):
    """(updates trained, when the last phase ended): a run's identity across its
    state.pt and the metrics it was exported with."""
    return (sum(p.get("updates", 0) for p in phases), phases[-1].get("ended")) if phases else None


def exported_models(models_dir):
    """{phases_end: model file} for every models_dir/ID.metrics.json that has an ID.alsc."""
    found = {}
    for name in sorted(os.listdir(models_dir)) if os.path.isdir(models_dir) else []:
        if not name.endswith(".metrics.json"):
            continue
        model = os.path.join(models_dir, name[:-len(".metrics.json")] + ".alsc")
        try:
            with open(os.path.join(models_dir, name), encoding="utf-8") as f:
                end = phases_end(json.load(f).get("phases") or [])
        except (OSError, ValueError, AttributeError):
            continue  # not a metrics file this tool understands
        if end and os.path.isfile(model):
            found.setdefault(end, os.path.relpath(model))
    return found


def describe(folder, exported=None):
    """{run, update, updates, finished, exported_as, best_dev_bleu, curve, hours, hours_left} for one
    state folder, or {run, error} when its state.pt cannot be read. exported: exported_models()."""
    from checkpoints import load_own  # (imports PyTorch: only when there is a state to read)
    name = os.path.basename(folder.rstrip("/"))
    try:
        state = load_own(os.path.join(folder, "state.pt"))
        step, updates = int(state["step"]), int(state["updates"])
    except Exception as error:  # damaged, foreign or half-written: say so
        return {"run": name, "error": f"state.pt cannot be read ({type(error).__name__}: {error})"}
    phases = state.get("phases") or []
    seconds = sum(p.get("seconds", 0) for p in phases)
    # The pace of the latest run that made progress: earlier ones may have had
    # another machine, other load or slower code.
    latest = next((p for p in reversed(phases) if p.get("updates")), None)
    pace = latest["seconds"] / latest["updates"] if latest else None
    # Its CPU time per update too: a paused run (a timing taken beside it) or one
    # sharing a core stretches the wall clock, not this.
    cpu_pace = latest["cpu_seconds"] / latest["updates"] if latest and latest.get("cpu_seconds") else None
    left = max(updates - step, 0)
    best = (state.get("best") or {}).get("dev_bleu")
    return {"run": name, "update": step, "updates": updates, "finished": step >= updates,
            "exported_as": (exported or {}).get(phases_end(phases)) if step >= updates else None,
            "best_dev_bleu": None if best is None or best < 0 else round(best, 2),
            "curve": state.get("curve") or [], "hours": round(seconds / 3600, 2),
            "hours_left": None if pace is None else round(left * pace / 3600, 2),
            "cpu_hours_left": None if cpu_pace is None else round(left * cpu_pace / 3600, 2)}


def runs(root, models_dir=DEFAULT_MODELS):
    """describe() for every folder under root that holds a state.pt, by name."""
    if not os.path.isdir(root):
        return []
    folders = sorted(os.path.join(root, d) for d in os.listdir(root)
                     if os.path.isfile(os.path.join(root, d, "state.pt")))
    exported = exported_models(models_dir)
    return [describe(f, exported) for f in folders]


def finished_text(run):
    if run.get("exported_as"):
        return f" (budget done; exported as {run['exported_as']})"
    return " (budget done, not exported yet: the same command exports it)"


def as_text(run):
    if "error" in run:
        return f"{run['run']}: {run['error']}; the next run starts it afresh"
    head = (f"{run['run']}: update {run['update']:,} of {run['updates']:,}"
            + (finished_text(run) if run["finished"] else "")
            + f", {run['hours']:.2f} h trained")
    if run["hours_left"] is not None and not run["finished"]:
        head += f", about {run['hours_left']:.2f} h left at its latest pace"
        if run.get("cpu_hours_left") is not None:
            head += f" ({run['cpu_hours_left']:.2f} h at its CPU time per update)"
    if run["best_dev_bleu"] is not None:
        head += f"; best dev BLEU {run['best_dev_bleu']:.2f}"
    curve = ", ".join(f"{p['update']:,}: {p['dev_bleu']:.2f}" for p in run["curve"])
    return head + (f"\n  dev BLEU by update: {curve}" if curve else "")


def curve_table(found):
    """Markdown: a row per run (its dev BLEU at each update any run was evaluated at, "—" where it
    was not, or has not got there yet), then its update and best; unreadable runs are left out."""
    readable = [r for r in found if "error" not in r]
    updates = sorted({p["update"] for r in readable for p in r["curve"]})
    lines = ["| run | " + " | ".join(f"{u:,}" for u in updates) + " | at update | best |",
             "|---|" + "---:|" * (len(updates) + 2)]
    for r in readable:
        at = {p["update"]: p["dev_bleu"] for p in r["curve"]}
        cells = [f"{at[u]:.2f}" if u in at else "—" for u in updates]
        best = "—" if r["best_dev_bleu"] is None else f"{r['best_dev_bleu']:.2f}"
        lines.append(f"| {r['run']} | " + " | ".join(cells) + f" | {r['update']:,} of {r['updates']:,} | {best} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=DEFAULT_ROOT, help="the folder of run states (default: %(default)s)")
    ap.add_argument("--models", default=DEFAULT_MODELS, help="where exported models and their metrics are (default: models/)")
    shape = ap.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="one JSON list instead of text")
    shape.add_argument("--table", action="store_true", help="dev BLEU by update, a Markdown row per run")
    args = ap.parse_args()
    found = runs(args.root, args.models)
    if args.json:
        json.dump(found, sys.stdout, indent=1)
        print()
    elif not found:
        print(f"no training runs under {args.root}: ./build.sh model (or zoo, or ablate) starts one")
    elif args.table:
        print(f"Dev BLEU (lower-cased, each run's dev sample) by update, runs under {args.root}:\n")
        print(curve_table(found))
        for r in found:
            if "error" in r:
                print(f"\n{as_text(r)}")
    else:
        print("\n".join(as_text(r) for r in found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
