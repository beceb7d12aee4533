"""Our own saves read back, and checkpoint averaging: the element-wise mean of a run's
saved weights (train.py --average-last uses it at the end of a budget; average.py
measures it on any saves)."""
import torch


def load_own(path):
    """A state, checkpoint or save that train.py (or another of our scripts) wrote -> its
    dict, on the CPU. They hold more than tensors (the config, vocabularies, segmentation,
    RNG states). PyTorch 2.6 made torch.load's restricted reader (weights_only=True) the
    default, which admits only the types on its list; 1.13's refuses even their floats
    ("Unsupported operand 71"). These files are ours, so they are read unrestricted, said
    outright, and a GPU machine's PyTorch 2.x reads them as Debian's 1.13 does. A file
    from elsewhere (a student's tutorial model) keeps the default."""
    return torch.load(path, map_location="cpu", weights_only=False)


class AverageError(Exception):
    """Saves that cannot be averaged together (other weights or shapes)."""


def average_state_dicts(state_dicts):
    """The element-wise mean of state dicts with the same keys and shapes (float tensors;
    summed in float64, returned in each tensor's own dtype)."""
    if not state_dicts:
        raise AverageError("nothing to average")
    keys = list(state_dicts[0])
    for i, sd in enumerate(state_dicts):
        if set(sd) != set(keys):
            raise AverageError(f"save {i} has other weights than save 0 ({sorted(set(sd) ^ set(keys))[:3]})")
        for key in keys:
            if sd[key].shape != state_dicts[0][key].shape:
                raise AverageError(f"save {i}: {key} is {tuple(sd[key].shape)}, save 0's {tuple(state_dicts[0][key].shape)}")
    out = {}
    for key in keys:
        total = sum(sd[key].to(torch.float64) for sd in state_dicts)
        out[key] = (total / len(state_dicts)).to(state_dicts[0][key].dtype)
    return out
