"""`sim`: a simulated accelerator, so device mistakes fail on a machine without a GPU.

A `sim` tensor is a CPU tensor inside a wrapper that says it lives on another device. Each
operation unwraps its inputs, runs on the CPU and wraps the results; a plain CPU tensor (other
than a 0-dim one, which PyTorch accepts next to any device) meeting a `sim` tensor raises
PyTorch's usual "Expected all tensors to be on the same device". The device is registered from
Python on the PrivateUse1 dispatch key. It checks where tensors are: it runs at CPU speed and has
none of CUDA's own behaviour.
"""

from __future__ import annotations

import types
from typing import Any

import torch
from torch.utils import backend_registration

NAME = "sim"
CPU = torch.device("cpu")

# Arguments that may be on the CPU next to `sim` tensors, as next to CUDA ones (None: all):
# copies, CPU indices, and the lengths of packed sequences, which must be on the CPU.
# (Schema names carry no overload.)
_CROSS_DEVICE: dict[str, frozenset[int] | None] = {
    "aten::copy_": None,
    "aten::_to_copy": None,
    "aten::_copy_from": None,
    "aten::_copy_from_and_resize": None,
    "aten::index": frozenset({1}),
    "aten::index_put_": frozenset({1}),
    "aten::index_put": frozenset({1}),
    "aten::_index_put_impl_": frozenset({1}),
    "aten::_pack_padded_sequence": frozenset({1}),
    "aten::_pad_packed_sequence": frozenset({1}),
}
# Outputs that stay on the CPU, as on any device: the batch sizes and lengths of packing.
_CPU_OUTPUTS = {"aten::_pack_padded_sequence": {1}, "aten::_pad_packed_sequence": {1}}


def unavailable() -> str | None:
    """Why this torch cannot host the simulated device, or None when it can."""
    needed = (
        (backend_registration, "_setup_privateuseone_for_python_backend"),
        (torch.Tensor, "_make_wrapper_subclass"),
        (torch._C, "_get_privateuse1_backend_name"),
        (torch.library.Library, "fallback"),
    )
    for owner, name in needed:
        if not hasattr(owner, name):
            return f"torch {torch.__version__} lacks {name}"
    taken = torch._C._get_privateuse1_backend_name()
    if taken not in ("privateuseone", NAME):
        return f"the PrivateUse1 device key is already {taken!r}"
    return None


# torch.device("sim", 0), made once `sim` is registered (every op makes a tensor on it).
_DEVICE: torch.device | None = None


class SimTensor(torch.Tensor):
    """A tensor on the `sim` device; its data is the CPU tensor `cpu_data`."""

    cpu_data: torch.Tensor
    # Results come back as SimTensor from __torch_dispatch__; skipping the Python-level
    # __torch_function__ saves a call per op.
    __torch_function__ = torch._C._disabled_torch_function_impl  # type: ignore[assignment]

    @staticmethod
    def __new__(cls, data: torch.Tensor) -> SimTensor:
        out = torch.Tensor._make_wrapper_subclass(
            cls,
            data.size(),
            strides=data.stride(),
            storage_offset=data.storage_offset(),
            dtype=data.dtype,
            layout=data.layout,
            device=_DEVICE,
            requires_grad=data.requires_grad,
        )
        out.cpu_data = data
        return out

    # What torch.compile and nn.Module.to need to see through the wrapper.
    def __tensor_flatten__(self) -> tuple[list[str], None]:
        return ["cpu_data"], None

    @staticmethod
    def __tensor_unflatten__(
        inner: dict[str, torch.Tensor], meta: object, outer_size: object, outer_stride: object
    ) -> SimTensor:
        return SimTensor(inner["cpu_data"])

    def __repr__(self, *, tensor_contents: object = None) -> str:  # type: ignore[override]
        return f"{self.cpu_data!r}"[:-1] + f", device='{NAME}:0')"

    # As on a GPU: saved tensors load back onto the device, or where map_location says.
    def __reduce_ex__(self, protocol: Any) -> Any:
        return torch._utils._rebuild_device_tensor_from_cpu_tensor, (
            self.cpu_data.detach(),
            self.dtype,
            str(self.device),
            self.requires_grad,
        )

    def tolist(self) -> Any:
        return self.cpu_data.tolist()

    def numpy(self, *, force: bool = False) -> Any:
        # The message a CUDA tensor gives.
        raise TypeError(
            f"can't convert {self.device} device type tensor to numpy. "
            "Use Tensor.cpu() to copy the tensor to host memory first."
        )

    def untyped_storage(self) -> Any:
        # The CPU data's storage, so views of one tensor share one storage as on a GPU;
        # torch.compile, which describes the wrapper itself, gets the wrapper's.
        if torch.compiler.is_compiling():
            return super().untyped_storage()
        return self.cpu_data.untyped_storage()

    def data_ptr(self) -> int:
        return self.cpu_data.data_ptr()

    @classmethod
    def __torch_dispatch__(  # type: ignore[override]
        cls, func: Any, types: Any, args: Any = (), kwargs: Any = None
    ) -> Any:
        return _run(func, args, kwargs or {})


class _OpInfo:
    """What `_run` needs to know about an operator, worked out once per operator."""

    def __init__(self, func: Any):
        name = func._schema.name
        self.on_cpu_allowed = _CROSS_DEVICE.get(name, frozenset())
        self.cpu_outputs = _CPU_OUTPUTS.get(name, ())
        # Position and name of each argument the op writes to (in place, out=).
        self.written = tuple(
            (i, argument.name)
            for i, argument in enumerate(func._schema.arguments)
            if argument.alias_info is not None and argument.alias_info.is_write
        )


_OPS: dict = {}


class _Call:
    """One operator call's arguments with the CPU data in place of each `sim` tensor.

    Every op on the device passes through here, so it is one pass over the arguments.
    """

    __slots__ = ("allowed", "inputs", "on_sim", "stray")

    def __init__(self, allowed: frozenset[int] | None):
        self.allowed = allowed
        self.on_sim = False  # whether any argument is a `sim` tensor
        self.stray: torch.Tensor | None = None  # a CPU tensor that must not meet one
        self.inputs: list[tuple[torch.Tensor, torch.Tensor]] = []  # (argument, what ran)

    def unwrap(self, position: int, value: Any) -> Any:
        # Operator arguments are tensors, numbers, devices, or flat lists of them.
        if type(value) is SimTensor:
            self.on_sim = True
            self.inputs.append((value, value.cpu_data))
            return value.cpu_data
        if isinstance(value, torch.Tensor):
            self.inputs.append((value, value))
            allowed = self.allowed
            checked = allowed is not None and position not in allowed
            if checked and self.stray is None and value.dim() and value.device.type != "meta":
                self.stray = value
            return value
        if isinstance(value, (list, tuple)):
            return type(value)([self.unwrap(position, item) for item in value])
        if isinstance(value, torch.device) and value.type == NAME:
            return CPU
        return value

    def wrap(self, value: Any, onto_sim: bool) -> Any:
        if not isinstance(value, torch.Tensor):
            return value
        # An op that returns one of its inputs (in place, out=) returns the same object.
        for argument, ran in self.inputs:
            if value is ran:
                return argument
        return SimTensor(value) if onto_sim else value


def _run(func: Any, args: Any, kwargs: dict[str, Any]) -> Any:
    """Run `func` on the CPU data of its `sim` arguments and wrap what it returns."""
    info = _OPS.get(func)
    if info is None:
        info = _OPS[func] = _OpInfo(func)
    call = _Call(info.on_cpu_allowed)
    cpu_args = [call.unwrap(i, value) for i, value in enumerate(args)]
    cpu_kwargs = {}
    for i, (name, value) in enumerate(kwargs.items(), len(args)):
        cpu_kwargs[name] = call.unwrap(i, value)
    if call.on_sim and call.stray is not None:
        raise RuntimeError(
            "Expected all tensors to be on the same device, but found at least two "
            f"devices, {NAME}:0 and {call.stray.device}! (when checking argument in {func})"
        )
    target = kwargs.get("device")
    onto_sim = target.type == NAME if isinstance(target, torch.device) else call.on_sim
    out = func(*cpu_args, **cpu_kwargs)
    if call.on_sim:
        for i, name in info.written:
            _mirror_metadata(args[i] if i < len(args) else kwargs.get(name))
    if isinstance(out, (list, tuple)):
        on_cpu = info.cpu_outputs
        return type(out)(
            value if i in on_cpu else call.wrap(value, onto_sim) for i, value in enumerate(out)
        )
    return call.wrap(out, onto_sim)


def _mirror_metadata(wrapper: object) -> None:
    # In-place ops that change a tensor's shape (an out= op resizing its output, t_,
    # unsqueeze_) changed the CPU data only; copy its sizes and strides onto the wrapper.
    if type(wrapper) is SimTensor:
        data = wrapper.cpu_data
        if wrapper.shape != data.shape or wrapper.stride() != data.stride():
            wrapper.data = SimTensor(data)


def _fallback(op: Any, *args: Any, **kwargs: Any) -> Any:
    # Reached by ops with no `sim` tensor among their inputs but `device="sim"`:
    # factories (torch.zeros(3, device="sim")) and copies from the CPU (x.to("sim")).
    return _run(op, args, kwargs)


class _Module(types.ModuleType):
    """torch.sim: what torch asks of a device's runtime module. The simulated device has
    no random state of its own; random ops run on the CPU's generator."""

    @staticmethod
    def is_available() -> bool:
        return True

    @staticmethod
    def is_initialized() -> bool:
        return True

    @staticmethod
    def device_count() -> int:
        return 1

    @staticmethod
    def current_device() -> int:
        return 0

    @staticmethod
    def _is_in_bad_fork() -> bool:
        return False

    @staticmethod
    def manual_seed_all(seed: int) -> None:
        pass  # the CPU's generator, seeded by torch.manual_seed, serves `sim` too

    # torch.random.fork_rng() saves the state of the current accelerator, which is `sim`.
    @staticmethod
    def get_rng_state(device: object = None) -> torch.Tensor:
        return torch.get_rng_state()

    @staticmethod
    def set_rng_state(state: torch.Tensor, device: object = None) -> None:
        torch.set_rng_state(state)

    @staticmethod
    def get_amp_supported_dtype() -> list[torch.dtype]:
        return [torch.float16, torch.bfloat16]


_library: tuple[torch.library.Library, ...] | None = None


def register() -> str | None:
    """Make `sim` a device torch knows; None when it is ready, else the reason it is absent."""
    global _library, _DEVICE
    reason = unavailable()
    if reason is not None:
        return reason
    if _library is not None or hasattr(torch, NAME):
        _DEVICE = torch.device(NAME, 0)
        return None
    # Renames PrivateUse1, adds Tensor.sim() and Module.sim(), registers torch.sim and the
    # device guard and hooks that torch asks of every device (the autograd engine uses them).
    backend_registration._setup_privateuseone_for_python_backend(
        rename=NAME, backend_module=_Module(f"torch.{NAME}")
    )
    _DEVICE = torch.device(NAME, 0)
    # The backward of `sim` tensors runs on the thread that asks for it, as on the CPU: the
    # autograd engine's thread for the device would hand every backward over to another
    # thread and back, which took longer than the backward itself.
    torch.autograd.set_multithreading_enabled(False)
    fallbacks = torch.library.Library("_", "IMPL")
    fallbacks.fallback(_fallback, "PrivateUse1")
    # Copies into a `sim` tensor made in C++ (torch.tensor(data, device="sim")) arrive with
    # the Python dispatch key turned off; the generic fallback cannot take them.
    _aten = torch.library.Library("aten", "IMPL")
    _aten.impl("copy_", _copy, "PrivateUse1")
    # Autocast as on the CPU: matrix products and convolutions in the 16-bit dtype, every
    # other op as it is.
    fallbacks.fallback(torch.library.fallthrough_kernel, "AutocastPrivateUse1")
    for name in _LOWER_PRECISION:
        _aten.impl(name, _autocast_kernel(getattr(torch.ops.aten, name)), "AutocastPrivateUse1")
    _library = (fallbacks, _aten)
    return None


_LOWER_PRECISION = ("linear", "matmul", "mm", "bmm", "addmm", "baddbmm", "conv1d", "conv2d")


def _autocast_kernel(op: Any) -> Any:
    def kernel(*args: Any, **kwargs: Any) -> Any:
        dtype = torch.get_autocast_dtype(NAME)

        def cast(value: Any) -> Any:
            if isinstance(value, torch.Tensor) and value.dtype in (torch.float32, dtype):
                return value.to(dtype)
            return value

        key = torch._C.DispatchKey.AutocastPrivateUse1  # type: ignore[attr-defined]
        autocast = torch._C.DispatchKeySet(key)
        with torch._C._ExcludeDispatchKeyGuard(autocast):
            return op(*map(cast, args), **kwargs)

    return kernel


def _copy(dst: torch.Tensor, src: torch.Tensor, non_blocking: bool = False) -> torch.Tensor:
    return _run(torch.ops.aten.copy_.default, (dst, src, non_blocking), {})
