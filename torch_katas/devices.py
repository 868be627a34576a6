"""Which devices the kata tests run on."""

from __future__ import annotations

import torch

ACCELERATORS = ("cuda", "mps")


def available(kind: str) -> bool:
    # These checks query the driver without creating a CUDA context.
    if kind == "cpu":
        return True
    if kind == "cuda":
        return torch.cuda.is_available()
    if kind == "mps":
        return torch.backends.mps.is_available()
    return False


def present() -> list[str]:
    """CPU plus every accelerator this machine has, always in the same order."""
    return ["cpu", *(kind for kind in ACCELERATORS if available(kind))]


def missing() -> list[str]:
    return [kind for kind in ACCELERATORS if not available(kind)]


def parse(option: str | None) -> list[str]:
    """Turn `--device cpu,cuda` into a device list; absent devices are a usage error.

    Raises ValueError with a message meant for the person who typed the option.
    """
    if not option:
        return present()
    chosen: list[str] = []
    for name in (part.strip() for part in option.split(",")):
        if not name:
            continue
        kind, _, index = name.partition(":")
        if kind not in ("cpu", *ACCELERATORS) or (index and not index.isdigit()):
            raise ValueError(
                f"--device {name}: unknown device; use cpu, cuda, cuda:N or mps, "
                "comma-separated (for example --device cpu,cuda)"
            )
        if not available(kind):
            raise ValueError(
                f"--device {name}: {kind} is not available on this machine "
                f"(found: {', '.join(present())})"
            )
        if kind == "cuda" and index and int(index) >= torch.cuda.device_count():
            raise ValueError(
                f"--device {name}: this machine has {torch.cuda.device_count()} CUDA device(s)"
            )
        if name not in chosen:
            chosen.append(name)
    if not chosen:
        raise ValueError("--device: name at least one device, for example --device cpu")
    return chosen
