"""Which devices the kata tests run on: every device kind the suite knows is one row of KINDS."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from torch_katas.devices import sim

__all__ = [
    "KINDS",
    "Kind",
    "available",
    "describe",
    "describe_missing",
    "from_config",
    "kind_of",
    "missing",
    "missing_dtypes",
    "parse",
    "present",
    "rng_states",
    "seed_all",
    "set_rng_states",
    "set_up",
]


@dataclass(frozen=True)
class Kind:
    name: str
    # Whether --device may name it; these checks query the driver without creating a context.
    available: Callable[[], bool]
    count: Callable[[], int]
    # A stand-in for a GPU: in the default list only where no real accelerator is.
    simulated: bool = False
    # Dtypes the kind cannot hold at all; tests that need one skip there.
    missing_dtypes: tuple[torch.dtype, ...] = ()
    # Indices whose random state is the kind's own, saved around a run; kinds whose random
    # ops use the CPU's generator have none.
    rng_devices: Callable[[], list[int]] = lambda: []
    # Seeds all of the kind's own generators; None where it has none.
    seed: Callable[[int], object] | None = None
    # The random state of the kind's generator on one index (of rng_devices), and what puts
    # a state back there; None where it has no generator of its own.
    get_rng_state: Callable[[int], torch.Tensor] | None = None
    set_rng_state: Callable[[torch.Tensor, int], object] | None = None
    # Shown after the name in the report header.
    note: str = ""
    # Why it is absent when it is, for the header and the --device error.
    absent_reason: Callable[[], str | None] = lambda: None
    # Run once before the kind is used (the simulated device registers itself with torch).
    setup: Callable[[], object] = lambda: None


def _cuda_rng() -> list[int]:
    # Only once CUDA is in use: counting devices earlier would create a context.
    return list(range(torch.cuda.device_count())) if torch.cuda.is_initialized() else []


KINDS = {
    kind.name: kind
    for kind in (
        Kind("cpu", available=lambda: True, count=lambda: 1),
        Kind(
            "cuda",
            available=torch.cuda.is_available,
            count=torch.cuda.device_count,
            rng_devices=_cuda_rng,
            seed=torch.cuda.manual_seed_all,
            get_rng_state=torch.cuda.get_rng_state,
            set_rng_state=torch.cuda.set_rng_state,
        ),
        Kind(
            "mps",
            available=torch.backends.mps.is_available,
            count=lambda: 1,
            missing_dtypes=(torch.float64, torch.complex128),
            rng_devices=lambda: [0] if torch.backends.mps.is_available() else [],
            seed=torch.mps.manual_seed,
            # One MPS device: its functions take no index.
            get_rng_state=lambda index: torch.mps.get_rng_state(),
            set_rng_state=lambda state, index: torch.mps.set_rng_state(state),
        ),
        Kind(
            "sim",
            available=lambda: sim.unavailable() is None,
            count=lambda: 1,
            simulated=True,
            note="simulated accelerator: device checks only, CPU speed",
            absent_reason=lambda: sim.unavailable(),
            setup=sim.register,
        ),
    )
}


def available(kind: str) -> bool:
    return kind in KINDS and KINDS[kind].available()


def present() -> list[str]:
    """The default device list: the CPU and every accelerator found, else the simulated one;
    the same kinds in the same order on every worker."""
    found = [name for name, kind in KINDS.items() if kind.available()]
    real = [name for name in found if not KINDS[name].simulated]
    # `real` always holds the CPU; simulated accelerators stand in where it is alone.
    return real if len(real) > 1 else found


def missing() -> list[str]:
    return [name for name, kind in KINDS.items() if not kind.available()]


def describe_missing(name: str) -> str:
    """An absent kind as the report header shows it: with the reason where one is known."""
    reason = KINDS[name].absent_reason()
    return f"{name} ({reason})" if reason else name


def describe(name: str, short: bool = False) -> str:
    """A chosen device as the report header shows it (`short`: without -v)."""
    kind = KINDS[kind_of(name)]
    if short:
        return f"{name} (simulated)" if kind.simulated else name
    return f"{name} ({kind.note})" if kind.note else name


def missing_dtypes(device: torch.device | str) -> tuple[torch.dtype, ...]:
    kind = KINDS.get(torch.device(device).type)
    return kind.missing_dtypes if kind else ()


def rng_states() -> dict[str, dict[int, torch.Tensor]]:
    """The random state of each kind's own generators in use now, by index."""
    found = {}
    for name, kind in KINDS.items():
        indices = kind.rng_devices()
        if indices and kind.get_rng_state is not None:
            found[name] = {index: kind.get_rng_state(index) for index in indices}
    return found


def set_rng_states(states: dict[str, dict[int, torch.Tensor]]) -> None:
    """Put back what rng_states() returned."""
    for name, by_index in states.items():
        put_back = KINDS[name].set_rng_state
        for index, state in by_index.items():
            if put_back is not None:
                put_back(state, index)


def seed_all(seed: int) -> None:
    """torch.manual_seed for the kinds present, at a fraction of its cost: torch's seeds every
    kind it knows, and on a machine without CUDA formats a stack trace to queue each call."""
    torch.random.default_generator.manual_seed(seed)
    for kind in KINDS.values():
        # CUDA queues the seed until it starts, so a test that starts it is seeded too.
        if kind.seed is not None and kind.available():
            kind.seed(seed)


def set_up(chosen: list[str]) -> None:
    for kind in dict.fromkeys(kind_of(name) for name in chosen):
        KINDS[kind].setup()


def kind_of(name: str) -> str:
    """`cuda:1` -> `cuda`, without torch.device, which knows `sim` only once it is set up."""
    return name.partition(":")[0]


def from_config(config: Any) -> list[str]:
    """The devices a pytest run chose: its --device option, else the `device` ini setting (as
    pytest-timeout pairs --timeout with `timeout`), else the default list. ValueError as
    parse() raises it, naming where the list came from."""
    option = config.getoption("device", None)
    if option:
        return parse(option)
    return parse(config.getini("device") or None, source="device =")


def parse(option: str | None, source: str = "--device") -> list[str]:
    """Turn `--device cpu,cuda` into a device list; absent devices are a usage error.

    Raises ValueError with a message meant for the person who typed the option (`source`:
    how they typed it).
    """
    if not option:
        return present()
    chosen: list[str] = []
    for name in (part.strip() for part in option.split(",")):
        if not name:
            continue
        kind, _, index = name.partition(":")
        if kind not in KINDS or (index and not index.isdigit()):
            raise ValueError(
                f"{source} {name}: unknown device; use {', '.join(KINDS)} or cuda:N, "
                "comma-separated (for example --device cpu,cuda)"
            )
        row = KINDS[kind]
        if not row.available():
            reason = row.absent_reason()
            raise ValueError(
                f"{source} {name}: {kind} is not available on this machine"
                + (f" ({reason})" if reason else "")
                + f" (found: {', '.join(present())})"
            )
        if index and int(index) >= row.count():
            raise ValueError(f"{source} {name}: this machine has {row.count()} {kind} device(s)")
        if name not in chosen:
            chosen.append(name)
    if not chosen:
        raise ValueError(
            f"{source.rstrip(' =')}: name at least one device, for example --device cpu"
        )
    return chosen
