"""The facet declarations and their generic checks (torch_katas/facets.py): every public name of
every stub declares its facets, every declared facet has a check, and each check fails on an
answer that breaks its facet."""

import ast
import collections
import importlib
import importlib.util
import inspect
import math
import re
from pathlib import Path

import pytest
import torch
from torch import nn

from torch_katas import catalog, facets

ROOT = Path(__file__).resolve().parents[1]
KATAS = catalog.load(ROOT)


def public_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_")
    }


def declarations(path: Path) -> tuple[set[str], set[str], bool]:
    """The names given to facets.of/facets.none, the facet kinds used, and whether the file
    binds the generated tests to `test_facets`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    declared, kinds = set(), set()
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "facets"
        ):
            continue
        if node.func.attr in ("of", "none") and node.args and isinstance(node.args[0], ast.Name):
            declared.add(node.args[0].id)
        elif node.func.attr[:1].isupper():
            kinds.add(node.func.attr)
    bound = any(
        isinstance(node, ast.Assign)
        and [getattr(target, "id", None) for target in node.targets] == ["test_facets"]
        for node in tree.body
    )
    return declared, kinds, bound


@pytest.mark.parametrize("module", sorted(KATAS))
def test_every_public_name_declares_its_facets(module):
    stub = public_names(ROOT / "katas" / f"{module}.py")
    declared, kinds, bound = declarations(ROOT / "katas" / f"{module}_test.py")
    assert not stub - declared, (
        f"{module}_test.py declares no facets for {sorted(stub - declared)}: add facets.of(...) "
        "(or facets.none(name, reason)) to its FACETS"
    )
    checked = {kind.__name__ for kind in facets.CHECKERS}
    assert kinds <= checked, f"facets without a generic check: {sorted(kinds - checked)}"
    assert bound, f"{module}_test.py must bind its checks: test_facets = FACETS.test"


def contract_text(module: str, name: str) -> str:
    """The stub's docstring of `name` (a class's with its methods'), and of each function of
    the stub that it names: a contract may send the reader to another function's rules. Read
    from the stub's source: with --solutions the module imported is the reference."""
    tree = ast.parse((ROOT / "katas" / f"{module}.py").read_text(encoding="utf-8"))
    defined = {
        node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))
    }
    node = defined[name]
    parts = [ast.get_docstring(node) or ""]
    if isinstance(node, ast.ClassDef):
        parts += [
            ast.get_docstring(method) or ""
            for method in node.body
            if isinstance(method, ast.FunctionDef)
        ]
    said = "\n".join(parts)
    named = [other for key, other in defined.items() if key != name and f"`{key}`" in said]
    return "\n".join([said, *(ast.get_docstring(other) or "" for other in named)])


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_setting_probed_with_nan_says_so_in_its_contract(module):
    # The Setting facet probes NaN unless told not to: an answer checking `value < 0` lets it
    # through. That is a rule only if the contract says so, or a correct answer is refused.
    tests = importlib.import_module(f"katas.{module}_test")
    unsaid = [
        f"{function.name}({facet.name}=nan)"
        for function in tests.FACETS.functions
        for facet in function.facets
        if isinstance(facet, facets.Setting) and facet.probes_nan
        if not re.search(r"\bnan\b", contract_text(module, function.target.__name__), re.IGNORECASE)
    ]
    assert not unsaid, (
        f"{unsaid} must raise by the tests, but the contract does not say NaN raises: say it "
        "there, or declare the Setting with nan=False"
    )


def stub_module(module: str):
    """The stub itself, loaded from its file (with --solutions `katas.<module>` is the
    reference)."""
    spec = importlib.util.spec_from_file_location(f"stub_{module}", ROOT / "katas" / f"{module}.py")
    assert spec and spec.loader
    stub = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(stub)
    return stub


# (module, function, parameter) -> why no Defaults facet names that default.
UNCOVERED_DEFAULTS: dict[tuple[str, str, str], str] = {}


@pytest.mark.parametrize("module", sorted(KATAS))
def test_defaults_are_the_ones_the_stub_documents(module):
    # A Defaults facet writes the documented values out; they must be the stub's own. Every
    # default of a function (or class: its constructor's) with facets is named in one, from any
    # of its entries (a method's entry covers its class), or left out for a stated reason; a
    # `device=None` may be DefaultDevice's instead, which checks it where None differs from a
    # device (under torch.device(...)).
    tests = importlib.import_module(f"katas.{module}_test")
    stub = stub_module(module)
    named: dict[str, set[str]] = {}
    defaults: dict[str, set[str]] = {}
    for function in tests.FACETS.functions:
        if not function.facets:
            continue
        target = function.target.__name__
        signature = inspect.signature(getattr(stub, target))
        documented = {
            name: parameter.default
            for name, parameter in signature.parameters.items()
            if parameter.default is not inspect.Parameter.empty
        }
        named.setdefault(target, set())
        if documented.get("device", 0) is None and any(
            isinstance(facet, facets.DefaultDevice) for facet in function.facets
        ):
            named[target].add("device")  # DefaultDevice checks device=None left out
        for facet in function.facets:
            if not isinstance(facet, facets.Defaults):
                continue
            assert facet.values.keys() <= documented.keys(), (
                f"{function.name}: Defaults names {sorted(facet.values)}, the stub's signature "
                f"has defaults for {sorted(documented)}"
            )
            for name, value in facet.values.items():
                assert value is documented[name] or value == documented[name], (
                    f"{function.name}: Defaults says {name}={value!r}, the stub "
                    f"{documented[name]!r}"
                )
            named[target] |= set(facet.values)
        defaults[target] = set(documented)
    for target, covered in named.items():
        allowed = {
            p for (where, name, p) in UNCOVERED_DEFAULTS if (where, name) == (module, target)
        }
        assert not allowed & covered, (
            f"{target}: {sorted(allowed & covered)} are covered: take them off UNCOVERED_DEFAULTS"
        )
        missing = defaults[target] - covered - allowed
        assert not missing, (
            f"{module}.{target} has defaults {sorted(missing)} that no Defaults facet names: "
            "declare facets.Defaults(values={...}) (make and key where the sample's arguments "
            "do not show the default)"
        )


# (module, name) -> why a contract whose errors name a shape declares no BadShapes facet.
SHAPES_WITHOUT_BAD_SHAPES = {
    ("q05_broadcasting", "broadcast_shape"): "shapes given as tuples: any pair is an input",
    ("q06_gradients", "grad_of"): "the shape of f's result, not of an argument",
    ("q06_gradients", "hessian_vector_product"): "as grad_of: the shape of f's result",
    ("q24_train_epoch", "train_epoch"): "an empty loader: a count of samples, not a shape",
    ("q27_state_dict", "load_checkpoint"): "a state dict's entries: the kata's own tests",
    ("q08_no_grad_detach", "ema_update_"): "modules' parameters: the kata's own tests",
    ("q10_containers", "ResidualStack"): "dim is a width setting (the Setting facet)",
    ("q11_layer_shapes", "conv2d_output_shape"): "a shape given as a tuple: the kata's tests",
    ("q21_dead_relus", "dead_and_saturated"): "an empty batch or unit: a size, not a shape",
    ("q21_dead_relus", "dead_relu_fraction"): "an empty batch: a size, not a shape",
}
# An item or paragraph of a contract that names an error and a shape or dimensions.
_ITEMS = re.compile(r"\n\s*(?:- |\d+\. )|\n\s*\n")
_ERROR = re.compile(r"\b[A-Z]\w*Error\b")
_SHAPED = re.compile(r"shape|\b\d-D\b|dimension|\bdims?\b")


def own_contract(module: str, name: str) -> str:
    """The stub's docstring of `name` (a class's with its methods'), without those it names."""
    tree = ast.parse((ROOT / "katas" / f"{module}.py").read_text(encoding="utf-8"))
    node = next(n for n in tree.body if getattr(n, "name", None) == name)
    methods = [m for m in getattr(node, "body", []) if isinstance(m, ast.FunctionDef)]
    return "\n".join(ast.get_docstring(n) or "" for n in [node, *methods])


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_contract_that_refuses_a_shape_declares_bad_shapes(module):
    # An error promised for a shape is checked for every shape that is not the contract's
    # (those that broadcast above all), by the one generic check: a kata's own list of bad
    # shapes looks at some.
    tests = importlib.import_module(f"katas.{module}_test")
    declared = {
        function.target.__name__
        for function in tests.FACETS.functions
        if any(isinstance(facet, facets.BadShapes) for facet in function.facets)
    }
    shaped = {
        name
        for name in public_names(ROOT / "katas" / f"{module}.py")
        if any(
            _ERROR.search(item) and _SHAPED.search(item)
            for item in _ITEMS.split(own_contract(module, name))
        )
    }
    excused = {name for (where, name) in SHAPES_WITHOUT_BAD_SHAPES if where == module}
    assert not excused & declared, f"{sorted(excused & declared)}: take them off the list"
    missing = shaped - declared - excused
    assert not missing, (
        f"{module}: the contracts of {sorted(missing)} promise an error for a shape: declare "
        "facets.BadShapes(make, names=...) for the arguments whose shape they fix"
    )


@pytest.mark.parametrize("module", sorted(KATAS))
def test_every_shapes_facet_runs_a_size_1_input(module):
    # A batch of one with one feature: where .squeeze() drops the batch dimension (and the
    # feature one), which no other named shape shows.
    tests = importlib.import_module(f"katas.{module}_test")
    missing = [
        function.name
        for function in tests.FACETS.functions
        for facet in function.facets
        if isinstance(facet, facets.Shapes) and "size 1" not in facet.shapes
    ]
    assert not missing, f'{missing}: add "size 1" to the shapes of their Shapes facet'


def test_uncovered_defaults_are_defaults_of_the_stubs():
    for module, name, parameter in UNCOVERED_DEFAULTS:
        signature = inspect.signature(getattr(stub_module(module), name))
        assert signature.parameters[parameter].default is not inspect.Parameter.empty


def test_every_facet_kind_has_a_checker():
    kinds = set(facets.Facet.__subclasses__())
    assert kinds == set(facets.CHECKERS), (
        f"without a checker: {sorted(k.__name__ for k in kinds - set(facets.CHECKERS))}"
    )


def test_a_function_without_facets_says_why():
    with pytest.raises(ValueError, match="why"):
        facets.declare(facets.of(len))


# ---------------------------------------------------------------- each checker can fail

CPU = torch.device("cpu")


def outcomes(target, facet):
    """(passed, failed) case ids of one facet (or a list of facets) of `target`."""
    declared = facets.declare(facets.of(target, *(facet if isinstance(facet, list) else [facet])))
    passed, failed = [], []
    for case in declared.cases():
        try:
            facets.run(case, CPU)
        except Exception:  # a failed check, or an error the wrong answer raised
            failed.append(case.id)
        else:
            passed.append(case.id)
    return passed, failed


def assert_catches(facet, right, wrong):
    """The check passes `right` in every case and fails `wrong` in at least one."""
    passed, failed = outcomes(right, facet)
    assert not failed, f"a correct answer fails {failed}"
    passed, failed = outcomes(wrong, facet)
    assert failed, f"a wrong answer passes every case: {passed}"


def test_dtypes_catches_a_dtype_changed_or_a_native_16_bit_sum():
    facet = facets.Dtypes(
        lambda dtype, device: facets.args(torch.linspace(1, 200, 1000, dtype=dtype)),
        oracle=lambda x: x.mean(),
    )

    def right(x):
        return x.float().mean().to(x.dtype)

    def float32(x):
        return x.float().mean()

    def native(x):
        return x.sum() / x.numel()

    assert_catches(facet, right, float32)
    assert_catches(facet, right, native)


def test_dtypes_catches_a_view_that_needs_a_contiguous_input():
    def rows(dtype, device):
        return facets.args(torch.arange(12.0).reshape(3, 4).to(dtype), [torch.ones(2, 2)])

    def right(x, extra):
        return x.reshape(-1).sum() + extra[0].reshape(-1).sum()

    facet = facets.Dtypes(rows, oracle=right, dtypes=(torch.float32, torch.float64))
    assert_catches(facet, right, lambda x, extra: x.view(-1).sum() + extra[0].reshape(-1).sum())
    # A tensor in a list is strided too.
    assert_catches(facet, right, lambda x, extra: x.reshape(-1).sum() + extra[0].view(-1).sum())
    # strided=False: the contiguous inputs alone.
    unstrided = facets.Dtypes(rows, oracle=right, dtypes=(torch.float32,), strided=False)
    assert not outcomes(lambda x, extra: x.view(-1).sum() + extra[0].sum(), unstrided)[1]


def test_gradients_catches_nan_from_an_intermediate_overflow():
    facet = facets.Gradients(
        lambda dtype, device: facets.args(torch.tensor([-100.0, 0.0, 100.0], dtype=dtype)),
        oracle=torch.nn.functional.softplus,
    )

    def stable(x):
        return torch.where(x > 10, x, torch.log1p(torch.exp(x.clamp(max=10))))

    def naive(x):
        return torch.log(1 + torch.exp(x))  # exp(100) is inf in float32: the gradient is NaN

    assert_catches(facet, stable, naive)


def test_every_checker_has_a_test_that_it_can_fail():
    source = Path(__file__).read_text(encoding="utf-8")
    untested = [
        kind.__name__ for kind in facets.CHECKERS if f"facets.{kind.__name__}(" not in source
    ]
    assert not untested, f"no test here feeds these checkers a wrong answer: {untested}"


def test_shapes_catches_a_shape_not_handled():
    facet = facets.Shapes(lambda shape, device: facets.args(torch.ones(shape)), oracle=torch.neg)
    assert_catches(facet, torch.neg, lambda x: -x.view(-1))
    assert_catches(facet, torch.neg, lambda x: -x.reshape(*x.shape[:1], -1) if x.dim() else -x)


def test_shapes_catches_a_view_that_merges_the_dimensions_of_a_strided_input():
    # [..., F] inputs: a view(-1, F) works on every contiguous input and on a strided 2-D one.
    facet = facets.Shapes(
        lambda shape, device: facets.args(torch.arange(float(math.prod(shape))).reshape(shape)),
        oracle=lambda x: x.reshape(-1, x.shape[-1]).sum(0),
        shapes=("2-D", "non-contiguous", "non-contiguous 3-D"),
    )
    assert_catches(
        facet, lambda x: x.reshape(-1, x.shape[-1]).sum(0), lambda x: x.view(-1, x.shape[-1]).sum(0)
    )
    strided = facets._strided(torch.ones(2, 4, 3))
    assert all(stride > 1 for stride in strided.stride()), "every stride skips elements"


def test_bad_shapes_catches_a_shape_compared_in_part_by_size_or_by_length():
    def make(device):
        return facets.args(torch.arange(6.0).reshape(2, 3), torch.ones(2, 3))

    def checked(compare):
        def loss(x, target):
            if compare(x, target):
                raise ValueError("the shapes differ")
            return (x - target).abs()

        return loss

    right = checked(lambda x, target: x.shape != target.shape)
    facet = facets.BadShapes(make, names=(1,))
    for wrong in (
        lambda x, target: x.numel() != target.numel(),  # (3, 2) passes
        lambda x, target: x.dim() != target.dim() or len(x) != len(target),  # (2, 1) passes
        lambda x, target: x.shape[-1] != target.shape[-1],  # (1, 3) and (3,) pass
        lambda x, target: len(x) != len(target) or x.dim() != target.dim(),  # a 0-dim: TypeError
    ):
        assert_catches(facet, right, checked(wrong))
    # dims: the last alone; dims=(): the number of dimensions alone.
    last = facets.BadShapes(make, names=(0,), dims=(-1,))
    assert_catches(last, right, checked(lambda x, target: len(x) != len(target)))
    rank = facets.BadShapes(make, names=(0,), dims=())
    assert_catches(rank, checked(lambda x, t: x.dim() != 2), checked(lambda x, t: x.dim() > 2))

    # A refused call changes nothing first.
    def clamps_first(x, target):
        x.clamp_(max=4.0)
        return right(x, target)

    assert_catches(facets.BadShapes(make, names=(0,)), right, clamps_first)


def test_defaults_catches_a_default_changed_or_read_another_way():
    def scale(x, factor=2.0):
        return x * factor

    def changed(x, factor=3.0):
        return x * factor

    def none_means_two(x, factor=None):  # another signature, the documented behaviour
        return x * (2.0 if factor is None else factor)

    def none_means_one(x, factor=None):
        return x * (1.0 if factor is None else factor)

    facet = facets.Defaults(lambda device: facets.args(torch.randn(3)), values={"factor": 2.0})
    assert_catches(facet, scale, changed)
    assert_catches(facet, none_means_two, none_means_one)
    # What is compared can be picked from the arguments and the result (a loader's settings).
    keyed = facets.Defaults(
        lambda device: facets.args(torch.randn(3)),
        values={"factor": 2.0},
        key=lambda arguments, result: result.sum().item(),
    )
    assert_catches(keyed, scale, changed)


def test_defaults_without_make_leave_the_parameter_out_of_the_first_facets_arguments():
    def scale(x, factor=2.0, /, shift=0.0, *, power=1):
        return (x * factor + shift) ** power

    def changed(x, factor=2.0, /, shift=0.5, *, power=1):
        return (x * factor + shift) ** power

    def power_changed(x, factor=2.0, /, shift=0.0, *, power=2):
        return (x * factor + shift) ** power

    # The sample gives every parameter, positionally where it can: taking `shift` out passes
    # what follows it by keyword.
    sample = facets.Number(lambda device: facets.args(3.0, 2.0, 0.0, power=1), float)
    assert_catches([sample, facets.Defaults(values={"shift": 0.0})], scale, changed)
    assert_catches([sample, facets.Defaults(values={"power": 1})], scale, power_changed)

    # A parameter given by keyword after one the sample leaves out stays a keyword.
    def affine(x, factor=2.0, shift=0.0):
        return x * factor + shift

    def affine_changed(x, factor=3.0, shift=0.0):
        return x * factor + shift

    keyed = facets.Number(lambda device: facets.args(3.0, shift=0.5), float)
    assert_catches([keyed, facets.Defaults(values={"factor": 2.0})], affine, affine_changed)
    # A positional-only parameter cannot be written out by keyword: the facet needs a make.
    declared = facets.declare(facets.of(scale, sample, facets.Defaults(values={"factor": 2.0})))
    case = next(case for case in declared.cases() if isinstance(case.facet, facets.Defaults))
    with pytest.raises(TypeError, match="factor is positional-only"):
        facets.run(case, CPU)


def test_emptied_keeps_a_namedtuple():
    Batch = collections.namedtuple("Batch", "inputs targets")
    emptied = facets._emptied(Batch(torch.ones(3, 2), torch.ones(3)))
    assert (
        type(emptied) is Batch and emptied.inputs.shape == (0, 2) and emptied.targets.numel() == 0
    )


def test_number_catches_a_tensor_or_an_int():
    facet = facets.Number(lambda device: facets.args(3), float)
    assert_catches(facet, lambda n: n / 2, lambda n: n // 2)
    assert_catches(facet, lambda n: n / 2, lambda n: torch.tensor(n / 2))


def test_setting_catches_nan_let_through_and_a_bound_off_by_one():
    facet = facets.Setting(lambda device: facets.args(rate=0.5), "rate", low=0, high=1)

    def right(rate):
        if not 0 <= rate <= 1:
            raise ValueError(rate)

    def lets_nan_through(rate):
        if rate < 0 or rate > 1:
            raise ValueError(rate)

    def excludes_the_bound(rate):
        if not 0 < rate <= 1:
            raise ValueError(rate)

    assert_catches(facet, right, lets_nan_through)
    assert_catches(facet, right, excludes_the_bound)
    steps = facets.Setting(lambda device: facets.args(n=2), "n", low=1, integer=True)

    def positive(n):
        if n < 1:
            raise ValueError(n)

    def above_zero(n):  # lets 0.5 through
        if n <= 0:
            raise ValueError(n)

    assert_catches(steps, positive, lambda n: None)
    assert_catches(steps, positive, above_zero)
    assert math.isnan(facet.probes()["nan"][0])
    assert "nan" not in steps.probes(), "an integer setting is probed with NaN where declared"
    counted = facets.Setting(lambda device: facets.args(n=2), "n", low=1, integer=True, nan=True)

    def counts(n):
        if not n >= 1:
            raise ValueError(n)

    assert_catches(counted, counts, positive)


def test_setting_probes_a_finite_count_with_inf():
    finite = facets.Setting(
        lambda device: facets.args(n=2), "n", low=1, high_open=True, integer=True, nan=True
    )

    def right(n):
        if not 1 <= n < math.inf:
            raise ValueError(n)

    def lets_inf_through(n):
        if not n >= 1:
            raise ValueError(n)

    assert_catches(finite, right, lets_inf_through)
    counted = facets.Setting(lambda device: facets.args(n=2), "n", low=1, integer=True)
    assert "inf" not in counted.probes(), "inf is a valid count unless declared finite"


def test_setting_catches_a_refused_value_that_changed_something_first():
    def make(device):
        optimizer = torch.optim.SGD([torch.zeros(2, requires_grad=True)], lr=1.0)
        return facets.args(optimizer, torch.ones(3), rate=0.5)

    facet = facets.Setting(make, "rate", low=0, high=1)

    def right(optimizer, x, rate):
        if not 0 <= rate <= 1:
            raise ValueError(rate)
        optimizer.param_groups[0]["lr"] = rate

    def group_first(optimizer, x, rate):
        optimizer.param_groups[0]["initial_lr"] = optimizer.param_groups[0]["lr"]
        right(optimizer, x, rate)

    def tensor_first(optimizer, x, rate):
        x.data.mul_(2)  # a write through .data: no version bump, the values tell
        right(optimizer, x, rate)

    def groups_put_back(optimizer, x, rate):  # a scheduler built first wraps optimizer.step
        saved = [dict(group) for group in optimizer.param_groups]
        torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0)
        for group, old in zip(optimizer.param_groups, saved, strict=True):
            group.clear()
            group.update(old)
        right(optimizer, x, rate)

    assert_catches(facet, right, group_first)
    assert_catches(facet, right, tensor_first)
    assert_catches(facet, right, groups_put_back)


def test_setting_probes_each_element_of_a_tuple():
    facet = facets.Setting(
        lambda device: facets.args(betas=(0.9, 0.99)), "betas", low=0, high=1, index=1
    )

    def right(betas):
        if not all(0 <= beta <= 1 for beta in betas):
            raise ValueError(betas)

    def first_only(betas):
        if not 0 <= betas[0] <= 1:
            raise ValueError(betas)

    assert_catches(facet, right, first_only)
    assert all(
        case.label.startswith("betas[1] ")
        for case in facets.declare(facets.of(right, facet)).cases()
        if isinstance(case.facet, facets.Setting)
    )


def test_setting_catches_a_check_skipped_by_a_shortcut_at_another_settings_bound():
    def make(device):
        return facets.args(n=10, size=4)

    declared = (
        facets.Setting(make, "n", low=0, integer=True),
        facets.Setting(make, "size", low=1, integer=True),
    )

    def right(n, size):
        if n < 0 or size < 1:
            raise ValueError(n, size)
        return -(-n // size)

    def empty_first(n, size):  # size=0 passes when there is nothing to count
        if n == 0:
            return 0
        return right(n, size)

    for wrong, expected in ((right, False), (empty_first, True)):
        failed = []
        for case in facets.declare(facets.of(wrong, *declared, name="count")).cases():
            try:
                facets.run(case, CPU)
            except AssertionError:
                failed.append(case.id)
        assert bool(failed) == expected, failed


def test_setting_catches_a_check_skipped_by_a_shortcut_for_an_empty_input():
    def make(device):
        return facets.args(torch.arange(10), width=3)

    declared = (
        facets.Setting(make, "width", low=1, integer=True),
        facets.Shapes(
            lambda shape, device: facets.args(torch.zeros(shape), 3), oracle=lambda x, w: -x
        ),
    )

    def right(x, width):
        if width < 1:
            raise ValueError(width)
        return -x

    def empty_first(x, width):  # width=0 passes when there is nothing to divide
        if x.numel() == 0:
            return -x
        return right(x, width)

    for answer, expected in ((right, False), (empty_first, True)):
        failed = []
        for case in facets.declare(facets.of(answer, *declared, name="bucket")).cases():
            try:
                facets.run(case, CPU)
            except AssertionError:
                failed.append(case.id)
        assert bool(failed) == expected, failed


def test_grad_mode_kept_catches_grad_turned_on_under_the_callers_no_grad():
    def make(device):
        return facets.args(torch.arange(3.0))

    def right(x):
        with torch.enable_grad():
            t = x.detach().requires_grad_()
            (grad,) = torch.autograd.grad((t**2).sum(), t)
        return grad

    def left_on(x):
        torch.set_grad_enabled(True)
        return right(x)

    def left_on_when_raising(x):
        torch.set_grad_enabled(True)
        raise ValueError("no")

    assert_catches(facets.GradModeKept(make), right, left_on)
    assert_catches(facets.GradModeKept(make), right, left_on_when_raising)
    # Added for every function with facets, called with its first facet's arguments.
    cases = facets.declare(facets.of(left_on, facets.Unmodified(make))).cases()
    assert [type(case.facet) for case in cases] == [facets.Unmodified, facets.GradModeKept]
    with pytest.raises(AssertionError, match="grad"):
        facets.run(cases[1], CPU)


def test_default_device_catches_none_read_as_the_cpu():
    facet = facets.DefaultDevice(lambda device: facets.args(3))

    def right(n, device=None):
        return torch.zeros(n, device=device)

    def cpu(n, device=None):
        return torch.zeros(n, device=device or "cpu")

    assert_catches(facet, right, cpu)
    on_cpu = facets.DefaultDevice(lambda device: facets.args(3), where="cpu")
    assert_catches(on_cpu, cpu, right)


def test_unmodified_catches_a_change_in_place():
    facet = facets.Unmodified(lambda device: facets.args(torch.arange(4.0), nn.Linear(2, 2)))

    def scaled(x, model):
        with torch.no_grad():
            model.weight.mul_(1)
        return x * 2

    def in_place(x, model):
        return x.mul_(2)

    def touches_the_model(x, model):
        with torch.no_grad():
            model.bias.zero_()
        return x * 2

    assert_catches(facet, scaled, in_place)
    assert_catches(facet, scaled, touches_the_model)

    def clamps_through_data(x, model):  # .data bumps no version: the values tell
        x.data.clamp_(max=2.0)
        return x * 2

    assert_catches(facet, scaled, clamps_through_data)

    def tags_a_parameter(x, model):
        model.weight.no_decay = True
        return x * 2

    def tags_the_input(x, model):
        x.seen = True
        return x * 2

    assert_catches(facet, scaled, tags_a_parameter)
    assert_catches(facet, scaled, tags_the_input)

    def buffer_model(device):
        return facets.args(nn.Sequential(nn.BatchNorm1d(2)), torch.randn(4, 2))

    def put_back(model, x):
        saved = [(b, b.clone()) for b in model.buffers()]
        model(x)
        with torch.no_grad():
            for buffer, value in saved:
                buffer.copy_(value)

    def put_back_as_new_tensors(model, x):  # the caller's old tensors keep the update
        saved = {name: b.clone() for name, b in model[0].named_buffers()}
        model(x)
        for name, value in saved.items():
            model[0]._buffers[name] = value

    assert_catches(facets.Unmodified(buffer_model), put_back, put_back_as_new_tensors)

    class Counts(nn.Module):  # a buffer outside the state_dict, updated by every forward
        def __init__(self):
            super().__init__()
            self.register_buffer("calls", torch.zeros(()), persistent=False)

        def forward(self, x):
            self.calls += 1
            return x

    def counting_model(device):
        return facets.args(nn.Sequential(Counts()), torch.randn(4, 2))

    def put_back_the_state_dict(model, x):  # misses the non-persistent buffer
        saved = {key: value.clone() for key, value in model.state_dict().items()}
        model(x)
        model.load_state_dict(saved)

    assert_catches(facets.Unmodified(counting_model), put_back, put_back_the_state_dict)

    def state(device):  # a state_dict carries its version records as an attribute
        return facets.args(nn.Linear(2, 2).state_dict())

    def keys(state_dict):
        return list(state_dict)

    def renames_the_metadata(state_dict):
        state_dict._metadata = {"x" + key: value for key, value in state_dict._metadata.items()}
        return list(state_dict)

    def adds_a_key(state_dict):
        state_dict["extra"] = torch.zeros(1)
        return list(state_dict)

    assert_catches(facets.Unmodified(state), keys, renames_the_metadata)
    assert_catches(facets.Unmodified(state), keys, adds_a_key)


def test_unmodified_holds_every_facet_to_it_also_when_the_call_raises():
    def make(device):
        return facets.args(torch.arange(4.0), width=2)

    declared = (
        facets.Unmodified(make),
        facets.Setting(make, "width", low=1, integer=True),
    )

    def right(x, width):
        if width < 1:
            raise ValueError(width)
        return x * width

    def flag_left_on(x, width):  # switched back on the success path only
        x.requires_grad_()
        if width < 1:
            raise ValueError(width)
        x.requires_grad_(False)
        return x.detach() * width

    for answer, expected in ((right, False), (flag_left_on, True)):
        failed = []
        for case in facets.declare(facets.of(answer, *declared, name="scale")).cases():
            try:
                facets.run(case, CPU)
            except AssertionError as error:
                failed.append(str(error))
        assert bool(failed) == expected, failed
        assert all("when it raised" in message for message in failed)


def test_unmodified_catches_hooks_and_modes_left_changed_on_a_module():
    def graded(device):
        model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
        model(torch.randn(3, 2)).sum().backward()
        return facets.args(model)

    def measures(model):  # hooks removed, mode put back, grads read
        outputs = []
        handle = model[1].register_forward_hook(lambda m, i, o: outputs.append(o))
        training = model.training
        try:
            model.eval()
            with torch.no_grad():
                model(torch.ones(1, 2))
        finally:
            handle.remove()
            model.train(training)
        return [p.grad.norm() for p in model.parameters()]

    def leaks_a_hook(model):
        model[1].register_forward_hook(lambda m, i, o: None)

    def leaves_eval_mode(model):
        model.eval()

    facet = facets.Unmodified(graded)

    def frees_the_callers_hook(model):
        model[0]._forward_hooks.clear()

    def callers_hook(device):
        arguments = graded(device)
        arguments.args[0][0].register_forward_hook(lambda m, i, o: None)
        return arguments

    assert_catches(facets.Unmodified(callers_hook), measures, frees_the_callers_hook)
    for wrong in (leaks_a_hook, leaves_eval_mode):
        assert_catches(facet, measures, wrong)
    # Every facet of a function that leaves all its arguments as they were watches them.
    number = facets.Number(lambda device: graded(device), type(None))
    declared = facets.declare(facets.of(leaks_a_hook, number, facet))
    failed = []
    for case in declared.cases():
        try:
            facets.run(case, CPU)
        except AssertionError:
            failed.append(case.id)
    assert "leaks_a_hook-number" in failed, failed


def test_unmodified_catches_a_modules_setting_left_changed():
    def seq_first(device):
        return facets.args(nn.LSTM(2, 3), torch.randn(4, 1, 2))

    def runs_as_is(lstm, x):
        return lstm(x)[0]

    def switches_to_batch_first(lstm, x):  # the caller's LSTM now reads [B, T, features]
        lstm.batch_first = True
        return lstm(x.transpose(0, 1))[0].transpose(0, 1)

    def switches_and_restores(lstm, x):
        lstm.batch_first = True
        try:
            return lstm(x.transpose(0, 1))[0].transpose(0, 1)
        finally:
            lstm.batch_first = False

    facet = facets.Unmodified(seq_first)
    assert_catches(facet, runs_as_is, switches_to_batch_first)
    assert_catches(facet, switches_and_restores, switches_to_batch_first)


def test_unmodified_checks_every_dtype_it_names():
    # .to(float64) returns the caller's own float64 tensor: a shift in place then changes it,
    # while float32 input is copied first and left alone.
    facet = facets.Unmodified(
        lambda dtype, device: facets.args(torch.arange(4.0, dtype=dtype)),
        dtypes=(torch.float32, torch.float64),
    )

    def right(x):
        return x.to(torch.float64) - 1

    def shifts_float64_in_place(x):
        return x.to(torch.float64).sub_(1)

    assert_catches(facet, right, shifts_float64_in_place)


def test_unmodified_catches_a_change_to_the_grad_of_an_input():
    facet = facets.Unmodified(
        lambda device: facets.args(torch.arange(4.0, requires_grad=True), nn.Linear(4, 1))
    )

    def right(x, model):  # the module's own .grad is its to fill
        model(x.detach()).sum().backward()
        return torch.autograd.grad((x * 2).sum(), x)[0]

    def fills(x, model):
        (x * 2).sum().backward()

    def clears(x, model):
        x.grad = None

    def zeroes(x, model):
        if x.grad is not None:
            x.grad.zero_()

    for wrong in (fills, clears, zeroes):
        assert_catches(facet, right, wrong)


def test_no_graph_catches_a_state_update_that_records_one():
    def make(device):
        return facets.args(torch.zeros(3), torch.ones(3, requires_grad=True) * 2)

    facet = facets.NoGraph(make, state=lambda arguments, result: arguments.args[0])

    def right(average, value):
        with torch.no_grad():
            average.mul_(0.5).add_(value, alpha=0.5)

    def records(average, value):
        average.mul_(0.5).add_(value, alpha=0.5)

    assert_catches(facet, right, records)


def test_trains_catches_a_returned_module_that_cannot_train():
    facet = facets.Trains(
        lambda device: facets.args(2),
        forward=lambda module, device: module(torch.ones(1, 2)),
    )

    def right(width):
        return nn.Sequential(nn.Linear(width, width), nn.Linear(width, 1))

    class Detached(nn.Sequential):
        def forward(self, x):
            return self[1](self[0](x).detach())

    def detached(width):
        return Detached(nn.Linear(width, width), nn.Linear(width, 1))

    assert_catches(facet, right, detached)


def test_updates_all_catches_a_parameter_skipped():
    facet = facets.UpdatesAll(
        lambda device: facets.args(nn.Linear(2, 2)),
        params=lambda arguments: list(arguments.args[0].parameters()),
    )

    def right(model):
        with torch.no_grad():
            for parameter in model.parameters():
                parameter.add_(1)

    def weights_only(model):
        with torch.no_grad():
            model.weight.add_(1)

    assert_catches(facet, right, weights_only)

    def rebinds(model):  # same values, in new memory: a view of the old one misses them
        with torch.no_grad():
            for parameter in model.parameters():
                parameter.data = parameter + 1

    assert_catches(facet, right, rebinds)


def test_returns_catches_an_alias_or_a_copy():
    new = facets.Returns(lambda device: facets.args(torch.arange(4.0)))
    assert_catches(new, lambda x: x * 1, lambda x: x.view(2, 2))
    assert_catches(new, lambda x: x.clone(), lambda x: x)
    zeros = facets.Returns(lambda device: facets.args(torch.ones(2)))
    assert_catches(zeros, lambda x: x.new_zeros(3), lambda x: x.new_zeros(()).expand(3))
    same = facets.Returns(lambda device: facets.args(torch.arange(4.0)), kind="same")
    assert_catches(same, lambda x: x.mul_(2), lambda x: x * 2)
    cache: dict[int, torch.Tensor] = {}

    def cached(x):  # one tensor handed to every caller
        return cache.setdefault(x.numel(), x.new_zeros(3))

    assert_catches(zeros, lambda x: x.new_zeros(3), cached)


def test_modes_that_set_training_catch_a_root_only_check():
    def make(device):
        return facets.args(nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Dropout(0.5))))

    facet = facets.Modes(make, module=lambda arguments: arguments.args[0], sets=True)

    def right(model):
        model.train()

    def only_if_the_root_is_in_eval(model):  # a root in train keeps its submodules in eval
        if not model.training:
            model.train()

    def root_only(model):
        model.training = True

    assert_catches(facet, right, only_if_the_root_is_in_eval)
    assert_catches(facet, right, root_only)
    assert_catches(facet, right, lambda model: None)


def test_modes_catches_a_mode_left_changed_or_a_second_call_that_differs():
    def make(device):
        return facets.args(nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5)))

    facet = facets.Modes(make, module=lambda arguments: arguments.args[0])

    def right(model):
        modes = [(module, module.training) for module in model.modules()]
        model.eval()
        try:
            with torch.no_grad():
                return model(torch.ones(1, 2))
        finally:
            for module, training in modes:
                module.training = training

    def flattens_the_modes(model):  # a frozen submodule in eval comes back in train
        was = model.training
        model.eval()
        with torch.no_grad():
            out = model(torch.ones(1, 2))
        model.train(was)
        return out

    def leaves_eval(model):
        model.eval()
        with torch.no_grad():
            return model(torch.ones(1, 2))

    def ends_in_train(model):
        model.eval()
        with torch.no_grad():
            out = model(torch.ones(1, 2))
        model.train()
        return out

    def eval_on_what_arrived_in_eval(model):  # .eval() switches a training child too
        was, frozen = model.training, [m for m in model.modules() if not m.training]
        model.eval()
        with torch.no_grad():
            out = model(torch.ones(1, 2))
        model.train(was)
        for module in frozen:
            module.eval()
        return out

    calls = []

    def counts_calls(model):
        calls.append(1)
        return torch.tensor(len(calls))

    assert_catches(facet, right, leaves_eval)
    assert_catches(facet, right, ends_in_train)
    assert_catches(facet, right, counts_calls)
    assert_catches(facet, right, flattens_the_modes)
    assert_catches(facet, right, eval_on_what_arrived_in_eval)

    def restores_on_success_only(model):
        modes = [(module, module.training) for module in model.modules()]
        model.eval()
        out = model(torch.ones(1, 2))
        for module, training in modes:
            module.training = training
        return out.detach()

    def no_grad_on_success_only(model):
        torch.set_grad_enabled(False)
        out = right(model)
        torch.set_grad_enabled(True)
        return out

    assert_catches(facet, right, restores_on_success_only)
    assert_catches(facet, right, no_grad_on_success_only)


def test_classes_catches_names_matched_loosely_and_subclasses_missed():
    facet = facets.Classes(
        lambda cls, device: facets.args(cls(2, 2) if cls is not nn.Bilinear else cls(2, 2, 2)),
        treated=lambda arguments, result: result,
        covered=(nn.Linear,),
        others=(nn.Bilinear,),
    )

    def right(module):
        return isinstance(module, nn.Linear)

    def exact_type(module):
        return type(module) is nn.Linear

    def by_name(module):
        return "linear" in type(module).__name__.lower()

    assert_catches(facet, right, exact_type)
    assert_catches(facet, right, by_name)


def test_classes_own_catches_the_children_of_a_covered_subclass_visited():
    def fill(cls, device):
        layer = cls(2, 2)
        with torch.no_grad():
            for parameter in layer.parameters():
                parameter.fill_(2.5)
        return facets.args(layer)

    facet = facets.Classes(
        fill,
        treated=lambda arguments, result: not bool((arguments.args[0].bias == 2.5).all()),
        covered=(nn.Linear,),
        own=True,
    )

    def right(module):
        if isinstance(module, nn.Linear):
            with torch.no_grad():
                for parameter in module.parameters(recurse=False):
                    parameter.zero_()

    def recursive(module):
        if isinstance(module, nn.Linear):
            with torch.no_grad():
                for parameter in module.parameters():
                    parameter.zero_()

    assert_catches(facet, right, recursive)


def test_seeded_catches_a_generator_of_its_own():
    facet = facets.Seeded(lambda device: facets.args(3))

    def right(n):
        return torch.rand(n)

    def own_generator(n):
        return torch.rand(n, generator=torch.Generator().manual_seed(0))

    state = torch.get_rng_state()
    assert_catches(facet, right, own_generator)
    assert torch.equal(torch.get_rng_state(), state), "the check leaves the caller's stream"


def test_seeded_catches_draws_from_a_forked_stream():
    facet = facets.Seeded(lambda device: facets.args(3))

    def right(n):
        return torch.rand(n)

    def forked(n):
        with torch.random.fork_rng():
            return torch.rand(n)

    assert_catches(facet, right, forked)


def test_seeded_like_catches_a_redraw_and_a_fixed_seed_inside_a_fork():
    facet = facets.Seeded(
        lambda device: facets.args(3),
        drawn=lambda arguments, model: list(model.parameters()),
        like=lambda: [nn.Linear(3, 3), nn.Linear(3, 3)],
    )

    def right(n):
        return nn.Sequential(nn.Linear(n, n), nn.Linear(n, n))

    def zero_bias(n):
        model = right(n)
        nn.init.zeros_(model[1].bias)
        return model

    def forked(n):
        with torch.random.fork_rng():
            torch.manual_seed(0)
            return right(n)

    assert_catches(facet, right, zero_bias)
    assert_catches(facet, right, forked)


def test_trains_in_eval_mode_catches_a_graph_cut_when_evaluating():
    facet = facets.Trains(
        lambda device: facets.args(2),
        forward=lambda module, device: module(torch.ones(1, 2)),
    )

    class Frozen(nn.Sequential):
        def forward(self, x):
            x = self[0](x)
            return self[1](x if self.training else x.detach())

    def right(width):
        return nn.Sequential(nn.Linear(width, width), nn.Linear(width, 1))

    assert_catches(facet, right, lambda width: Frozen(nn.Linear(width, width), nn.Linear(width, 1)))


def test_trains_catches_a_forward_that_turns_grad_on_under_the_callers_no_grad():
    facet = facets.Trains(
        lambda device: facets.args(2),
        forward=lambda module, device: module(torch.ones(1, 2)),
    )

    class GradOn(nn.Sequential):
        def forward(self, x):
            with torch.enable_grad():
                return super().forward(x)

    class FirstGradOn(nn.Sequential):  # the output records nothing; the first layer does
        def forward(self, x):
            with torch.enable_grad():
                x = self[0](x)
            return self[1](x)

    def right(width):
        return nn.Sequential(nn.Linear(width, width), nn.Linear(width, 1))

    for wrong in (GradOn, FirstGradOn):
        layers = (nn.Linear(2, 2), nn.Linear(2, 1))
        assert_catches(facet, right, lambda width, wrong=wrong, layers=layers: wrong(*layers))


def reference(tmp_path, source):
    """`half` from a file in a solutions/ folder: a reference answer to the checks."""
    folder = tmp_path / "solutions"
    folder.mkdir(exist_ok=True)
    path = folder / f"half_{len(list(folder.iterdir()))}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.half


def test_a_known_defect_of_the_reference_must_fail_and_is_checked_as_usual_elsewhere(tmp_path):
    facet = facets.Number(
        lambda device: facets.args(3), float, defects={"": "the reference floors"}
    )
    defective = reference(tmp_path, "def half(x):\n    return x // 2\n")
    case = facets.declare(facets.of(defective, facet)).cases()[0]
    with pytest.raises(pytest.xfail.Exception):
        facets.run(case, CPU)  # the reference still has its defect: an expected failure
    case = facets.declare(facets.of(lambda x: x // 2, facet)).cases()[0]
    with pytest.raises(AssertionError):
        facets.run(case, CPU)  # another answer is checked as usual
    fixed = reference(tmp_path, "def half(x):\n    return x / 2\n")
    case = facets.declare(facets.of(fixed, facet)).cases()[0]
    with pytest.raises(pytest.fail.Exception, match="remove the entry"):
        facets.run(case, CPU)


def test_unmodified_catches_requires_grad_or_a_grad_given_to_an_input():
    facet = facets.Unmodified(lambda device: facets.args(torch.arange(4.0)))

    def right(x):
        x = x.detach().requires_grad_()  # its own copy
        (x * 2).sum().backward()
        return x.grad

    def marks(x):
        return x.requires_grad_()

    def grads_and_unmarks(x):  # requires_grad put back, the .grad left behind
        x.requires_grad_()
        (x * 2).sum().backward()
        x.requires_grad_(False)
        return x.grad

    for wrong in (marks, grads_and_unmarks):
        assert_catches(facet, right, wrong)
