"""Markers and the device parametrisation: each kata test runs once per chosen device."""

from __future__ import annotations

import pytest
import torch

from torch_katas import catalog, devices
from torch_katas.plugin.run import RUN, kata_of

__all__ = [
    "THINNED",
    "mark_items",
    "parameter_id",
    "parametrize",
    "register_markers",
    "thinned_line",
]

# Topic markers come from katas.toml; these are the plugin's own.
MARKERS = {
    "cuda": "the test needs CUDA; it runs only on CUDA devices and is skipped without one",
    "slow": "the test takes seconds (inductor compiles, exports); deselect with -m 'not slow'",
    "not_on_sim": "not_on_sim(reason): the test needs what the simulated device cannot give "
    "(a CUDA-only API, torch.export); it skips on sim with the reason",
}


def register_markers(config: pytest.Config, katas: dict[str, catalog.Kata]) -> None:
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")
    for topic in sorted({kata.topic for kata in katas.values()}):
        config.addinivalue_line("markers", f"{topic}: katas on {topic.replace('_', ' ')}")


CUDA_SKIP = "needs CUDA"


def parametrize(metafunc: pytest.Metafunc) -> None:
    if "device" not in metafunc.fixturenames:
        return
    chosen: list[str] = metafunc.config.stash[RUN].devices
    if metafunc.definition.get_closest_marker("cuda"):
        cuda = [name for name in chosen if name.startswith("cuda")]
        if not cuda:
            found = "not selected by --device" if devices.available("cuda") else "none found"
            metafunc.parametrize(
                "device",
                [pytest.param("cuda", marks=pytest.mark.skip(reason=f"{CUDA_SKIP}: {found}"))],
                indirect=True,
            )
            return
        chosen = cuda
    params: list[object] = list(chosen)
    not_on_sim = metafunc.definition.get_closest_marker("not_on_sim")
    if not_on_sim:
        reason = "not on the simulated device: " + " ".join(map(str, not_on_sim.args))
        params = [
            pytest.param(name, marks=pytest.mark.skip(reason=reason))
            if devices.kind_of(name) == "sim"
            else name
            for name in chosen
        ]
    metafunc.parametrize("device", params, indirect=True)


def parameter_id(value: object) -> str | None:
    """Readable test ids for dtypes and devices: `[float32]`, `[cuda:0]`, not `[dtype0]`."""
    if isinstance(value, torch.dtype):
        return str(value).removeprefix("torch.")
    if isinstance(value, torch.device):
        return str(value)
    return None


THINNED = pytest.StashKey[bool]()  # on a test left out of the run by thin_simulated
THINNED_WHY = "sim runs one dtype per kind, the CPU all of them"


def mark_items(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Each kata test gets its topic's marker; CUDA tests skip where there is none; the sim
    pass is thinned, its tests left out reported as deselected (thinned_line says why)."""
    for item in items:
        kata = kata_of(item)
        if kata is not None:
            item.add_marker(kata.topic)
        if item.get_closest_marker("cuda") and not devices.available("cuda"):
            item.add_marker(pytest.mark.skip(reason=f"{CUDA_SKIP}: none found"))
    kept = thin_simulated(items)
    if len(kept) < len(items):
        chosen = set(map(id, kept))
        dropped = [item for item in items if id(item) not in chosen]
        for item in dropped:
            item.stash[THINNED] = True
        config.stash[RUN].thinned += len(dropped)
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def thinned_line(config: pytest.Config) -> list[str]:
    """The line under "collected N items" that says why some were deselected."""
    count = config.stash[RUN].thinned
    if not count or config.get_verbosity() < 0:
        return []
    return [f"torch-katas: {count} deselected: {THINNED_WHY}"]


def dtype_kind(dtype: torch.dtype) -> str:
    if dtype.is_complex:
        return "complex"
    if dtype.is_floating_point:
        return "floating"
    return "bool" if dtype == torch.bool else "integer"


def thin_simulated(items: list[pytest.Item]) -> list[pytest.Item]:
    """On the simulated device, one dtype of each kind (floating, integer...) per test.

    The simulated device computes on the CPU, so another dtype of the same kind can show no
    device mistake the first did not, and the CPU pass checks every dtype's values. (Where
    the CPU does not run, as with --device sim, every dtype runs on sim.)
    """

    def params(item: pytest.Item) -> dict[str, object]:
        callspec = getattr(item, "callspec", None)
        return dict(callspec.params) if callspec is not None else {}

    def on(item: pytest.Item, kind: str) -> bool:
        device = params(item).get("device")
        return isinstance(device, str) and devices.kind_of(device) == kind

    if not any(on(item, "cpu") for item in items):
        return items
    kept, seen = [], set()
    for item in items:
        found = params(item)
        if not on(item, "sim") or not any(isinstance(v, torch.dtype) for v in found.values()):
            kept.append(item)
            continue
        key = (
            item.path,
            getattr(item, "originalname", item.name),
            *(
                (name, dtype_kind(v) if isinstance(v, torch.dtype) else str(v))
                for name, v in sorted(found.items())
            ),
        )
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept
