"""OpenBLAS's kernels chosen from the CPU's own feature flags, before PyTorch loads it.

Debian 12's OpenBLAS (0.3.21, built for every x86 core) picks its kernels by
the CPU's family and model number. On a CPU it does not know by number it
falls back to Prescott, its SSE3 kernels, though the CPU may have AVX-512.
Measured on 2026-12-07 on a 2-core cloud VM that reports "Intel(R) Xeon(R)
Processor" with avx512f/bw/dq/vl, one thread, PyTorch 1.13:
    (192,256) x (256,768), a GRU step's product   Prescott 2.41 ms  SkylakeX 0.58 ms
    (3840,256) x (256,2227), a sampled softmax    Prescott 152 ms   SkylakeX 39 ms
    one update of the layer-norm recipe (batch 192) Prescott 2.21 s SkylakeX 0.88 s
OPENBLAS_CORETYPE overrides the choice. The library reads it once, when it is
loaded (import torch, or numpy), so it must be in the environment before
that: build.sh exports it for everything it starts, and the training scripts
import this module before torch for when they are run by hand.

The choice is a kernel set whose instructions the CPU lists (/proc/cpuinfo
shows a flag only where the kernel has enabled it): SkylakeX for AVX-512
F/CD/BW/DQ/VL, Haswell for AVX2 with FMA (what OpenBLAS runs on Zen too),
nothing (OpenBLAS's own choice) otherwise. For float32 products these are the
kernels OpenBLAS would pick for a CPU it knows; on a newer one (Cooper Lake,
Sapphire Rapids) it would add bfloat16 kernels, which PyTorch's float32
training does not call. A value already in the
environment is kept, so OPENBLAS_CORETYPE=... in front of a command still wins.

  python3 models/train/openblas_core.py   prints the choice ("" for none)
"""
import os

SKYLAKE_X_FLAGS = frozenset({"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"})
HASWELL_FLAGS = frozenset({"avx2", "fma"})


def core_for_flags(flags):
    """A set of /proc/cpuinfo flags -> the OPENBLAS_CORETYPE to use, or None."""
    if SKYLAKE_X_FLAGS <= flags:
        return "SkylakeX"
    if HASWELL_FLAGS <= flags:
        return "Haswell"
    return None


def cpu_flags(path="/proc/cpuinfo"):
    """The first processor's flags; an empty set where there is no such file (not Linux)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                name, _, value = line.partition(":")
                if name.strip() == "flags":
                    return frozenset(value.split())
    except OSError:
        pass
    return frozenset()


def choose(environ=os.environ, path="/proc/cpuinfo"):
    """Sets environ's OPENBLAS_CORETYPE from the CPU's flags unless it is set; -> its value or None."""
    if environ.get("OPENBLAS_CORETYPE"):
        return environ["OPENBLAS_CORETYPE"]
    core = core_for_flags(cpu_flags(path))
    if core:
        environ["OPENBLAS_CORETYPE"] = core
    return core


def loaded_core():
    """The kernel set of the OpenBLAS this process has loaded (after import torch), e.g.
    "SkylakeX"; None where none is loaded (a PyTorch built on another BLAS, or a CUDA run
    that never touched it): RTLD_NOLOAD only finds a library already there, and never
    loads a second copy that would read our choice and confirm it."""
    try:
        import ctypes
        library = ctypes.CDLL("libopenblas.so.0", mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        library.openblas_get_corename.restype = ctypes.c_char_p
        return library.openblas_get_corename().decode()
    except (OSError, AttributeError):
        return None


choose()

if __name__ == "__main__":
    print(os.environ.get("OPENBLAS_CORETYPE", ""))
