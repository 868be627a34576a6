"""`sim`: a simulated accelerator, so device mistakes fail on a machine without a GPU.

A `sim` tensor is a CPU tensor inside a wrapper that says it lives on another device. Each
operation unwraps its inputs, runs on the CPU and wraps the results; a plain CPU tensor meeting
a `sim` tensor raises PyTorch's usual "Expected all tensors to be on the same device" (except a
0-dim one, which PyTorch accepts next to any device, and CPU indices). The device is registered
from Python on the PrivateUse1 dispatch key. Where CUDA's behaviour shows in kata code it is
copied: the errors of mixed devices and of a CPU generator drawing on the device,
numpy(force=True), pinned memory, torch.save and torch.load with map_location, autocast's dtype
op by op. tests/test_sim_conformance.py is the table of what is copied and what is not: it runs
at CPU speed, and its random draws come from the CPU's generator (CUDA has its own).
"""

from __future__ import annotations

import collections
import sys
import types
import weakref
from collections.abc import Callable
from typing import Any

import torch
from torch._decomp import decomposition_table
from torch.utils import backend_registration

__all__ = [
    "NAME",
    "PAUSED_DURING_OPS",
    "SimTensor",
    "register",
    "unavailable",
]

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
# Ops that refuse even a 0-dim CPU tensor next to device tensors: on CUDA only elementwise
# (TensorIterator) kernels take CPU scalars, and these check every argument's device.
_NO_CPU_SCALARS = frozenset({"aten::stack", "aten::masked_fill", "aten::masked_fill_"})
# Matrix products CUDA has no integer (or bool) kernel for: its BLAS-backed kernels dispatch
# on floating and complex dtypes only, so `int_tensor @ int_tensor` fails there.
_FLOATING_ONLY = frozenset(
    f"aten::{name}"
    for name in ("mm", "bmm", "addmm", "addbmm", "baddbmm", "mv", "addmv", "dot", "vdot")
)


def unavailable() -> str | None:
    """Why this torch cannot host the simulated device, or None when it can."""
    needed = (
        (backend_registration, "_setup_privateuseone_for_python_backend"),
        (torch.Tensor, "_make_wrapper_subclass"),
        (torch._C, "_get_privateuse1_backend_name"),
        (torch.library.Library, "fallback"),
        (torch.UntypedStorage, "_set_cdata"),
        (torch.serialization, "register_package"),
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

    # Saved as a GPU tensor is: its storage, tagged with the device, so torch.load puts it
    # back there, or where map_location says (a string, a device, a dict or a function).
    def __reduce_ex__(self, protocol: Any) -> Any:
        if getattr(self, "_is_param", False):  # an nn.Parameter stays one
            hooks: collections.OrderedDict = collections.OrderedDict()
            return torch._utils._rebuild_parameter, (self.detach(), self.requires_grad, hooks)
        data = self.cpu_data
        storage = torch.TypedStorage(
            wrap_storage=_SimStorage.of(data.untyped_storage()), dtype=self.dtype, _internal=True
        )
        return torch._utils._rebuild_tensor_v2, (
            storage,
            data.storage_offset(),
            tuple(data.size()),
            data.stride(),
            self.requires_grad,
            collections.OrderedDict(),
        )

    # `t.data = new` swaps t's storage for new's (torch's set_data), which on CUDA is how a
    # module's weight gets another tensor in place; set_data copies only the wrapper's own
    # metadata, so the CPU data follows here. (A plain CPU tensor is refused by set_data
    # itself: `sim` tensors and CPU ones are of different tensor types.)
    @property
    def data(self) -> torch.Tensor:
        return torch._C.TensorBase.data.__get__(self)  # type: ignore[attr-defined]

    @data.setter
    def data(self, new: torch.Tensor) -> None:
        torch._C.TensorBase.data.__set__(self, new)  # type: ignore[attr-defined]
        self.cpu_data = new.cpu_data  # type: ignore[attr-defined]

    def tolist(self) -> Any:
        return self.cpu_data.tolist()

    def numpy(self, *, force: bool = False) -> Any:
        if not force:  # the message a CUDA tensor gives
            raise TypeError(
                f"can't convert {self.device} device type tensor to numpy. "
                "Use Tensor.cpu() to copy the tensor to host memory first."
            )
        # force=True: detach, copy to the CPU and convert, as for a CUDA tensor (a copy: the
        # array never shares memory with the device tensor).
        return self.detach().cpu().resolve_conj().resolve_neg().numpy()

    def untyped_storage(self) -> Any:
        # The CPU data's storage, so views of one tensor share one storage as on a GPU;
        # torch.compile, which describes the wrapper itself, gets the wrapper's.
        if torch.compiler.is_compiling():
            return super().untyped_storage()
        return self.cpu_data.untyped_storage()

    def data_ptr(self) -> int:
        return self.cpu_data.data_ptr()

    def _stable_hash_for_caching(self) -> str:
        # The key AOTAutograd caches a compiled graph under: the layout, not the values.
        data = self.cpu_data
        return (
            f"{NAME}:{tuple(data.shape)}:{data.stride()}:{data.storage_offset()}:"
            f"{data.dtype}:{self.requires_grad}"
        )

    @classmethod
    def __torch_dispatch__(  # type: ignore[override]
        cls, func: Any, types: Any, args: Any = (), kwargs: Any = None
    ) -> Any:
        return _run(func, args, kwargs or {})


class _SimStorage(torch.UntypedStorage):
    """A `sim` tensor's storage as torch.save and torch.load see it: the CPU data's memory,
    said to be on `sim`, so that the file's location tag and the loaded tensors are.

    Only serialisation makes these, for the time it runs: torch cannot allocate on `sim`
    itself, so nothing else may ask this storage for a copy on its device.
    """

    @property
    def device(self) -> torch.device:  # type: ignore[override]
        assert _DEVICE is not None
        return _DEVICE

    @classmethod
    def of(cls, storage: torch.UntypedStorage) -> _SimStorage:
        out = cls(0)
        out._set_cdata(storage._cdata)  # the same memory, referenced once more
        return out

    def clone(self) -> _SimStorage:
        # UntypedStorage.clone allocates on self.device, which torch cannot do for `sim`.
        return _SimStorage.of(torch.UntypedStorage(self.nbytes()).copy_(self))


class _OpInfo:
    """What `_run` needs to know about an operator, worked out once per operator."""

    __slots__ = (
        "cpu_outputs",
        "cpu_scalars",
        "floating_only",
        "generators",
        "on_cpu_allowed",
        "special",
        "written",
    )

    def __init__(self, func: Any):
        name = func._schema.name
        self.floating_only = name in _FLOATING_ONLY
        self.on_cpu_allowed = _CROSS_DEVICE.get(name, frozenset())
        self.cpu_scalars = name not in _NO_CPU_SCALARS
        self.cpu_outputs = _CPU_OUTPUTS.get(name, ())
        self.special = _SPECIAL.get(name)
        arguments = func._schema.arguments
        # Position and name of each argument the op writes to (in place, out=).
        self.written = tuple(
            (i, argument.name)
            for i, argument in enumerate(arguments)
            if argument.alias_info is not None and argument.alias_info.is_write
        )
        # Random ops: a generator given must be the device's, as on CUDA.
        self.generators = tuple(
            (i, argument.name)
            for i, argument in enumerate(arguments)
            if "Generator" in str(argument.type)
        )


# By the operator's id: OpOverload hashes in Python, and this lookup is on every op's path.
_OPS: dict[int, tuple[Any, _OpInfo]] = {}


class _Call:
    """One operator call's arguments with the CPU data in place of each `sim` tensor.

    Every op on the device passes through here, so it is one pass over the arguments, the
    common cases first (a `sim` tensor, a number).
    """

    __slots__ = ("allowed", "cpu_scalars", "inputs", "on_sim", "stray")

    def __init__(self, allowed: frozenset[int] | None, cpu_scalars: bool):
        self.allowed = allowed
        self.cpu_scalars = cpu_scalars
        self.on_sim = False  # whether any argument is a `sim` tensor
        self.stray: torch.Tensor | None = None  # a CPU tensor that must not meet one
        self.inputs: list[tuple[torch.Tensor, torch.Tensor]] = []  # (argument, what ran)

    def unwrap(self, position: int, value: Any) -> Any:
        # Operator arguments are tensors, numbers, devices, or flat lists of them.
        kind = type(value)
        if kind is SimTensor:
            self.on_sim = True
            data = value.cpu_data
            self.inputs.append((value, data))
            return data
        if kind in _PLAIN:
            return value
        if isinstance(value, torch.Tensor):
            if kind is not torch.Tensor and value.device.type == NAME:
                # On `sim` without being a SimTensor: a fake tensor that torch.compile made
                # while tracing (a factory with device=); its CPU counterpart runs.
                self.on_sim = True
                ran = value.to(CPU)
                self.inputs.append((value, ran))
                return ran
            self.inputs.append((value, value))
            allowed = self.allowed
            checked = allowed is not None and position not in allowed
            if (
                checked
                and self.stray is None
                and (value.dim() or not self.cpu_scalars)
                and value.device.type != "meta"
            ):
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


# Argument types that pass through as they are (no tensor, list or device inside).
_PLAIN = frozenset(
    {int, float, bool, type(None), str, torch.dtype, torch.layout, torch.memory_format}
)


# Set to True on a kata rule's profile watcher (torch_katas.testing): it is paused while an
# op on `sim` runs. Any other profile function (a profiler's) sees every call as usual.
PAUSED_DURING_OPS = "_paused_during_sim_ops"


def _run(func: Any, args: Any, kwargs: dict[str, Any]) -> Any:
    """Run `func` on the CPU data of its `sim` arguments and wrap what it returns.

    A rule's profile watcher (forbidden_calls, forbidden_modules) is paused meanwhile: what
    runs here is the device's own bookkeeping and an aten kernel, never the learner's code,
    and watching each of its calls made a watched op on `sim` three times as slow.
    """
    # (torch.compile traces this function, and cannot trace sys.getprofile.)
    watcher = None if torch.compiler.is_compiling() else sys.getprofile()
    if watcher is None or not getattr(watcher, PAUSED_DURING_OPS, False):
        return _run_op(func, args, kwargs)
    sys.setprofile(None)
    try:
        return _run_op(func, args, kwargs)
    finally:
        sys.setprofile(watcher)


def _run_op(func: Any, args: Any, kwargs: dict[str, Any]) -> Any:
    entry = _OPS.get(id(func))
    if entry is None or entry[0] is not func:
        entry = _OPS[id(func)] = (func, _OpInfo(func))
    info = entry[1]
    call = _Call(info.on_cpu_allowed, info.cpu_scalars)
    unwrap = call.unwrap
    cpu_args = [unwrap(i, value) for i, value in enumerate(args)]
    cpu_kwargs = {}
    if kwargs:
        for i, (name, value) in enumerate(kwargs.items(), len(args)):
            cpu_kwargs[name] = unwrap(i, value)
    on_sim = call.on_sim
    if on_sim and call.stray is not None:
        raise _mismatch(func, args, call.stray)
    target = kwargs.get("device") if kwargs else None
    onto_sim = target.type == NAME if isinstance(target, torch.device) else on_sim
    if info.generators and onto_sim:
        _check_generators(info.generators, args, kwargs)
    if info.floating_only and on_sim:
        _refuse_integers(func, cpu_args)
    if info.special is not None and on_sim:
        return info.special(func, args, kwargs)
    out = func._op(*cpu_args, **cpu_kwargs)  # the C++ operator: one Python call less
    if on_sim:
        for i, name in info.written:
            _mirror_metadata(args[i] if i < len(args) else kwargs.get(name))
    if isinstance(out, (list, tuple)):
        on_cpu = info.cpu_outputs
        return type(out)(
            value if i in on_cpu else call.wrap(value, onto_sim) for i, value in enumerate(out)
        )
    return call.wrap(out, onto_sim)


def _refuse_integers(func: Any, args: list[Any]) -> None:
    """The error CUDA's matrix products give for integer or bool inputs."""
    for value in args:
        if isinstance(value, torch.Tensor) and not (
            value.is_floating_point() or value.is_complex()
        ):
            kind = value.type().removeprefix("torch.").removesuffix("Tensor")  # "Long", "Int"
            name = func._schema.name.removeprefix("aten::")
            raise RuntimeError(f"\"{name}_{NAME}\" not implemented for '{kind}'")


def _mismatch(func: Any, args: Any, stray: torch.Tensor) -> Exception:
    """The error CUDA gives for a CPU tensor where a device tensor belongs."""
    name = func._schema.name
    if name == "aten::index" and args and args[0] is stray:  # cpu_tensor[device_indices]
        return IndexError(
            "indices should be either on cpu or on the same device as the indexed tensor (cpu)"
        )
    if name in ("aten::masked_fill", "aten::masked_fill_") and len(args) > 1 and args[1] is stray:
        return RuntimeError(
            "expected self and mask to be on the same device, but got mask on "
            f"{stray.device} and self on {NAME}:0"
        )
    return RuntimeError(
        "Expected all tensors to be on the same device, but found at least two "
        f"devices, {NAME}:0 and {stray.device}! (when checking argument in {func})"
    )


def _check_generators(
    generators: tuple[tuple[int, str], ...], args: Any, kwargs: dict[str, Any]
) -> None:
    # A random op on the device draws from the device's generator; `sim` has none of its
    # own (torch.Generator(device="sim") does not exist), so any generator given is another
    # device's: CUDA refuses a CPU generator with this message.
    for i, name in generators:
        generator = args[i] if i < len(args) else kwargs.get(name)
        if isinstance(generator, torch.Generator):
            raise RuntimeError(
                f"Expected a '{NAME}' device type for generator but found '{generator.device.type}'"
            )


def _mirror_metadata(wrapper: object) -> None:
    # In-place ops that change a tensor's shape (an out= op resizing its output, t_,
    # unsqueeze_) changed the CPU data only; copy its sizes and strides onto the wrapper.
    if type(wrapper) is SimTensor:
        data = wrapper.cpu_data
        if wrapper.shape != data.shape or wrapper.stride() != data.stride():
            wrapper.data = SimTensor(data)


# ------------------------------------------------------------------ pinned memory


# Pinned CPU tensors, by the address of their memory: a CPU tensor copied by pin_memory()
# while the machine's accelerator is `sim` (a GPU's pinned memory is page-locked host memory;
# here it is ordinary memory that is_pinned() remembers).
_PINNED: dict[int, weakref.ref] = {}


def _pin_memory_cpu(tensor: torch.Tensor, device: object = None) -> torch.Tensor:
    pinned = torch.empty_strided(tensor.size(), tensor.stride(), dtype=tensor.dtype)
    pinned.copy_(tensor)
    address = pinned.untyped_storage().data_ptr()
    if address:
        _PINNED[address] = weakref.ref(pinned, lambda _: _PINNED.pop(address, None))
    return pinned


def _is_pinned_cpu(tensor: torch.Tensor, device: object = None) -> bool:
    pinned = _PINNED.get(tensor.untyped_storage().data_ptr())
    return pinned is not None and pinned() is not None


def _pin_sim_tensor(func: Any, args: Any, kwargs: dict[str, Any]) -> Any:
    raise RuntimeError(f"cannot pin '{args[0].type()}' only dense CPU tensors can be pinned")


# Ops on `sim` tensors that do not run on their CPU data: only CPU tensors are pinned.
_SPECIAL: dict[str, Callable[[Any, Any, dict[str, Any]], Any]] = {
    "aten::is_pinned": lambda func, args, kwargs: False,
    "aten::_pin_memory": _pin_sim_tensor,
}


# ------------------------------------------------------------------ torch.save / torch.load


def _storage_location(storage: object) -> str | None:
    return None  # torch's own tag for the PrivateUse1 device names `sim` storages "sim:0"


def _restore(storage: Any, location: str) -> _SimStorage | None:
    """torch.load's storage for `location` when it is `sim`: the CPU bytes read, on `sim`."""
    kind, _, index = location.partition(":")
    if kind != NAME:
        return None
    if index and int(index) != 0:
        raise RuntimeError(
            f"Attempting to deserialize object on {NAME.upper()} device {index} but "
            f"torch.{NAME}.device_count() is 1. Please use torch.load with map_location to "
            "map your storages to an existing device."
        )
    return _SimStorage.of(storage)


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
# nn.LSTM, nn.GRU and nn.RNN, on padded and on packed sequences.
_RECURRENT = (  # noqa: SIM905 (a list of names, read as one)
    "lstm.input lstm.data gru.input gru.data rnn_tanh.input rnn_tanh.data rnn_relu.input "
    "rnn_relu.data"
).split()


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
    _aten = torch.library.Library("aten", "IMPL")
    # Ops reached with the Python dispatch key turned off, which the generic fallback cannot
    # take: copies into a `sim` tensor made in C++ (torch.tensor(data, device="sim")), and
    # the value of a 0-dim one (torch.tensor([a, b]) of two 0-dim `sim` tensors).
    _aten.impl("copy_", _copy, "PrivateUse1")
    _aten.impl("_local_scalar_dense", _local_scalar_dense, "PrivateUse1")
    # Pinned memory: with `sim` as the machine's accelerator, torch asks it for a pinned
    # allocator it cannot have; CPU tensors are pinned as described at _PINNED.
    _aten.impl("_pin_memory", _pin_memory_cpu, "CPU")
    _aten.impl("is_pinned", _is_pinned_cpu, "CPU")
    # Autocast with CUDA's rules: each op in the dtype CUDA gives it, the others as they are.
    fallbacks.fallback(torch.library.fallthrough_kernel, "AutocastPrivateUse1")
    for name, kernel in _autocast_kernels().items():
        _aten.impl(name, kernel, "AutocastPrivateUse1")
    # Recurrent layers: on an accelerator torch runs them as fused cell kernels that exist
    # for CUDA alone; on `sim` they run as torch's own decomposition into matrix products
    # and pointwise ops, each with its gradient (as the CPU computes them).
    for name in _RECURRENT:
        _aten.impl(name, decomposition_table[_overload(name)], "AutogradPrivateUse1")
    torch.serialization.register_package(11, _storage_location, _restore)
    _library = (fallbacks, _aten)
    _first_op_without_dtensor()
    return None


def _first_op_without_dtensor() -> None:
    """Run the device's first op without importing torch.distributed.tensor (and sympy).

    torch's C++ dispatch of a tensor subclass imports torch.distributed.tensor on its first
    op, once per process, only to learn the DTensor class, and that import takes about as
    long as `import torch`. When nothing has imported it yet, the first op here sees a
    stand-in module whose DTensor is a class no tensor is an instance of; the stand-in is
    gone right after, so any later `import torch.distributed.tensor` imports the real one
    (a real DTensor then takes torch's general path instead of a C++ shortcut). If this torch
    asks more of the module, the first op is simply done again with the real one.
    """
    name = "torch.distributed.tensor"
    if name in sys.modules:
        return
    stand_in = types.ModuleType(name)
    stand_in.DTensor = type("DTensor", (), {})  # type: ignore[attr-defined]
    sys.modules[name] = stand_in
    try:
        torch.ones(1, device=_DEVICE).add_(1)
    except Exception:
        del sys.modules[name]
        torch.ones(1, device=_DEVICE).add_(1)
    finally:
        if sys.modules.get(name) is stand_in:
            del sys.modules[name]


def _fallback(op: Any, *args: Any, **kwargs: Any) -> Any:
    # Reached by ops with no `sim` tensor among their inputs but `device="sim"`:
    # factories (torch.zeros(3, device="sim")) and copies from the CPU (x.to("sim")).
    return _run(op, args, kwargs)


def _copy(dst: torch.Tensor, src: torch.Tensor, non_blocking: bool = False) -> torch.Tensor:
    return _run(torch.ops.aten.copy_.default, (dst, src, non_blocking), {})


def _local_scalar_dense(tensor: SimTensor) -> Any:
    return tensor.cpu_data.item()


# ------------------------------------------------------------------ autocast


# CUDA's autocast policy (ATen's autocast_mode.cpp), by op: matrix products, convolutions and
# RNN cells run in the 16-bit dtype; ops that need the range or the precision (exp, log, pow,
# norms, losses, softmax, sums) in float32; ops mixing inputs at the widest of their dtypes;
# binary_cross_entropy is refused. tests/test_sim_conformance.py checks these lists against
# the ops torch registers for CUDA's autocast and against what its kernels do.
_AUTOCAST_LOWER = (  # noqa: SIM905 (a list of names, read as one)
    "_convolution.deprecated _convolution conv1d conv2d conv3d conv_tbc conv_transpose1d "
    "conv_transpose2d.input conv_transpose3d.input convolution cudnn_convolution "
    "cudnn_convolution_transpose prelu addmm addmv addr matmul einsum mm mv linalg_vecdot "
    "linear addbmm baddbmm bmm chain_matmul linalg_multi_dot _thnn_fused_lstm_cell "
    "_thnn_fused_gru_cell lstm_cell gru_cell rnn_tanh_cell rnn_relu_cell "
    "_scaled_dot_product_flash_attention scaled_dot_product_attention"
).split()
_AUTOCAST_FP32 = (  # noqa: SIM905 (a list of names, read as one)
    "acos asin cosh erfinv exp expm1 log log10 log2 log1p reciprocal rsqrt sinh tan "
    "pow.Tensor_Scalar pow.Tensor_Tensor pow.Scalar softplus layer_norm native_layer_norm "
    "group_norm rms_norm frobenius_norm.dim nuclear_norm nuclear_norm.dim cosine_similarity "
    "poisson_nll_loss cosine_embedding_loss nll_loss nll_loss2d hinge_embedding_loss kl_div "
    "l1_loss smooth_l1_loss huber_loss mse_loss margin_ranking_loss multilabel_margin_loss "
    "soft_margin_loss triplet_margin_loss multi_margin_loss binary_cross_entropy_with_logits "
    "dist pdist cdist renorm logsumexp upsample_nearest1d _upsample_nearest_exact1d "
    "upsample_nearest2d _upsample_nearest_exact2d upsample_nearest3d "
    "_upsample_nearest_exact3d upsample_linear1d upsample_bilinear2d _upsample_bilinear2d_aa "
    "upsample_trilinear3d upsample_bicubic2d _upsample_bicubic2d_aa"
).split()
# float32 through the op's own dtype argument, where the caller gave none.
_AUTOCAST_FP32_DTYPE_ARG = (  # noqa: SIM905 (a list of names, read as one)
    "prod prod.dim_int softmax.int log_softmax.int cumprod cumsum linalg_vector_norm "
    "linalg_matrix_norm linalg_matrix_norm.str_ord sum sum.dim_IntList"
).split()
# float32 through the overload that takes a dtype.
_AUTOCAST_FP32_WITH_DTYPE = {
    "norm.Scalar": "norm.ScalarOpt_dtype",
    "norm.ScalarOpt_dim": "norm.ScalarOpt_dim_dtype",
}
_AUTOCAST_PROMOTE = (  # noqa: SIM905 (a list of names, read as one)
    "addcdiv addcmul atan2 bilinear cross dot vdot grid_sampler index_put tensordot scatter_add"
).split()
_AUTOCAST_BANNED = {
    "binary_cross_entropy": (
        "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
        "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
        "In this case, combine the two layers using "
        "torch.nn.functional.binary_cross_entropy_with_logits\n"
        "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
        "safe to autocast."
    )
}


def autocast_policy() -> dict[str, str]:
    """Every op with an autocast rule on `sim` (`name.overload`), with its rule."""
    policy = dict.fromkeys(_AUTOCAST_LOWER, "lower")
    policy.update(dict.fromkeys(_AUTOCAST_FP32, "float32"))
    policy.update(dict.fromkeys(_AUTOCAST_FP32_DTYPE_ARG, "float32 dtype"))
    policy.update(dict.fromkeys(_AUTOCAST_FP32_WITH_DTYPE, "float32 dtype"))
    policy.update(dict.fromkeys(_AUTOCAST_PROMOTE, "promote"))
    policy.update(dict.fromkeys(_AUTOCAST_BANNED, "banned"))
    return policy


def _overload(name: str) -> Any:
    """torch.ops.aten.NAME.OVERLOAD, or None where this torch lacks it."""
    packet_name, _, overload = name.partition(".")
    packet = getattr(torch.ops.aten, packet_name, None)
    return getattr(packet, overload or "default", None) if packet is not None else None


def _eligible(value: Any) -> bool:
    # What CUDA's autocast casts: floating-point tensors on the device, except float64.
    return (
        isinstance(value, torch.Tensor)
        and value.device.type == NAME
        and value.is_floating_point()
        and value.dtype is not torch.float64
    )


def _cast(value: Any, dtype: torch.dtype) -> Any:
    if _eligible(value) and value.dtype is not dtype:
        return value.to(dtype)
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(item, dtype) for item in value)
    return value


def _first_tensor(args: Any) -> Any:
    for value in args:
        if isinstance(value, torch.Tensor):
            return value
        if isinstance(value, (list, tuple)) and value and isinstance(value[0], torch.Tensor):
            return value[0]
    return None


def _autocast_kernels() -> dict[str, Callable[..., Any]]:
    """The AutocastPrivateUse1 kernel of each op in `autocast_policy()` that this torch's
    CUDA autocast has a rule for (older releases have fewer)."""
    kernels: dict[str, Callable[..., Any]] = {}
    for name, policy in autocast_policy().items():
        op = _overload(name)
        if op is not None and torch._C._dispatch_has_kernel_for_dispatch_key(
            f"aten::{name}", "AutocastCUDA"
        ):
            kernels[name] = _autocast_kernel(name, policy, op)
    return kernels


_WITHOUT_AUTOCAST = torch._C.DispatchKeySet(
    torch._C.DispatchKey.AutocastPrivateUse1  # type: ignore[attr-defined]
)


def _autocast_kernel(name: str, policy: str, op: Any) -> Callable[..., Any]:
    # Each rule turns the call into (the op to call, its arguments), as CUDA's kernels do.
    def lower(args: tuple, kwargs: dict) -> tuple[Any, tuple, dict]:
        dtype = torch.get_autocast_dtype(NAME)
        return op, _cast(args, dtype), _cast(kwargs, dtype)

    def float32(args: tuple, kwargs: dict) -> tuple[Any, tuple, dict]:
        return op, _cast(args, torch.float32), _cast(kwargs, torch.float32)

    def promote(args: tuple, kwargs: dict) -> tuple[Any, tuple, dict]:
        widest = torch.get_autocast_dtype(NAME)
        for value in (*args, *kwargs.values()):
            if _eligible(value) and value.dtype is torch.float32:
                widest = torch.float32
        return op, _cast(args, widest), _cast(kwargs, widest)

    def banned(args: tuple, kwargs: dict) -> tuple[Any, tuple, dict]:
        raise RuntimeError(_AUTOCAST_BANNED[name])

    def dtype_argument(args: tuple, kwargs: dict) -> tuple[Any, tuple, dict]:
        # float32 through the op's dtype argument, when the first tensor is eligible and the
        # caller gave no dtype.
        if _eligible(_first_tensor(args)):
            if len(args) > position:
                if args[position] is None:
                    args = (*args[:position], torch.float32, *args[position + 1 :])
            elif kwargs.get("dtype") is None:
                kwargs = {**kwargs, "dtype": torch.float32}
        return op, args, kwargs

    def dtype_overload(args: tuple, kwargs: dict) -> tuple[Any, tuple, dict]:
        if _eligible(_first_tensor(args)):
            return with_dtype, args, {**kwargs, "dtype": torch.float32}
        return op, args, kwargs

    rules = {"lower": lower, "float32": float32, "promote": promote, "banned": banned}
    rule = rules.get(policy)
    if name in _AUTOCAST_FP32_DTYPE_ARG:
        position = [argument.name for argument in op._schema.arguments].index("dtype")
        rule = dtype_argument
    elif name in _AUTOCAST_FP32_WITH_DTYPE:
        with_dtype = _overload(_AUTOCAST_FP32_WITH_DTYPE[name])
        rule = dtype_overload
    assert rule is not None, policy

    def kernel(*args: Any, **kwargs: Any) -> Any:
        target, args, kwargs = rule(args, kwargs)
        with torch._C._ExcludeDispatchKeyGuard(_WITHOUT_AUTOCAST):
            return target(*args, **kwargs)

    return kernel
