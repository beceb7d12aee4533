"""Where the resumable training runs stand (./build.sh runs).

  /usr/bin/python3 models/train/runs.py [--root ~/.cache/alignscope/runs] [--json]

A run is a folder under --root holding train.py's state.pt (./build.sh model
and zoo keep one per language pair and attention kind). For each: its
update out of its budget, the best dev BLEU so far, its learning curve, the
hours it has trained and, at the pace it has kept, the hours it still needs.
A state that cannot be read is reported, not fatal: the next run of the same
command starts that model afresh.
"""
import argparse
import json
import os
import sys

DEFAULT_ROOT = os.path.join(os.path.expanduser("~"), ".cache", "alignscope", "runs")


def describe(folder):
    """{run, update, updates, finished, best_dev_bleu, curve, hours, hours_left} for one state folder,
    or {run, error} when its state.pt cannot be read."""
    import torch
    name = os.path.basename(folder.rstrip("/"))
    try:
        state = torch.load(os.path.join(folder, "state.pt"), map_location="cpu")
        step, updates = int(state["step"]), int(state["updates"])
    except Exception as error:  # damaged, foreign or half-written: say so
        return {"run": name, "error": f"state.pt cannot be read ({type(error).__name__}: {error})"}
    phases = state.get("phases") or []
    seconds = sum(p.get("seconds", 0) for p in phases)
    # The pace of the latest run that made progress: earlier ones may have had
    # another machine, other load or slower code.
    latest = next((p for p in reversed(phases) if p.get("updates")), None)
    pace = latest["seconds"] / latest["updates"] if latest else None
    best = (state.get("best") or {}).get("dev_bleu")
    return {"run": name, "update": step, "updates": updates, "finished": step >= updates,
            "best_dev_bleu": None if best is None or best < 0 else round(best, 2),
            "curve": state.get("curve") or [], "hours": round(seconds / 3600, 2),
            "hours_left": None if pace is None else round(max(updates - step, 0) * pace / 3600, 2)}


def runs(root):
    """describe() for every folder under root that holds a state.pt, by name."""
    if not os.path.isdir(root):
        return []
    folders = sorted(os.path.join(root, d) for d in os.listdir(root)
                     if os.path.isfile(os.path.join(root, d, "state.pt")))
    return [describe(f) for f in folders]


def as_text(run):
    if "error" in run:
        return f"{run['run']}: {run['error']}; the next run starts it afresh"
    head = (f"{run['run']}: update {run['update']:,} of {run['updates']:,}"
            + (" (budget done: the same command exports it)" if run["finished"] else "")
            + f", {run['hours']:.2f} h trained")
    if run["hours_left"] is not None and not run["finished"]:
        head += f", about {run['hours_left']:.2f} h left at its latest pace"
    if run["best_dev_bleu"] is not None:
        head += f"; best dev BLEU {run['best_dev_bleu']:.2f}"
    curve = ", ".join(f"{p['update']:,}: {p['dev_bleu']:.2f}" for p in run["curve"])
    return head + (f"\n  dev BLEU by update: {curve}" if curve else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", default=DEFAULT_ROOT, help="the folder of run states (default: %(default)s)")
    ap.add_argument("--json", action="store_true", help="one JSON list instead of text")
    args = ap.parse_args()
    found = runs(args.root)
    if args.json:
        json.dump(found, sys.stdout, indent=1)
        print()
    elif not found:
        print(f"no training runs under {args.root}: ./build.sh model (or zoo) starts one")
    else:
        print("\n".join(as_text(r) for r in found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
