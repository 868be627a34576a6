"""The simulated device against CUDA: a table of the small PyTorch calls kata answers make,
each with the outcome CUDA gives (where the result lies, or the error and its message).

Each row runs on `sim` here, and on CUDA wherever CUDA is present (test_the_table_on_cuda,
marked `cuda`, which the GPU job runs), so that a GPU run checks the table itself. A row whose
`sim` outcome differs from CUDA's says so (`sim=`, with the reason); docs/devices.md
lists each of them. Where CUDA's outcome is known only in part (the error, not its
exact message), the row checks that part alone and says so. Messages are written with {device}
("cuda:0", "sim:0") and {kind} ("cuda", "sim").
"""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset, default_collate

from torch_katas import devices
from torch_katas.devices import sim

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(
    not devices.available("sim"), reason=f"no simulated device: {sim.unavailable()}"
)


@dataclass(frozen=True)
class On:
    """A result whose tensors all lie on `where`: "device" (the one under test) or "cpu"."""

    where: str
    pinned: bool | None = None  # and whether they are in pinned memory, where that is known


@dataclass(frozen=True)
class Gives:
    """A plain result (a dtype, a bool, a type) equal to `value`."""

    value: object


@dataclass(frozen=True)
class Raises:
    """The call raises `error`, with `match` (a regex) in its message where that is known."""

    error: type[BaseException]
    match: str | None = None


Outcome = On | Gives | Raises


@dataclass(frozen=True)
class Row:
    call: Callable[[torch.device], object]
    cuda: Outcome
    sim: Outcome | None = None  # where the simulated device differs from CUDA
    why: str = ""  # why it differs, as docs/devices.md says it
    mps: Outcome | None = None  # where Apple's MPS differs from CUDA (what its kind models)


ROWS: dict[str, Row] = {}


def row(
    cuda: Outcome, *, sim: Outcome | None = None, why: str = "", mps: Outcome | None = None
) -> Callable:
    def add(call: Callable[[torch.device], object]) -> Callable[[torch.device], object]:
        name = call.__name__.replace("_", "-")
        assert name not in ROWS, name
        assert (sim is None) == (not why), f"{name}: a sim outcome of its own needs its reason"
        ROWS[name] = Row(call, cuda, sim, why, mps)
        return call

    return add


SAME_DEVICE = "Expected all tensors to be on the same device"


def cpu_generator() -> torch.Generator:
    return torch.Generator().manual_seed(0)


# ------------------------------------------------------------------ conversions
# The device check comes first in Tensor.numpy (torch/csrc/utils/tensor_numpy.cpp); force=True
# skips it and does detach().cpu().resolve_conj().resolve_neg() first: a copy, not a view.


@row(Raises(TypeError, r"can't convert {device} device type tensor to numpy"))
def numpy(dev):
    return torch.ones(3, device=dev).numpy()


@row(Raises(TypeError, r"can't convert {device} device type tensor to numpy"))
def numpy_of_a_tensor_that_requires_grad(dev):
    return torch.ones(3, device=dev, requires_grad=True).numpy()


@row(Gives(True))
def numpy_force(dev):
    x = torch.arange(3.0, device=dev, requires_grad=True)
    array = x.numpy(force=True)
    return isinstance(array, np.ndarray) and array.tolist() == [0.0, 1.0, 2.0]


@row(Gives(True))
def numpy_force_is_a_copy(dev):
    x = torch.zeros(3, device=dev)
    x.numpy(force=True)[0] = 5.0
    return x.cpu().tolist() == [0.0, 0.0, 0.0]


# numpy.asarray calls Tensor.__array__, which calls Tensor.numpy() (torch/_tensor.py).
@row(Raises(TypeError, r"can't convert {device} device type tensor to numpy"))
def numpy_asarray(dev):
    return np.asarray(torch.ones(3, device=dev))


@row(Gives(True))
def tolist_item_float_int_bool(dev):
    x = torch.tensor([1.5, 2.0], device=dev)
    return (
        x.tolist() == [1.5, 2.0]
        and x[0].item() == 1.5
        and float(x[1]) == 2.0
        and int(x[1]) == 2
        and bool(x.sum() > 3)
    )


@row(On("cpu"))
def cpu_and_to_cpu(dev):
    x = torch.ones(3, device=dev)
    return x.cpu(), x.to("cpu"), x.to(torch.zeros(1)), x.detach().cpu()


@row(On("device"))
def to_the_device_with_non_blocking(dev):
    return torch.ones(3).to(dev, non_blocking=True), torch.ones(3).to(dev, torch.float64)


# (On CUDA the result of a non_blocking copy to the CPU is pinned; not checked.)
@row(On("cpu"))
def to_the_cpu_with_non_blocking(dev):
    return torch.ones(3, device=dev).to("cpu", non_blocking=True)


@row(Gives(True))
def to_its_own_device_returns_the_tensor_itself(dev):
    x = torch.ones(3, device=dev)
    return x.to(dev) is x and x.to(x.device, torch.float32) is x


@row(On("cpu", pinned=True))
def pin_memory_of_a_cpu_tensor(dev):
    return torch.ones(3).pin_memory()


# at::native::_pin_memory refuses any tensor not on the CPU (aten/src/ATen/native/Memory.cpp).
@row(Raises(RuntimeError, r"only dense CPU tensors can be pinned"))
def pin_memory_of_a_device_tensor(dev):
    return torch.ones(3, device=dev).pin_memory()


@row(Gives(False))
def is_pinned_of_a_device_tensor(dev):
    return torch.ones(3, device=dev).is_pinned()


# torch.tensor reads each 0-dim tensor of a list with .item(); without device= the result is on
# the default device, the CPU.
@row(On("cpu"))
def tensor_from_a_list_of_device_scalars(dev):
    x = torch.arange(3.0, device=dev)
    return torch.tensor([x[0], x[2]])


@row(On("device"))
def tensor_from_a_list_of_device_scalars_with_device(dev):
    x = torch.arange(3.0, device=dev)
    return torch.tensor([x[0], x[2]], device=dev)


@row(Gives(True))
def as_tensor_of_a_device_tensor_is_that_tensor(dev):
    x = torch.ones(3, device=dev)
    return torch.as_tensor(x) is x


@row(On("device"))
def from_numpy_then_to_the_device(dev):
    return torch.from_numpy(np.ones(3)).to(dev), torch.as_tensor(np.ones(3), device=dev)


# ------------------------------------------------------------------ factories


@row(On("cpu"))
def factories_without_device(dev):
    return torch.zeros(3), torch.arange(3), torch.tensor([1, 2]), torch.randn(2), torch.eye(2)


@row(On("device"))
def factories_with_device(dev):
    return (
        torch.zeros(3, device=dev),
        torch.arange(3, device=dev),
        torch.full((2,), 7.0, device=dev),
        torch.linspace(0, 1, 5, device=dev),
        torch.tensor([1, 2], device=dev),
        torch.randn(2, device=dev),
        torch.randint(0, 5, (3,), device=dev),
        torch.randperm(4, device=dev),
    )


@row(On("device"))
def like_and_new_factories(dev):
    x = torch.ones(3, device=dev)
    return (
        torch.zeros_like(x),
        torch.rand_like(x),
        torch.full_like(x, 2.0),
        x.new_zeros(2),
        x.new_tensor([1.0, 2.0]),
    )


# CUDA's random kernels take their generator through check_generator<CUDAGeneratorImpl>
# (aten/src/ATen/core/DistributionsHelper.h): "Expected a 'cuda' device type for generator
# but found 'cpu'". (Except randperm(0, ...), which returns before drawing: not a row.)
CPU_GENERATOR = Raises(
    RuntimeError, r"Expected a '{kind}' device type for generator but found 'cpu'"
)


@row(CPU_GENERATOR)
def randperm_on_the_device_with_a_cpu_generator(dev):
    return torch.randperm(5, generator=cpu_generator(), device=dev)


@row(CPU_GENERATOR)
def randn_on_the_device_with_a_cpu_generator(dev):
    return torch.randn(5, generator=cpu_generator(), device=dev)


@row(CPU_GENERATOR)
def randint_on_the_device_with_a_cpu_generator(dev):
    return torch.randint(0, 9, (5,), generator=cpu_generator(), device=dev)


@row(CPU_GENERATOR)
def normal_of_a_device_tensor_with_a_cpu_generator(dev):
    return torch.empty(5, device=dev).normal_(generator=cpu_generator())


@row(CPU_GENERATOR)
def multinomial_of_device_weights_with_a_cpu_generator(dev):
    return torch.multinomial(torch.ones(4, device=dev), 2, generator=cpu_generator())


@row(On("device"))
def randperm_with_a_cpu_generator_then_to_the_device(dev):
    return torch.randperm(5, generator=cpu_generator()).to(dev)


@row(
    Gives(True),
    sim=Raises(NotImplementedError, r"getNewGenerator"),
    why="torch.Generator(device=...) does not exist for a device registered from Python",
)
def generator_of_the_device(dev):
    generator = torch.Generator(device=dev).manual_seed(0)
    return torch.randperm(5, generator=generator, device=dev).device.type == dev.type


@row(
    Gives(False),
    sim=Gives(True),
    why="sim draws from the CPU's generator: the same numbers as the CPU, from its state",
)
def device_draws_repeat_the_cpu_draws(dev):
    torch.manual_seed(0)
    on_device = torch.randn(8, device=dev).cpu()
    torch.manual_seed(0)
    return torch.equal(on_device, torch.randn(8))


# ------------------------------------------------------------------ mixing devices
# TensorIterator (the elementwise kernels) takes the first non-CPU tensor's device as the
# common one and accepts 0-dim CPU inputs next to it, no other CPU tensor; the other kernels
# check every tensor argument (aten/src/ATen/TensorIterator.cpp, the generated device checks).


@row(Raises(RuntimeError, SAME_DEVICE))
def binary_op_with_a_cpu_tensor(dev):
    return torch.ones(3, device=dev) + torch.ones(3)


@row(On("device"))
def binary_op_with_a_0dim_cpu_tensor(dev):
    x = torch.ones(3, device=dev)
    return x + torch.tensor(1.0), x * torch.tensor(2), torch.tensor(3.0) - x


@row(Raises(RuntimeError, SAME_DEVICE))
def binary_op_of_a_cpu_tensor_and_a_0dim_device_tensor(dev):
    return torch.ones(3) + torch.ones(3, device=dev).sum()


@row(Raises(RuntimeError, SAME_DEVICE))
def matmul_with_a_cpu_tensor(dev):
    return torch.ones(2, 3, device=dev) @ torch.ones(3, 2)


@row(Raises(RuntimeError, SAME_DEVICE))
def cat_with_a_cpu_tensor(dev):
    return torch.cat([torch.ones(3, device=dev), torch.ones(3)])


@row(Raises(RuntimeError, SAME_DEVICE))
def stack_with_a_cpu_tensor(dev):
    return torch.stack([torch.ones(3, device=dev), torch.ones(3)])


# stack unsqueezes 0-dim tensors and concatenates them: cat checks every tensor's device.
@row(Raises(RuntimeError, SAME_DEVICE))
def stack_of_a_device_scalar_and_a_cpu_scalar(dev):
    return torch.stack([torch.ones(3, device=dev).sum(), torch.tensor(0.0)])


@row(Raises(RuntimeError, SAME_DEVICE))
def where_with_a_cpu_condition(dev):
    x = torch.ones(3, device=dev)
    return torch.where(torch.ones(3) > 0, x, x)


# where_self_out moves 0-dim CPU tensors to the device (aten/src/ATen/native/TensorCompare.cpp).
@row(On("device"))
def where_with_a_python_or_0dim_cpu_scalar(dev):
    x = torch.ones(3, device=dev)
    return torch.where(x > 0, x, 0.0), torch.where(x > 0, x, torch.tensor(0.0))


@row(Raises(RuntimeError, SAME_DEVICE))
def in_place_op_on_a_device_tensor_with_a_cpu_tensor(dev):
    return torch.ones(3, device=dev).add_(torch.ones(3))


@row(Raises(RuntimeError, SAME_DEVICE))
def in_place_op_on_a_cpu_tensor_with_a_device_tensor(dev):
    return torch.ones(3).add_(torch.ones(3, device=dev))


@row(Raises(RuntimeError, SAME_DEVICE))
def in_place_op_on_a_cpu_tensor_with_a_0dim_device_tensor(dev):
    return torch.ones(3).add_(torch.ones(3, device=dev).sum())


@row(Gives(True))
def copy_between_devices(dev):
    into_device = torch.zeros(3, device=dev).copy_(torch.ones(3))
    into_cpu = torch.zeros(3).copy_(torch.ones(3, device=dev))
    return into_device.device.type == dev.type and into_cpu.device.type == "cpu"


@row(On("device"))
def indexing_with_cpu_indices_or_mask(dev):
    x = torch.arange(4.0, device=dev)
    return x[torch.tensor([0, 2])], x[torch.tensor([True, False, True, False])], x[torch.tensor(1)]


@row(On("device"))
def index_assignment_with_cpu_indices(dev):
    x = torch.zeros(4, device=dev)
    x[torch.tensor([0, 2])] = 1.0
    x[torch.tensor([1])] = torch.tensor(2.0)
    return x


# check_indices_on_cpu_or_selfdevice (aten/src/ATen/native/TensorAdvancedIndexing.cpp), a
# TORCH_CHECK_INDEX: an IndexError.
@row(Raises(IndexError, r"indices should be either on cpu or on the same device as the indexed"))
def indexing_a_cpu_tensor_with_device_indices(dev):
    return torch.arange(4.0)[torch.tensor([1], device=dev)]


# masked_fill__cuda checks the mask's device itself (aten/src/ATen/native/cuda/Indexing.cu).
@row(Raises(RuntimeError, r"expected self and mask to be on the same device"))
def masked_fill_with_a_cpu_mask(dev):
    return torch.ones(3, device=dev).masked_fill(torch.tensor([True, False, True]), 0.0)


# These raise on CUDA; their messages are the kernels' own and vary by op and release: only
# the error is part of the row.
@row(Raises(RuntimeError))
def gather_with_a_cpu_index(dev):
    return torch.ones(3, device=dev).gather(0, torch.tensor([0, 1]))


@row(Raises(RuntimeError))
def index_select_with_a_cpu_index(dev):
    return torch.ones(3, device=dev).index_select(0, torch.tensor([0, 1]))


@row(Raises(RuntimeError))
def embedding_with_cpu_indices(dev):
    return F.embedding(torch.tensor([0, 1]), torch.ones(4, 2, device=dev))


@row(Raises(RuntimeError))
def torch_equal_of_tensors_on_two_devices(dev):
    return torch.equal(torch.ones(3, device=dev), torch.ones(3))


@row(Raises(RuntimeError, SAME_DEVICE))
def cross_entropy_with_cpu_targets(dev):
    return F.cross_entropy(torch.randn(4, 3, device=dev), torch.tensor([0, 1, 2, 0]))


@row(Raises(RuntimeError, SAME_DEVICE))
def mse_loss_with_a_cpu_target(dev):
    return F.mse_loss(torch.randn(4, device=dev), torch.randn(4))


@row(Raises(AssertionError, r"device"))
def assert_close_of_tensors_on_two_devices(dev):
    torch.testing.assert_close(torch.ones(3, device=dev), torch.ones(3))


@row(
    Gives(True),
    sim=Gives(False),
    why="sim is not CUDA: code that branches on is_cuda or device.type == 'cuda' takes its "
    "other branch there",
)
def is_cuda(dev):
    return torch.ones(1, device=dev).is_cuda


# ------------------------------------------------------------------ dtypes and kernels


# MPS has no float64 (nor complex128): its kind lists them as missing, so float64 checks skip
# there (torch_katas.devices, test_the_mps_kind_lacks_what_the_table_says).
@row(On("device"), mps=Raises(TypeError, r"MPS framework doesn't support float64"))
def float64_tensor(dev):
    return torch.ones(3, dtype=torch.float64, device=dev)


# CUDA's matrix products dispatch on floating and complex dtypes only (cuBLAS); the message
# names the kernel ("addmm_cuda", "bmm_cuda"), so only its end is checked.
INTEGER_PRODUCT = Raises(RuntimeError, r"not implemented for 'Long'")


@row(INTEGER_PRODUCT)
def integer_matmul(dev):
    a = torch.ones(2, 3, dtype=torch.int64, device=dev)
    return a @ a.T


@row(INTEGER_PRODUCT)
def integer_bmm(dev):
    a = torch.ones(2, 2, 3, dtype=torch.int64, device=dev)
    return torch.bmm(a, a.mT)


@row(INTEGER_PRODUCT)
def integer_matrix_vector_product(dev):
    return torch.ones(2, 3, dtype=torch.int64, device=dev) @ torch.ones(
        3, dtype=torch.int64, device=dev
    )


@row(On("device"))
def integer_products_by_broadcasting(dev):
    a = torch.ones(2, 3, dtype=torch.int64, device=dev)
    return (a[:, None, :] * a[None, :, :]).sum(-1), a.float() @ a.T.float()


# set_data swaps the tensor's storage and metadata for the new tensor's: the variable (a
# module's Parameter) stays the same object with the new values and shape.
@row(Gives(True))
def data_assignment_swaps_the_storage(dev):
    weight = nn.Linear(2, 3).to(dev).weight
    weight.data = torch.full((4, 2), 5.0, device=dev)
    return weight.shape == (4, 2) and weight.cpu().tolist() == [[5.0, 5.0]] * 4


@row(
    On("cpu"),
    sim=Raises(RuntimeError, r"incompatible tensor type"),
    why="a `sim` tensor cannot become a CPU tensor: set_data refuses the other tensor type",
)
def data_assignment_of_a_cpu_tensor(dev):
    x = torch.zeros(3, device=dev)
    x.data = torch.ones(3)
    return x


# conj() only sets the conjugate bit (no copy), and a copy to the CPU keeps it: numpy() then
# refuses the result until resolve_conj().
@row(
    Gives(True),
    sim=Gives(False),
    why="sim's tensor does not carry its CPU data's conjugate bit: z.conj() looks resolved",
)
def conj_is_a_flag(dev):
    conjugated = torch.tensor([1 + 2j], device=dev).conj()
    return conjugated.is_conj() and conjugated.cpu().is_conj()


# ------------------------------------------------------------------ modules and optimizers


@row(On("device"))
def module_to_moves_parameters_buffers_and_gradients(dev):
    model = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    assert model.to(dev) is model
    model(torch.randn(4, 3, device=dev)).sum().backward()
    return [*model.parameters(), *model.buffers(), *(p.grad for p in model.parameters())]


@row(On("device"))
def clip_grad_norm_returns_the_norm_on_the_device(dev):
    layer = nn.Linear(3, 2).to(dev)
    layer(torch.randn(4, 3, device=dev)).sum().backward()
    return nn.utils.clip_grad_norm_(layer.parameters(), 1.0)


def trained_adam(dev: torch.device, **options: object) -> tuple[nn.Module, torch.optim.Adam]:
    layer = nn.Linear(3, 2).to(dev)
    optimizer = torch.optim.Adam(layer.parameters(), **options)
    layer(torch.randn(4, 3, device=dev)).sum().backward()
    optimizer.step()
    return layer, optimizer


# Adam keeps `step` on the CPU unless capturable or fused (torch/optim/adam.py, _init_group).
@row(Gives(("device", "device", "cpu")))
def adam_state_devices(dev):
    layer, optimizer = trained_adam(dev)
    state = optimizer.state[layer.weight]
    kinds = [state[key].device for key in ("exp_avg", "exp_avg_sq", "step")]
    return tuple("device" if kind.type == dev.type else kind.type for kind in kinds)


@row(Gives(("device", "device", "device")))
def fused_adam_state_devices(dev):
    layer, optimizer = trained_adam(dev, fused=True)
    state = optimizer.state[layer.weight]
    kinds = [state[key].device for key in ("exp_avg", "exp_avg_sq", "step")]
    return tuple("device" if kind.type == dev.type else kind.type for kind in kinds)


@row(On("device"))
def sgd_momentum_buffer(dev):
    layer = nn.Linear(3, 2).to(dev)
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.1, momentum=0.9)
    layer(torch.randn(4, 3, device=dev)).sum().backward()
    optimizer.step()
    return optimizer.state[layer.weight]["momentum_buffer"]


# Optimizer.load_state_dict casts the state to each parameter's device, except `step`.
@row(Gives(("device", "cpu")))
def optimizer_state_loaded_from_the_cpu(dev):
    layer, optimizer = trained_adam(dev)
    saved = round_trip(optimizer.state_dict(), map_location="cpu")
    fresh = torch.optim.Adam(layer.parameters())
    fresh.load_state_dict(saved)
    state = fresh.state[layer.weight]
    return tuple(
        "device" if state[key].device.type == dev.type else state[key].device.type
        for key in ("exp_avg", "step")
    )


# ------------------------------------------------------------------ torch.save and torch.load


def round_trip(obj: object, **load: object) -> object:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    buffer.seek(0)
    return torch.load(buffer, weights_only=True, **load)


def device_checkpoint(dev: torch.device) -> dict[str, torch.Tensor]:
    weight = torch.arange(6.0, device=dev)
    return {"weight": weight, "view": weight[2:4]}


@row(On("device"))
def load_a_device_checkpoint(dev):
    return round_trip(device_checkpoint(dev))


@row(On("cpu"))
def load_a_device_checkpoint_to_the_cpu(dev):
    return (
        round_trip(device_checkpoint(dev), map_location="cpu"),
        round_trip(device_checkpoint(dev), map_location=torch.device("cpu")),
        round_trip(device_checkpoint(dev), map_location={f"{dev.type}:0": "cpu"}),
        round_trip(device_checkpoint(dev), map_location=lambda storage, location: storage),
    )


@row(On("device"))
def load_a_device_checkpoint_with_map_location_the_device(dev):
    return round_trip(device_checkpoint(dev), map_location=dev)


@row(On("device"))
def load_a_cpu_checkpoint_onto_the_device(dev):
    cpu = {"weight": torch.arange(6.0), "step": torch.tensor(3)}
    return (
        round_trip(cpu, map_location=dev),
        round_trip(cpu, map_location=str(dev)),
        round_trip(cpu, map_location={"cpu": f"{dev.type}:0"}),
    )


@row(Gives(True))
def loaded_views_still_share_their_storage(dev):
    loaded = round_trip(device_checkpoint(dev), map_location=dev)
    loaded["weight"][2] = 100.0
    return loaded["view"][0].item() == 100.0


# CPUGeneratorImpl::set_state accepts only a CPU ByteTensor (aten/src/ATen/CPUGeneratorImpl.cpp).
@row(Raises(TypeError, r"RNG state must be a torch.ByteTensor"))
def set_rng_state_from_a_device_tensor(dev):
    torch.set_rng_state(round_trip({"rng": torch.get_rng_state()}, map_location=dev)["rng"])


@row(On("device"))
def load_state_dict_copies_into_device_parameters(dev):
    model = nn.Linear(3, 2).to(dev)
    model.load_state_dict(nn.Linear(3, 2).state_dict())
    return list(model.parameters())


@row(On("cpu"))
def load_state_dict_with_assign_takes_the_loaded_tensors(dev):
    model = nn.Linear(3, 2).to(dev)
    model.load_state_dict(nn.Linear(3, 2).state_dict(), assign=True)
    return list(model.parameters())


# ------------------------------------------------------------------ data loading


@row(On("cpu"))
def loader_batches_of_a_cpu_dataset(dev):
    return next(iter(DataLoader(TensorDataset(torch.arange(6.0)), batch_size=4)))


@row(On("device"))
def loader_batches_of_a_device_dataset(dev):
    dataset = TensorDataset(torch.arange(6.0, device=dev), torch.arange(6, device=dev))
    return next(iter(DataLoader(dataset, batch_size=4, shuffle=True)))


@row(On("cpu", pinned=True))
def loader_with_pin_memory(dev):
    if dev.type != "cuda" and "torch.accelerator.is_available()" not in LOADER_SOURCE:
        pytest.skip("this torch's DataLoader pins memory for CUDA alone")
    loader = DataLoader(TensorDataset(torch.arange(6.0)), batch_size=4, pin_memory=True)
    return next(iter(loader))


LOADER_SOURCE = inspect.getsource(torch.utils.data.dataloader)


@row(On("device"))
def default_collate_of_device_tensors(dev):
    return default_collate([torch.ones(2, device=dev), torch.zeros(2, device=dev)])


# ------------------------------------------------------------------ autocast and GradScaler
# CUDA's autocast rules are ATen's (aten/src/ATen/autocast_mode.cpp);
# test_autocast_rules_are_cudas below checks sim's against them op by op.


@contextlib.contextmanager
def autocast(dev: torch.device, dtype: torch.dtype = torch.float16) -> Iterator[None]:
    with torch.autocast(device_type=dev.type, dtype=dtype):
        yield


@row(Gives(torch.float16))
def autocast_default_dtype(dev):
    return torch.get_autocast_dtype(dev.type)


@row(Gives((torch.float16, torch.bfloat16, torch.float16)))
def autocast_linear_and_matmul_in_16_bit(dev):
    layer = nn.Linear(4, 3).to(dev)
    x = torch.randn(2, 4, device=dev)
    with autocast(dev):
        half = layer(x)
        product = x @ x.T
    with autocast(dev, torch.bfloat16):
        brain = layer(x)
    return half.dtype, brain.dtype, product.dtype


@row(Gives((torch.float32,) * 6))
def autocast_float32_ops_on_16_bit_inputs(dev):
    h = torch.randn(4, 3, device=dev).half()
    targets = torch.tensor([0, 1, 2, 0], device=dev)
    with autocast(dev):
        return (
            F.softmax(h, dim=-1).dtype,
            h.sum().dtype,
            F.mse_loss(h, h).dtype,
            F.cross_entropy(h, targets).dtype,
            F.layer_norm(h, (3,)).dtype,
            h.exp().dtype,
        )


@row(Gives((torch.float16, torch.float16, torch.float32)))
def autocast_other_ops_keep_their_dtype_or_promote(dev):
    h = torch.randn(3, device=dev).half()
    with autocast(dev):
        return torch.relu(h).dtype, (h + 1).dtype, torch.addcmul(h.float(), h, h).dtype


@row(Gives(torch.float64))
def autocast_leaves_float64_alone(dev):
    x = torch.randn(2, 2, device=dev, dtype=torch.float64)
    with autocast(dev):
        return (x @ x).dtype


@row(Raises(RuntimeError, r"unsafe to autocast"))
def autocast_refuses_binary_cross_entropy(dev):
    probabilities = torch.rand(4, device=dev)
    with autocast(dev):
        return F.binary_cross_entropy(probabilities, torch.ones(4, device=dev))


@row(Gives((torch.float32, torch.float32)))
def autocast_gradients_of_float32_weights_are_float32(dev):
    layer = nn.Linear(4, 3).to(dev)
    with autocast(dev):
        loss = F.mse_loss(layer(torch.randn(2, 4, device=dev)), torch.zeros(2, 3, device=dev))
    loss.backward()
    return layer.weight.grad.dtype, loss.dtype


@row(Gives(True))
def grad_scaler_for_the_device(dev):
    layer = nn.Linear(4, 1).to(dev)
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler(dev.type, init_scale=256.0)
    with autocast(dev):
        loss = layer(torch.randn(8, 4, device=dev)).float().mean()
    scaled = scaler.scale(loss)
    scaled.backward()
    scaler.step(optimizer)
    scaler.update()
    return scaled.device.type == dev.type and scaler.is_enabled() and scaler.get_scale() == 256.0


# torch/amp/grad_scaler.py refuses to unscale float16 gradients, on any device.
@row(Raises(ValueError, r"Attempting to unscale FP16 gradients"))
def grad_scaler_with_a_float16_model(dev):
    layer = nn.Linear(4, 1).to(dev).half()
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler(dev.type)
    scaler.scale(layer(torch.randn(8, 4, device=dev).half()).float().mean()).backward()
    scaler.step(optimizer)


# ------------------------------------------------------------------ torch.compile and export


@contextlib.contextmanager
def fresh_dynamo() -> Iterator[None]:
    torch._dynamo.reset()
    try:
        yield
    finally:
        torch._dynamo.reset()


def compiled(fn: Callable, *args: torch.Tensor, backend: str = "eager") -> object:
    with fresh_dynamo():
        return torch.compile(fn, backend=backend, fullgraph=True)(*args)


@row(On("device"))
def compile_a_function(dev):
    def f(x, w):
        return torch.relu(x @ w).sum(), x * 2

    x, w = torch.randn(4, 3, device=dev), torch.randn(3, 2, device=dev)
    return compiled(f, x, w), compiled(f, x, w, backend="aot_eager")


@row(On("device"))
def compile_a_function_that_makes_tensors_on_its_inputs_device(dev):
    def f(x):
        scale = torch.where(x.norm() > 1, 1 / x.norm(), 1.0)
        return x * scale + torch.ones(3, device=x.device) + torch.zeros_like(x)

    return compiled(f, torch.randn(4, 3, device=dev))


# Tracing fails with fake tensors on two devices; the message is the tracer's own.
@row(Raises(RuntimeError))
def compile_a_function_that_makes_a_cpu_tensor(dev):
    def f(x):
        return x + torch.ones(3)

    return compiled(f, torch.randn(4, 3, device=dev))


@row(Gives((1, 1)))
def dynamo_explain_counts_a_graph_break(dev):
    def f(x):
        if x.sum() > 0:
            return x * 2
        return x - 1

    with fresh_dynamo():
        explanation = torch._dynamo.explain(f)(torch.ones(3, device=dev))
    return explanation.graph_break_count, len(explanation.break_reasons)


@row(
    On("device"),
    sim=Raises(RuntimeError),
    why="torch.export cannot make fake tensors of its tensors (a wrapper around CPU data)",
)
def export_a_module(dev):
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU()).to(dev).eval()
    x = torch.randn(2, 3, device=dev)
    program = torch.export.export(model, (x,))
    return program.module()(x)


# ------------------------------------------------------------------ the table, on each device


def tensors_in(value: object) -> Iterator[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from tensors_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from tensors_in(item)


def message(pattern: str, dev: torch.device) -> str:
    return pattern.format(device=f"{dev.type}:0", kind=dev.type)


def check(outcome: Outcome, call: Callable[[torch.device], object], dev: torch.device) -> None:
    if isinstance(outcome, Raises):
        match = None if outcome.match is None else message(outcome.match, dev)
        with pytest.raises(outcome.error, match=match):
            call(dev)
        return
    result = call(dev)
    if isinstance(outcome, Gives):
        assert result == outcome.value
        return
    tensors = list(tensors_in(result))
    assert tensors, f"the row returned no tensor: {result!r}"
    want = dev.type if outcome.where == "device" else outcome.where
    assert [t.device.type for t in tensors] == [want] * len(tensors)
    if outcome.pinned is not None:
        assert [t.is_pinned() for t in tensors] == [outcome.pinned] * len(tensors)


# Registering `sim` makes it the process's accelerator (PyTorch puts a PrivateUse1 device
# first), which changes what pinning and the DataLoader do on CUDA too. So the rows run on
# CUDA in a process of their own, where `sim` is never registered: test_the_table_on_cuda.
ON_CUDA_ONLY = os.environ.get("TORCH_KATAS_CONFORMANCE") == "cuda"


@pytest.fixture(params=["cuda"] if ON_CUDA_ONLY else ["sim"])
def target(request: pytest.FixtureRequest) -> torch.device:
    """The device a row runs on: sim, or CUDA in test_the_table_on_cuda's process."""
    if request.param == "sim":
        assert sim.register() is None
    return torch.device(request.param)


@pytest.fixture(autouse=True)
def same_random_state() -> Iterator[None]:
    with torch.random.fork_rng(devices=[]):
        yield


@pytest.mark.filterwarnings("ignore:To copy construct from a tensor:UserWarning")
@pytest.mark.parametrize("name", ROWS)
def test_row(name: str, target: torch.device) -> None:
    row = ROWS[name]
    outcome = row.sim if target.type == "sim" and row.sim is not None else row.cuda
    check(outcome, row.call, target)


@pytest.mark.cuda
@pytest.mark.timeout(600)
def test_the_table_on_cuda() -> None:
    """Every row on CUDA, in a fresh process: the GPU job checks the table itself here."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            __file__,
            "-k",
            "test_row",
            "-rf",
            "-p",
            "no:cacheprovider",
        ],
        cwd=ROOT,
        env={**os.environ, "TORCH_KATAS_CONFORMANCE": "cuda", "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=540,
    )
    failed = re.findall(r"^FAILED \S+\[(\S+)\]", done.stdout, re.MULTILINE)
    assert done.returncode == 0, (
        f"rows whose CUDA outcome is not the table's: {failed}\n{done.stdout[-3000:]}"
    )
    assert "passed" in done.stdout.splitlines()[-1]


def test_the_mps_kind_lacks_what_the_table_says() -> None:
    lacks_float64 = isinstance(ROWS["float64-tensor"].mps, Raises)
    assert lacks_float64 == (torch.float64 in devices.KINDS["mps"].missing_dtypes)


def test_the_device_page_names_every_row_where_sim_differs_from_cuda() -> None:
    section = (ROOT / "docs" / "devices.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`([a-z0-9-]+)`", section)) & set(ROWS)
    differing = {name for name, row in ROWS.items() if row.sim is not None}
    assert named == differing, (
        f"rows where sim differs but docs/devices.md does not name them: "
        f"{sorted(differing - named)}; named there but not differing: {sorted(named - differing)}"
    )


# ------------------------------------------------------------------ autocast, op by op


def cuda_autocast_ops() -> set[str]:
    """The ops this torch's CUDA autocast has a rule for, as `name.overload`."""
    names = torch._C._dispatch_get_all_op_names()
    return {
        name.removeprefix("aten::")
        for name in names
        if name.startswith("aten::")
        and torch._C._dispatch_has_kernel_for_dispatch_key(name, "AutocastCUDA")
    }


def test_sim_has_an_autocast_rule_for_every_op_cuda_has_one_for() -> None:
    assert sim.register() is None
    ours, cudas = set(sim.autocast_policy()), cuda_autocast_ops()
    assert cudas <= ours, f"ops CUDA's autocast handles and sim's does not: {sorted(cudas - ours)}"
    registered = {
        name
        for name in ours
        if torch._C._dispatch_has_kernel_for_dispatch_key(f"aten::{name}", "AutocastPrivateUse1")
    }
    assert registered == cudas


class FakeCuda(torch.Tensor):
    """A CPU tensor that says it is on CUDA, so that CUDA's own autocast kernels (registered
    in every build of torch) handle it: what they hand to the op underneath is CUDA's rule."""

    data_: torch.Tensor
    __torch_function__ = torch._C._disabled_torch_function_impl  # type: ignore[assignment]

    @staticmethod
    def __new__(cls, data: torch.Tensor) -> FakeCuda:
        out = torch.Tensor._make_wrapper_subclass(
            cls, data.size(), dtype=data.dtype, device=torch.device("cuda", 0)
        )
        out.data_ = data
        return out

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):  # type: ignore[override]
        def unwrap(value: object) -> object:
            if isinstance(value, FakeCuda):
                return value.data_
            if isinstance(value, (list, tuple)):
                return type(value)(unwrap(item) for item in value)
            if isinstance(value, torch.device):
                return torch.device("cpu")
            return value

        args, kwargs = unwrap(args), {key: unwrap(value) for key, value in (kwargs or {}).items()}
        softmax = (torch.ops.aten._softmax.default, torch.ops.aten._log_softmax.default)
        if func in softmax and args[2]:  # half_to_float, which only CUDA's kernel implements
            args = (args[0].float(), args[1], False)
        out = func(*args, **kwargs)
        if isinstance(out, torch.Tensor):
            return FakeCuda(out)
        return tuple(FakeCuda(item) for item in out) if isinstance(out, tuple) else out


def low(shape: tuple[int, ...] = (4, 3), dtype: torch.dtype = torch.bfloat16) -> torch.Tensor:
    return torch.randn(shape).to(dtype)


# One call per rule (and ops without one), on 16-bit and float32 inputs.
AUTOCAST_PROBES: dict[str, Callable[[Callable[[torch.Tensor], torch.Tensor]], object]] = {
    "linear": lambda put: F.linear(put(low()), put(torch.randn(2, 3))),
    "matmul": lambda put: put(torch.randn(4, 3)) @ put(low((3, 2))),
    "bmm": lambda put: torch.bmm(put(low((2, 4, 3))), put(torch.randn(2, 3, 2))),
    "conv2d": lambda put: F.conv2d(put(torch.randn(1, 2, 5, 5)), put(torch.randn(3, 2, 3, 3))),
    "softmax": lambda put: F.softmax(put(low()), dim=-1),
    "log_softmax": lambda put: F.log_softmax(put(low()), dim=-1),
    "softmax-with-dtype": lambda put: F.softmax(put(low()), dim=-1, dtype=torch.float64),
    "sum": lambda put: put(low()).sum(),
    "sum-dim": lambda put: put(low()).sum(dim=0),
    "cumsum": lambda put: put(low()).cumsum(0),
    "exp": lambda put: put(low()).exp(),
    "pow": lambda put: put(low()).pow(2),
    "mse_loss": lambda put: F.mse_loss(put(low()), put(low())),
    "cross_entropy": lambda put: F.cross_entropy(put(low()), put(torch.tensor([0, 1, 2, 0]))),
    "layer_norm": lambda put: F.layer_norm(put(low()), (3,)),
    "norm": lambda put: put(low()).norm(),
    "vector_norm": lambda put: torch.linalg.vector_norm(put(low())),
    "addcmul": lambda put: torch.addcmul(put(torch.randn(3)), put(low((3,))), put(low((3,)))),
    "addcmul-low": lambda put: torch.addcmul(put(low((3,))), put(low((3,))), put(low((3,)))),
    "relu": lambda put: torch.relu(put(low())),
    "add": lambda put: put(low()) + put(torch.randn(4, 3)),
    "float64-mm": lambda put: put(torch.randn(2, 2, dtype=torch.float64)) @ put(low((2, 2))),
    "int-sum": lambda put: put(torch.arange(4)).sum(),
    "binary_cross_entropy": lambda put: F.binary_cross_entropy(
        put(torch.rand(3).to(torch.bfloat16)), put(torch.ones(3).to(torch.bfloat16))
    ),
}


def outcome_of(probe: Callable[[], object]) -> object:
    try:
        result = probe()
    except RuntimeError as error:
        return f"RuntimeError: {str(error).splitlines()[0]}"
    return result.dtype  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", AUTOCAST_PROBES)
def test_autocast_rules_are_cudas(name: str) -> None:
    probe = AUTOCAST_PROBES[name]
    previous = torch.is_autocast_enabled("cuda"), torch.get_autocast_dtype("cuda")
    try:
        torch.set_autocast_enabled("cuda", True)
        torch.set_autocast_dtype("cuda", torch.bfloat16)
        try:
            on_cuda = outcome_of(lambda: probe(FakeCuda))
        finally:
            torch.clear_autocast_cache()
    finally:
        torch.set_autocast_enabled("cuda", previous[0])
        torch.set_autocast_dtype("cuda", previous[1])
    assert sim.register() is None
    with torch.autocast(device_type="sim", dtype=torch.bfloat16):
        on_sim = outcome_of(lambda: probe(lambda t: t.to("sim")))
    assert on_sim == on_cuda
