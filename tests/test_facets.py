"""The facet declarations and their generic checks (torch_katas/facets.py): every public name of
every stub declares its facets, every declared facet has a check, and each check fails on an
answer that breaks its facet."""

import ast
import collections
import collections.abc
import copy
import dataclasses
import functools
import importlib
import importlib.util
import inspect
import math
import re
import sys
import types
import typing
import weakref
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from torch_katas import catalog, facets
from torch_katas.runtime import isolation

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


# What a contract says -> the facet kinds, one of which checks it for every function saying so.
SAID_BY_CONTRACTS = {
    # The result is differentiable: its gradients, or a module's training, are checked.
    r"gradients?\s+flows?\s+to|differentiable\s+(?:with\s+respect\s+to|by\s+autograd)"
    r"|gradients\s+reach": ("Gradients", "Trains"),
    # The result is detached (or requires no grad): NoGraph, or Gradients (which holds a
    # result of no grad-requiring input to requiring none), or Trains (grad mode's forward).
    r"\bdetached\b(?!\s+copy)|no\s+grad_fn|(?:does|do)\s+not\s+require\s+grad"
    r"|requires_grad\s+(?:is\s+)?False": ("NoGraph", "Gradients", "Trains"),
    # Gradients held before the call play no part in its steps.
    r"(?:gradients|\.grad)\b[^.]*?(?:before (?:the|this) call|the caller left)": ("FreshGrads",),
    # Parameters the caller froze stay frozen through its steps.
    r"\bfroze\b[^.]*?\bstay\s+frozen": ("FreshGrads",),
}


@pytest.mark.parametrize("module", sorted(KATAS))
def test_what_a_contract_says_of_gradients_is_checked_by_a_facet(module):
    tests = importlib.import_module(f"katas.{module}_test")
    kinds: dict[str, set[str]] = collections.defaultdict(set)
    for function in tests.FACETS.functions:
        kinds[function.target.__name__] |= {type(facet).__name__ for facet in function.facets}
    unchecked = [
        f"{name} ({' or '.join(wanted)}: {found.group(0)!r})"
        for name in sorted(public_names(ROOT / "katas" / f"{module}.py"))
        for said, wanted in SAID_BY_CONTRACTS.items()
        if (found := re.search(said, contract_text(module, name), re.IGNORECASE | re.DOTALL))
        and not kinds[name] & set(wanted)
    ]
    assert not unchecked, f"contracts that no facet checks: declare {unchecked}"


def said_but_not_declared(module: str, said: re.Pattern, kind: type) -> list[str]:
    """The stub's public names whose contract says what `said` matches and that declare no
    facet of `kind`."""
    tests = importlib.import_module(f"katas.{module}_test")
    declared = {
        function.target.__name__
        for function in tests.FACETS.functions
        if any(isinstance(facet, kind) for facet in function.facets)
    }
    saying = {
        name
        for name in public_names(ROOT / "katas" / f"{module}.py")
        if said.search(" ".join(contract_text(module, name).split()))
    }
    return sorted(saying - declared)


# A contract that keeps torch's global generator out of the function's draws.
OWN_GENERATOR = re.compile(
    r"(not use|not used).{0,60}global random state|global random state.{0,80}(not used|as it was)",
    re.DOTALL,
)


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_contract_that_leaves_the_global_generator_alone_declares_own_generator(module):
    # The OwnGenerator facet watches the whole call (and what it returns, iterated): a reseed
    # inside torch.random.fork_rng, put back before it returns, uses the global state too.
    undeclared = said_but_not_declared(module, OWN_GENERATOR, facets.OwnGenerator)
    assert not undeclared, (
        f"{undeclared}: the contract leaves the global random state alone; declare "
        "facets.OwnGenerator for it"
    )


# A contract whose draws come from torch's generator as the caller seeded it.
SEEDED = re.compile(
    r"torch's (?:global |default )?generator|the caller's generator"
    r"|the caller's `?torch\.manual_seed|same torch\.manual_seed|as the caller seeded it",
    re.IGNORECASE,
)


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_contract_that_draws_from_the_callers_generator_declares_seeded(module):
    # A torch.Generator of the function's own, seeded with a constant, draws values of the
    # right distribution that no test of the distribution tells apart: the Seeded facet
    # (another seed, another result) does.
    undeclared = said_but_not_declared(module, SEEDED, facets.Seeded)
    assert not undeclared, (
        f"{undeclared}: the contract draws from the caller's generator; declare "
        "facets.Seeded for it"
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
UNCOVERED_DEFAULTS: dict[tuple[str, str, str], str] = {
    ("q38_compile_graph_breaks", "median_time", "clock"): (
        "the real clock reads another time on every run: its own tests check time.perf_counter"
    ),
    ("q38_compile_graph_breaks", "median_time", "synchronize"): (
        "None means the accelerator's own: its own tests check it with one and without"
    ),
}


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


# Edge inputs a contract names, each with the words one of the function's declared cases must
# have in its label (an Edges call, a Shapes shape, a Refused call): an edge case the contract
# promises something for is run by a generic check.
EDGE_CASES = {
    "an empty input": (
        re.compile(r"(?<![.\w])empty\b|\b[A-Z] (?:may be|=) 0\b|\bsize 0\b"),
        ("empty", "no sample", "no batch"),
    ),
    "every element ignored or masked": (
        re.compile(
            r"\bevery (?:sample|target|token|position)s? (?:is |are )?(?:ignored|masked)"
            r"|\bno real (?:token|position)|\ball padding|\bno True position"
        ),
        ("ignored", "masked", "padding", "no real"),
    ),
    "ties": (re.compile(r"\bties?\b|\btied for\b|\bargmax\b|\bmedian\b"), ("tie",)),
    "a single element": (
        re.compile(
            r"\bsingle (?:point|sample|class|element)\b|\bone class\b(?! per)|\b[NC] = 1\b"
            r"|\ba batch of one\b"
        ),
        ("one ", "single", "size 1"),
    ),
    "a zero denominator": (
        re.compile(r"\bconstant column\b|\bvariance 0\b|\bnorm 0\b"),
        ("constant", "zero", "norm 0", "dead"),
    ),
}
# (module, name, edge) -> why the contract's edge case has no declared case.
EDGES_UNDECLARED = {
    ("q11_layer_shapes", "pool2d", "ties"): "the contract leaves windows with ties out",
    ("q01_fit_line", "fit_line", "a single element"): "a descent: test_fits_a_single_point",
    ("q06_gradients", "backward_each", "an empty input"): "an empty list: the kata's own test",
    ("q09_mlp_module", "MLP", "an empty input"): "a module: its output shape test, batch (0,)",
    ("q10_containers", "ResidualStack", "an empty input"): "depth 0: the kata's own tests",
    ("q11_layer_shapes", "conv2d_output_shape", "an empty input"): (
        "shape arithmetic: the kata's tests draw batches of size 0 against nn.Conv2d"
    ),
    ("q12_activations", "softplus", "ties"): (
        "the tie at x = 0 is among the Dtypes and Gradients inputs"
    ),
    ("q14_param_groups", "make_optimizer", "an empty input"): (
        "an empty group in the result: the kata's own tests"
    ),
    ("q16_text_classifier", "TextClassifier", "an empty input"): "outside the contract",
    ("q19_sgd_by_hand", "SGD", "an empty input"): "an empty state entry, not an input",
    ("q19_sgd_by_hand", "optimizer_state_bytes", "an empty input"): (
        "an empty state entry, not an input"
    ),
    ("q21_dead_relus", "dead_and_saturated", "an empty input"): (
        "an empty batch or unit raises (the kata's tests); an empty mapping: the Setting "
        "facet labelled no activations"
    ),
    ("q24_train_epoch", "train_epoch", "an empty input"): "raises: test_rejects_an_empty_loader",
    ("q25_dataset_loader", "SlidingWindows", "an empty input"): (
        "F empty is a 1-D series, the kata's tests' usual one"
    ),
    ("q30_grad_clipping", "layer_grad_norms", "a zero denominator"): (
        "a dead layer: test_layer_grad_norms_with_a_shared_module_and_a_dead_layer"
    ),
    ("q30_grad_clipping", "layer_grad_norms", "an empty input"): (
        "a module without parameters of its own: the same test"
    ),
    ("q34_debug_nonfinite", "validate_batch", "an empty input"): "raises: test_empty_batch",
    ("q36_grad_accumulation", "train_accumulated", "an empty input"): (
        "says why each batch holds a sample; not an input"
    ),
    ("q38_compile_graph_breaks", "median_time", "ties"): (
        "an even count (the default 10): the kata's tests of the median"
    ),
    ("q45_split_dataset", "split_dataset", "an empty input"): "empty splits cannot happen there",
    ("q50_data_parallel", "global_mean", "an empty input"): (
        "ranks without values: test_global_mean_of_no_values_is_nan and an empty rank"
    ),
}


def edges_named(module: str, name: str) -> set[str]:
    text = own_contract(module, name)
    return {edge for edge, (pattern, _) in EDGE_CASES.items() if pattern.search(text)}


@pytest.mark.parametrize("module", sorted(KATAS))
def test_an_edge_case_a_contract_names_has_a_declared_case(module):
    # "N may be 0", "every sample ignored", "the first of tied maxima": an edge case the
    # contract promises something for is run by a generic check (facets.Edges with the
    # oracle's values and gradients, or a Shapes, Refused case), whose label says which.
    tests = importlib.import_module(f"katas.{module}_test")
    labels: dict[str, list[str]] = collections.defaultdict(list)
    for case in tests.FACETS.cases():
        labels[case.function.target.__name__].append(f"{case.facet.label} {case.label}".lower())
    missing, excused = [], set()
    for name in sorted(public_names(ROOT / "katas" / f"{module}.py")):
        for edge in sorted(edges_named(module, name)):
            if (module, name, edge) in EDGES_UNDECLARED:
                excused.add((module, name, edge))
                continue
            words = EDGE_CASES[edge][1]
            if not any(word in label for label in labels[name] for word in words):
                missing.append(f"{name}: {edge}")
    listed = {key for key in EDGES_UNDECLARED if key[0] == module}
    assert listed <= excused, f"{sorted(listed - excused)}: no longer named, take them off"
    assert not missing, (
        f"{module}: the contracts name these edge cases, and no declared case runs them: "
        f"{missing}; declare facets.Edges({{label: make}}, oracle=...) with a label that says "
        "which (or a Shapes shape), or say why not in EDGES_UNDECLARED"
    )


# (module, name) -> why a function with gradients has them checked at no edge input.
GRADIENTS_AT_NO_EDGE = {
    ("q38_compile_graph_breaks", "clipped_residual"): "a compiled function: the kata's tests",
    ("q46_norm_layers", "batch_norm"): "an empty batch raises (n < 2 values per channel)",
}


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_function_with_gradients_passes_them_at_its_edge_inputs_too(module):
    # A shortcut for an empty (or a 0-dim) input that returns a new constant has the right
    # values and no graph: Shapes checks the gradient at every shape of a function that
    # declares Gradients, Edges at each of its calls where `wrt` is given.
    tests = importlib.import_module(f"katas.{module}_test")
    without = {
        function.target.__name__
        for function in tests.FACETS.functions
        if any(isinstance(facet, facets.Gradients) for facet in function.facets)
        and not any(
            isinstance(facet, facets.Shapes)
            or (isinstance(facet, facets.Edges) and facet.wrt is not None)
            for facet in function.facets
        )
    }
    listed = {name for where, name in GRADIENTS_AT_NO_EDGE if where == module}
    assert listed <= without, f"{sorted(listed - without)}: take them off GRADIENTS_AT_NO_EDGE"
    missing = sorted(without - listed)
    assert not missing, (
        f"{missing} declare Gradients and no Shapes (nor Edges with wrt): declare the shapes "
        "the contract allows, or say why not in GRADIENTS_AT_NO_EDGE"
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


def reference_tests(module: str):
    """The kata's test module, loaded anew with `katas.<module>` bound to the reference answer:
    a facet's make may build the kata's own classes, which the stub does not."""
    name = f"katas.{module}"
    saved = sys.modules.get(name)
    sys.modules[name] = importlib.import_module(f"solutions.{module}")
    try:
        path = ROOT / "katas" / f"{module}_test.py"
        spec = importlib.util.spec_from_file_location(f"reference_{module}_test", path)
        assert spec and spec.loader
        loaded = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(loaded)
    finally:
        if saved is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = saved
    return loaded


# Why a function's Dtypes cases need not reach a region of facets.NARROWED, or the kata test
# that reaches it (a name "test_..." of its test module).
MOVES = "moves, copies or creates values: it computes nothing in the dtype"
ELEMENTWISE = "elementwise: no sum"
MEAN = "a mean: no square"
MATMUL = "one matrix product with `@` (the rules), which accumulates in float32: no sum of its own"
CALLERS = "autograd differentiates the caller's f: the answer computes nothing of its own"
LAYERS = "torch's layers do the arithmetic"
ALL = ("square", "sum", "float32")
HALF = ("square", "sum")
UNREACHED_BY: list[tuple[str, tuple[str, ...], tuple[str, ...], str]] = [
    (
        "q01_fit_line",
        ("fit_line", "fit_until"),
        HALF,
        "the loss is the contract's formula, differentiated by autograd: float16 data whose "
        "squares overflow make the fit itself overflow",
    ),
    ("q02_numpy_bridge", ("to_tensor",), HALF, MOVES),
    (
        "q03_vectorised_ops",
        ("pairwise_sq_dists",),
        HALF,
        "float16 rows whose squared norm overflows are outside the contract, and each sum is "
        "such a norm",
    ),
    (
        "q03_vectorised_ops",
        ("standardize_columns",),
        HALF,
        "test_standardize_columns_in_float16_whose_sums_overflow",
    ),
    ("q03_vectorised_ops", ("batched_scores",), HALF, MATMUL),
    ("q03_vectorised_ops", ("to_patches", "interleave_rows"), HALF, MOVES),
    ("q04_dtypes", ("safe_mean",), ("square",), MEAN),
    ("q05_broadcasting", ("normalize_channels",), HALF, "elementwise (x - mean) / std"),
    ("q06_gradients", ("grad_of", "hessian_vector_product"), HALF, CALLERS),
    ("q06_gradients", ("grads_per_loss",), ALL, CALLERS),
    (
        "q08_no_grad_detach",
        ("round_ste",),
        ALL,
        "rounding, with the identity for a gradient: whole numbers, no square, no sum",
    ),
    ("q09_mlp_module", ("MLP.forward",), HALF, LAYERS),
    ("q11_layer_shapes", ("linear_forward",), HALF, MATMUL),
    (
        "q11_layer_shapes",
        ("padded_attention",),
        HALF,
        "scaled_dot_product_attention does the arithmetic (the rule)",
    ),
    (
        "q12_activations",
        ("class_probabilities",),
        ("square",),
        "test_probabilities_stay_finite_for_logits_far_apart",
    ),
    (
        "q12_activations",
        ("class_probabilities",),
        ("sum",),
        "softmax adds the exps of the logits less the largest (each at most 1)",
    ),
    ("q16_text_classifier", ("masked_mean",), ("square",), MEAN),
    (
        "q16_text_classifier",
        ("TextClassifier",),
        HALF,
        LAYERS + "; masked_mean pools, and its own cases reach the sums",
    ),
    (
        "q22_masked_sequence_loss",
        ("task_loss",),
        HALF,
        "the builtin's values, which overflow where it does (F.mse_loss squares in the dtype)",
    ),
    ("q23_adamw_by_hand", ("adamw_step_(parameter)",), ("sum",), ELEMENTWISE),
    ("q25_dataset_loader", ("SlidingWindows[1]", "pad_collate(padded)"), HALF, MOVES),
    (
        "q29_penalty_early_stopping",
        ("weight_penalty",),
        HALF,
        "the contract's sums in the parameters' dtype, with no clause on 16-bit weights past 256",
    ),
    ("q29_penalty_early_stopping", ("dropout",), HALF, ELEMENTWISE),
    (
        "q30_grad_clipping",
        ("layer_grad_norms", "clip_grad_norm"),
        ("sum",),
        "a norm: what it sums are squares, which the 'square' cases reach",
    ),
    ("q26_to_device", ("copy_to",), HALF, MOVES),
    ("q35_tensor_creation", ("zeros_for",), ALL, MOVES),
    ("q35_tensor_creation", ("scalar_like",), HALF, MOVES),
    ("q42_indexing", ("last_valid", "valid_steps"), HALF, MOVES),
    ("q42_indexing", ("rotate_pairs",), HALF, MOVES),
    (
        "q40_eval_metrics",
        ("confusion_matrix",),
        ("float32",),
        "its inputs are class indices below num_classes, and a count passes 2**24 only after "
        "that many samples",
    ),
    ("q43_views", ("merge_heads", "split_heads"), HALF, MOVES),
]
UNREACHED = {
    (module, name, region): why
    for module, names, regions, why in UNREACHED_BY
    for name in names
    for region in regions
}


@pytest.mark.parametrize("module", sorted(KATAS))
def test_dtypes_cases_reach_where_a_narrower_computation_differs(module):
    # A Dtypes case whose float16 inputs neither square nor add up past 65504, or whose exact
    # float64 result float32 holds, lets through an answer that sums float16 natively
    # (x.sum() / n) or computes float64 in float32. Each function's cases of a dtype reach
    # every region facets.NARROWED names for it, or UNREACHED says why not.
    tests = reference_tests(module)
    missing, needless = [], []
    for function in tests.FACETS.functions:
        reached: dict[torch.dtype, set[str]] = {}
        for facet in function.facets:
            if isinstance(facet, facets.Dtypes):
                for dtype in facets.NARROWED.keys() & set(facet.dtypes):
                    with torch.random.fork_rng(devices=[]):  # the same draws at every run
                        torch.manual_seed(0)
                        found = facets.regions(facet, dtype)
                    reached.setdefault(dtype, set()).update(found)
        for dtype, found in reached.items():
            for region in facets.NARROWED[dtype]:
                why = UNREACHED.get((module, function.name, region))
                if region in found:
                    if why is not None:
                        needless.append((function.name, region))
                elif why is None:
                    missing.append((function.name, str(dtype), region))
                elif why.startswith("test_"):
                    assert callable(getattr(tests, why, None)), f"{module} has no {why}"
    assert not missing, (
        f"{missing}: no Dtypes case of these functions reaches the region (facets.regions): "
        "give one inputs that reach it, or say in UNREACHED why the function needs none"
    )
    assert not needless, f"{needless} are reached now: take them off UNREACHED"


def test_unreached_names_declared_functions():
    for module, name, _ in UNREACHED:
        names = {function.name for function in reference_tests(module).FACETS.functions}
        assert name in names, f"UNREACHED names {module}.{name}, which declares no facets"


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_function_with_shapes_declares_dtypes(module):
    # A Shapes facet means tensors in and out, checked against an oracle in float32; what the
    # result is in every other floating dtype is a Dtypes facet's to check.
    tests = importlib.import_module(f"katas.{module}_test")
    without = [
        function.name
        for function in tests.FACETS.functions
        if any(isinstance(f, facets.Shapes) for f in function.facets)
        and not any(isinstance(f, facets.Dtypes) for f in function.facets)
    ]
    assert not without, f"{without} declare Shapes but no Dtypes: declare facets.Dtypes too"


# A contract that names an error: "Raises ValueError if ...", "raise RuntimeError and ...".
NAMES_AN_ERROR = re.compile(r"\b(?:[Rr]aises?|[Rr]aising)\b[^.;]*?\b\w+Error\b")
# Arguments whose state a call may change: modules, optimizers, schedulers.
STATEFUL_TYPES = re.compile(r"\btorch\.(?:nn\.modules|optim)\.")

# (module, name) -> why a function with state whose contract names an error declares no
# refused call.
NO_REFUSED_CALL: dict[tuple[str, str], str] = {
    ("q24_train_epoch", "train_epoch"): (
        "a loader can be read once: that it yields no sample shows only at its end, after "
        "the model was put in training mode as the contract asks"
    ),
    ("q27_state_dict", "load_checkpoint"): (
        "a strict load raises as model.load_state_dict does, which copies the entries that "
        "match before it raises"
    ),
}


def holds_state(stub, function) -> bool:
    """Whether a call can change state the caller keeps: an object (a module, a scheduler),
    a function given a module or an optimizer, or one declared to update its arguments."""
    target = getattr(stub, function.target.__name__)
    if inspect.isclass(target):
        return True
    updates = any(
        isinstance(facet, (facets.UpdatesAll, facets.Modes))
        or (isinstance(facet, facets.Unmodified) and facet.inputs is not None)
        for facet in function.facets
    )
    annotations = [str(p.annotation) for p in inspect.signature(target).parameters.values()]
    return updates or any(STATEFUL_TYPES.search(text) for text in annotations)


def functions_by_name(tests) -> dict[str, list[facets.Function]]:
    """A kata test module's facet declarations, by the name of the function they check."""
    entries: dict[str, list[facets.Function]] = collections.defaultdict(list)
    for function in tests.FACETS.functions:
        entries[function.target.__name__].append(function)
    return entries


def declares(functions: list[facets.Function], *kinds: type) -> bool:
    """Whether any of a name's facet declarations has a facet of one of `kinds`."""
    return any(isinstance(facet, kinds) for function in functions for facet in function.facets)


def gaps(
    module: str,
    names: typing.Iterable[str],
    applies: typing.Callable[[str], object],
    declared: typing.Callable[[str], bool],
    exempt: typing.Mapping[tuple[str, str], str],
) -> tuple[list[str], list[str]]:
    """One coverage rule in one kata: the names it applies to that declare no facet for it
    and have no reason in `exempt` (missing), and those with a reason there that need none
    (needless: they declare the facet, or the rule no longer applies to them)."""
    missing, needless = [], []
    for name in names:
        if (module, name) in exempt:
            if declared(name) or not applies(name):
                needless.append(name)
        elif applies(name) and not declared(name):
            missing.append(name)
    return missing, needless


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_function_with_state_checks_that_a_refused_call_changes_nothing(module):
    # A refused call leaves every state as it was, whatever the contract says of the error:
    # each function that holds or updates state and names an error in its contract declares
    # a call it refuses (Refused, or Setting for a numeric argument's range), whose check
    # holds it to that.
    stub = stub_module(module)
    entries = functions_by_name(importlib.import_module(f"katas.{module}_test"))
    missing, needless = gaps(
        module,
        entries,
        lambda name: (
            NAMES_AN_ERROR.search(own_contract(module, name))
            and any(holds_state(stub, function) for function in entries[name])
        ),
        lambda name: declares(entries[name], facets.Refused, facets.Setting),
        NO_REFUSED_CALL,
    )
    assert not missing, (
        f"{module}: {missing} hold or update state and raise, but declare no refused call: "
        "declare facets.Refused({label: make}) with arguments the contract refuses (or a "
        "Setting), or say why not in NO_REFUSED_CALL"
    )
    assert not needless, (
        f"{module}: {needless} declare a refused call: take them off NO_REFUSED_CALL"
    )


# (module, name) -> why a function that runs a module declares no ForwardModes.
NO_FORWARD_MODES: dict[tuple[str, str], str] = {
    ("q17_init_weights", "init_layer"): "runs no forward: its contract's mode is a fan mode",
    ("q17_init_weights", "init_weights"): "runs no forward: it only sets parameters",
    ("q26_to_device", "place_for_training"): "runs no forward: it only moves the model, modes kept",
    ("q27_state_dict", "load_checkpoint"): "runs no forward: it only loads the state, modes kept",
}


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_function_that_runs_a_module_says_in_which_mode(module):
    # Modes sees the flags after the call; a mode switched for the call and put back shows
    # only during it. Every function that declares Modes, or is given a module and names a
    # mode in its contract, declares ForwardModes (the caller's modes, eval or train); so
    # does every training loop (given a module and a loss_fn), whose contract must then say
    # in which mode it trains: model.train() is common practice in one loop and a mistake
    # in another; and every function given a module whose result is a forward of it (it
    # declares Trains: gradients reach the caller's parameters through the result), where
    # block.train() for the call, put back after, drops out in a model the caller evaluates.
    stub = stub_module(module)
    entries = functions_by_name(importlib.import_module(f"katas.{module}_test"))

    def runs_a_module(name: str) -> bool:
        if not any(function.facets for function in entries[name]):
            return False  # facets.none: its reason stands for every rule
        target = getattr(stub, name)
        given = not inspect.isclass(target) and any(
            re.search(r"\btorch\.nn\.modules\.", str(parameter.annotation))
            for parameter in inspect.signature(target).parameters.values()
        )
        modes = given and re.search(r"\bmodes?\b", own_contract(module, name))
        trains = given and "loss_fn" in inspect.signature(target).parameters
        forward = given and declares(entries[name], facets.Trains)
        return declares(entries[name], facets.Modes) or bool(modes) or trains or forward

    missing, needless = gaps(
        module,
        entries,
        runs_a_module,
        lambda name: declares(entries[name], facets.ForwardModes),
        NO_FORWARD_MODES,
    )
    assert not missing, (
        f"{module}: {missing} run a module and name its mode, but declare no ForwardModes: "
        "declare facets.ForwardModes(make, module=..., runs=..., grad=...) or say why not in "
        "NO_FORWARD_MODES"
    )
    assert not needless, (
        f"{module}: {needless} declare ForwardModes: take them off NO_FORWARD_MODES"
    )


# (module, name) -> why a public name that returns a module declares no Registered facet.
NOT_REGISTERED = {
    ("q17_init_weights", "init_weights"): "returns the caller's model itself, initialised in place",
    ("q27_state_dict", "load_checkpoint"): "returns the caller's model itself, loaded in place",
    ("q48_export_deploy", "load_program"): (
        "returns the module torch.export builds from a saved program: torch's layout, not the "
        "learner's"
    ),
}


def returns_a_module(target) -> bool:
    """Whether a stub's public name is an nn.Module class or a function annotated to return
    one (an nn.Module subclass, alone or in a union)."""
    if inspect.isclass(target):
        return issubclass(target, nn.Module)
    annotation = typing.get_type_hints(target).get("return")
    kinds = typing.get_args(annotation) or (annotation,)
    return any(inspect.isclass(kind) and issubclass(kind, nn.Module) for kind in kinds)


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_function_that_returns_a_module_declares_registered(module):
    # A module holds its state where torch finds it (registered, trainable, in the default
    # dtype, all in its state_dict, its own): one generic check for every module a kata
    # builds, so a plain tensor attribute or a frozen layer fails wherever it is written.
    stub = stub_module(module)
    entries = functions_by_name(importlib.import_module(f"katas.{module}_test"))
    missing, needless = gaps(
        module,
        sorted(public_names(ROOT / "katas" / f"{module}.py")),
        lambda name: returns_a_module(getattr(stub, name)),
        lambda name: declares(entries.get(name, []), facets.Registered),
        NOT_REGISTERED,
    )
    assert not missing, (
        f"{module}: {missing} return a module but declare no Registered facet: declare "
        "facets.Registered(make, forward=...) or say why not in NOT_REGISTERED"
    )
    assert not needless, f"{module}: {needless} declare Registered: take them off NOT_REGISTERED"


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_function_given_a_loss_fn_declares_updates_all(module):
    # UpdatesAll holds a `loss_fn` to the contract's order, loss_fn(outputs, targets): the
    # symmetric losses tests train with cannot tell the arguments apart by their values.
    stub = stub_module(module)
    entries = functions_by_name(importlib.import_module(f"katas.{module}_test"))
    missing = [
        name
        for name in sorted(public_names(ROOT / "katas" / f"{module}.py"))
        if callable(target := getattr(stub, name))
        and not inspect.isclass(target)
        and "loss_fn" in inspect.signature(target).parameters
        and not declares(entries.get(name, []), facets.UpdatesAll)
    ]
    assert not missing, (
        f"{module}: {missing} take a loss_fn but declare no UpdatesAll facet, which checks "
        "the order of loss_fn's arguments"
    )


TRAINS = "trains the model with the caller's optimizer: torch builds none over no parameters"
SAVES = "saves or loads the model with the optimizer that trains it: none over no parameters"

# (module, name) -> why a public name given a module declares no Edges case of an edge model.
NO_EDGE_MODELS = {
    ("q27_state_dict", "count_parameters"): (
        "its own test_edge_models_are_counted_and_listed runs every model of EDGE_MODELS"
    ),
    ("q27_state_dict", "buffer_keys"): (
        "its own test_edge_models_are_counted_and_listed runs every model of EDGE_MODELS"
    ),
    ("q27_state_dict", "load_checkpoint"): (
        "its own test_edge_models_load runs every model of EDGE_MODELS, from any Mapping, "
        "with and without the prefix"
    ),
    ("q15_warmup_cosine", "train_with_schedule"): TRAINS,
    ("q24_train_epoch", "train_epoch"): TRAINS,
    ("q28_checkpoint", "save_checkpoint"): SAVES,
    ("q28_checkpoint", "load_checkpoint"): SAVES,
    ("q34_debug_nonfinite", "overfit_one_batch"): TRAINS,
    ("q36_grad_accumulation", "train_accumulated"): TRAINS,
    ("q37_mixed_precision", "amp_train_step"): TRAINS,
    ("q48_export_deploy", "export_for_inference"): (
        "exports run for seconds each: its own tests export the models its contract names"
    ),
    ("q48_export_deploy", "export_onnx"): (
        "needs the onnx extra, and exports run for seconds each: its own tests cover it"
    ),
    ("q48_export_deploy", "GuardedScorer"): (
        "a branch that returns its input (nn.Identity, an empty nn.Sequential) fails inside "
        "torch.cond's eager tracing, the reference's too: left open"
    ),
    ("q50_data_parallel", "average_gradients"): (
        "needs a process group: its own test_average_gradients_of_the_edge_models runs "
        "every model of facets.EDGE_MODELS on two ranks"
    ),
}


def public_methods(target) -> list:
    """A stub's public function itself, or a public class's __init__ and public methods."""
    if not inspect.isclass(target):
        return [target]
    return [
        member
        for name, member in vars(target).items()
        if inspect.isfunction(member) and (name == "__init__" or not name.startswith("_"))
    ]


def takes_a_module(target) -> bool:
    """Whether a stub's public function, or a public method or __init__ of a public class, has
    a parameter annotated nn.Module (alone or in a union): any model. (A parameter of a
    narrower class, nn.LSTM or nn.Sequential, holds what that class holds.)"""
    methods = public_methods(target)
    for method in methods:
        hints = typing.get_type_hints(method)
        for name, annotation in hints.items():
            union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
            kinds = typing.get_args(annotation) if union else (annotation,)
            if name != "return" and any(kind is nn.Module for kind in kinds):
                return True
    return False


# (module, name) -> why a public name given the caller's code to run declares no Propagates.
NO_PROPAGATES = {
    ("q25_dataset_loader", "make_loader"): (
        "returns a DataLoader: collate_fn runs only when the caller iterates it"
    ),
    ("q38_compile_graph_breaks", "compile_for_varying_batch"): (
        "returns fn compiled: fn runs only when the caller calls what it returns"
    ),
}


def runs_callers_code(target) -> bool:
    """Whether a stub's public function, or a public method or __init__ of a public class, has
    a parameter whose annotation holds a Callable anywhere (alone, in a union, in a Mapping of
    them): code of the caller's that the function runs."""

    def holds_a_callable(annotation) -> bool:
        if typing.get_origin(annotation) is collections.abc.Callable:
            return True
        return any(holds_a_callable(inner) for inner in typing.get_args(annotation))

    methods = public_methods(target)
    return any(
        name != "return" and holds_a_callable(annotation)
        for method in methods
        for name, annotation in typing.get_type_hints(method).items()
    )


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_function_that_runs_the_callers_code_lets_its_errors_propagate(module):
    # An error raised by the caller's function, loss or clock is the caller's to see: an
    # answer that catches it (to carry on with the next batch, to return what it has, to
    # retry, to raise its own error instead) hides the caller's bug. Every public name given
    # a callable declares Propagates, or says why not in NO_PROPAGATES.
    stub = stub_module(module)
    entries = functions_by_name(importlib.import_module(f"katas.{module}_test"))
    missing, needless = gaps(
        module,
        sorted(public_names(ROOT / "katas" / f"{module}.py")),
        lambda name: runs_callers_code(getattr(stub, name)),
        lambda name: declares(entries.get(name, []), facets.Propagates),
        NO_PROPAGATES,
    )
    assert not missing, (
        f"{module}: {missing} are given the caller's code but declare no Propagates: declare "
        "facets.Propagates(make) or say why not in NO_PROPAGATES"
    )
    assert not needless, f"{module}: {needless} declare Propagates: take them off NO_PROPAGATES"


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_measurement_of_a_module_leaves_its_grads_alone(module):
    # A forward with grad off (an evaluation, a measurement) may run between the caller's
    # backward and its step: clearing or zeroing the model's .grad there loses the caller's
    # gradients. Every such function holds the module's .grad to Unmodified(module_grads=True).
    entries = functions_by_name(importlib.import_module(f"katas.{module}_test"))
    missing = [
        name
        for name, functions in sorted(entries.items())
        if any(
            isinstance(facet, facets.ForwardModes) and facet.grad is False
            for function in functions
            for facet in function.facets
        )
        and not any(
            isinstance(facet, facets.Unmodified) and facet.module_grads
            for function in functions
            for facet in function.facets
        )
    ]
    assert not missing, (
        f"{module}: {missing} run a module with grad off but declare no "
        "Unmodified(..., module_grads=True): a measurement leaves the caller's .grad alone"
    )


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_function_that_runs_a_module_names_how_many_times(module):
    # A second forward (to look at the output first, to log a loss) costs its time, runs the
    # module's hooks again and, in training, draws other dropout masks: every ForwardModes
    # that calls the module itself (whole) names how often the contract runs it (once, once
    # per batch, once per step), which also holds each of its layers to as many runs.
    entries = functions_by_name(importlib.import_module(f"katas.{module}_test"))
    missing = sorted(
        name
        for name, functions in entries.items()
        for function in functions
        for facet in function.facets
        if isinstance(facet, facets.ForwardModes) and facet.whole and facet.calls is None
    )
    assert not missing, (
        f"{module}: {missing} declare ForwardModes without calls=: say how many times the "
        "contract runs the module (a number, or calls(arguments))"
    )


# What a function given a module could be asked to train it by: its facets say so.
TRAINING_FACETS = (facets.UpdatesAll, facets.FreshGrads)

# (module, name) -> why a function given a module, that trains none, may change its .grad.
MODULE_GRADS_CHANGED: dict[tuple[str, str], str] = {
    ("q26_to_device", "place_for_training"): (
        "moves the model to the device, by contract: its parameters (and their .grad with "
        "them) are the model's to move; Unmodified covers the inputs"
    ),
    ("q27_state_dict", "load_checkpoint"): (
        "loads the state_dict into the model, by contract: Unmodified covers the state_dict"
    ),
}


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_function_given_a_module_that_trains_none_leaves_its_grads_alone(module):
    # A function given the caller's module that runs no training step of its own (a forward
    # in the caller's grad mode, a count, a penalty, an optimizer built over it) may run
    # between the caller's backward and its step, amid gradient accumulation: a
    # model.zero_grad() inside it loses what the caller accumulated, and no other facet sees
    # it (Unmodified leaves a module's .grad to it unless told). Every function given a
    # module that declares Unmodified and no training facet (UpdatesAll, FreshGrads,
    # ForwardModes(grad=True)) declares Unmodified(..., module_grads=True), or
    # MODULE_GRADS_CHANGED says why not.
    # A class's method declared on its own (name="Cls.method") is held to it too.
    tests = importlib.import_module(f"katas.{module}_test")
    stub = stub_module(module)
    missing, needless = [], []
    entries = dict(functions_by_name(tests))
    for function in tests.FACETS.functions:
        if "." in function.name and inspect.isclass(function.target):
            entries[function.name] = [function]
    for name, functions in entries.items():
        owner, _, method = name.partition("(")[0].partition(".")
        target = getattr(stub, owner)
        # A module's own method (its forward) is given the caller's module: itself.
        itself = bool(method) and issubclass(target, nn.Module)
        if method:
            target = getattr(target, method)
        elif inspect.isclass(target):
            continue  # a module of its own, built by the call: its .grad is its own
        parameters = inspect.signature(target).parameters.values()
        given = itself or any(
            re.search(r"\btorch\.nn\.modules\b", str(parameter.annotation))
            for parameter in parameters
        )
        declared = [facet for function in functions for facet in function.facets]
        trains = any(
            isinstance(facet, TRAINING_FACETS)
            or (isinstance(facet, facets.ForwardModes) and facet.grad)
            for facet in declared
        )
        unmodified = [facet for facet in declared if isinstance(facet, facets.Unmodified)]
        kept = any(facet.module_grads for facet in unmodified)
        if (module, name) in MODULE_GRADS_CHANGED:
            needless += [name] if kept or not given or trains else []
        elif given and unmodified and not trains and not kept:
            missing.append(name)
    assert not missing, (
        f"{module}: {missing} are given the caller's module and train none, but no facet "
        "checks they leave its .grad alone: declare Unmodified(..., module_grads=True), or "
        "say why not in MODULE_GRADS_CHANGED"
    )
    assert not needless, f"{module}: {needless}: take them off MODULE_GRADS_CHANGED"


# (module, name) -> why a module whose reference draws its state while built declares no Seeded.
NOT_SEEDED: dict[tuple[str, str], str] = {}


def _drawn_state(function: facets.Function, facet: facets.Registered, seed: int) -> list:
    """The state of the module the reference builds from the Registered facet's arguments,
    after torch.manual_seed(seed) (make's own draws come after a seed of their own)."""
    torch.manual_seed(0)
    arguments = facet.make(CPU)
    torch.manual_seed(seed)
    result = function.call(*arguments.args, **arguments.kwargs)
    built = facet.module(arguments, result) if facet.module else result
    return [tensor.detach().clone() for tensor in [*built.parameters(), *built.buffers()]]


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_module_built_from_the_callers_draws_declares_seeded(module):
    # A module whose parameters are drawn while it is built (a Linear's initialisation)
    # draws them from the caller's generator: a torch.Generator of its own, seeded with a
    # constant, gives weights of the right distribution, which no test of the distribution
    # or of training tells apart, but every model alike whatever the caller's seed. Where
    # the reference's module differs after two seeds, the name declares Seeded (with `like`
    # where the contract names the layers drawn), or NOT_SEEDED says why not.
    tests = reference_tests(module)
    missing, needless = [], []
    for name, functions in functions_by_name(tests).items():
        registered = [
            (function, facet)
            for function in functions
            for facet in function.facets
            if isinstance(facet, facets.Registered)
        ]
        if not registered:
            continue
        function, facet = registered[0]
        with torch.random.fork_rng(devices=[]):
            first, other = (_drawn_state(function, facet, seed) for seed in (1, 2))
        draws = any(not torch.equal(a, b) for a, b in zip(first, other, strict=True))
        seeded = declares(functions, facets.Seeded)
        if (module, name) in NOT_SEEDED:
            needless += [name] if seeded or not draws else []
        elif draws and not seeded:
            missing.append(name)
    assert not missing, (
        f"{module}: {missing} build a module whose state the reference draws, but declare no "
        "Seeded: declare facets.Seeded (like= the layers the contract names), or say why not "
        "in NOT_SEEDED"
    )
    assert not needless, f"{module}: {needless}: take them off NOT_SEEDED"


def _forward_draws(function: facets.Function, facet: facets.Registered) -> bool:
    """Whether the reference's module, built from the Registered facet's arguments, draws in
    its forward (in training mode): another seed, another output."""
    torch.manual_seed(0)
    arguments = facet.make(CPU)
    result = function.call(*arguments.args, **arguments.kwargs)
    built = facet.module(arguments, result) if facet.module else result
    built.train()
    outputs = []
    for seed in (1, 2):
        # Each run on a copy of the module as built (a running statistic moves); the inputs
        # forward draws come from seed 0, the module's own draws from `seed`.
        copied = copy.deepcopy(built)
        copied.register_forward_pre_hook(lambda *_, seed=seed: torch.manual_seed(seed) and None)
        torch.manual_seed(0)
        ran = facet.forward(copied, CPU)
        outputs.append([t.detach().clone() for _, t in facets._tensors(ran)])
    return any(not torch.equal(a, b) for a, b in zip(*outputs, strict=True))


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_module_whose_forward_draws_declares_seeded_on_its_forward(module):
    # Dropout drawn from a torch.Generator the module holds, seeded with a constant, zeroes
    # other units at each call (random enough for every test of dropout), but the same
    # ones on every run whatever the caller's seed. Where the reference's module, in
    # training mode, gives another output after another seed, a declaration of the name
    # that calls it (facets.of(Cls, ..., name="Cls.forward", call=...)) holds Seeded.
    tests = reference_tests(module)
    missing = []
    for name, functions in functions_by_name(tests).items():
        registered = [
            (function, facet)
            for function in functions
            for facet in function.facets
            if isinstance(facet, facets.Registered)
        ]
        if not registered:
            continue
        with torch.random.fork_rng(devices=[]):
            draws = _forward_draws(*registered[0])
        seeded = any(
            isinstance(facet, facets.Seeded)
            for function in functions
            if function.call is not function.target
            for facet in function.facets
        )
        if draws and not seeded:
            missing.append(name)
    assert not missing, (
        f"{module}: {missing} draw in their forward (the reference's output changes with the "
        "seed), but no call of it declares Seeded: declare facets.of(Cls, facets.Seeded(...), "
        'name="Cls.forward", call=lambda model, *args: model(*args))'
    )


def test_names_without_seeded_are_names_of_the_stubs():
    for module, name in NOT_SEEDED:
        assert hasattr(stub_module(module), name), (module, name)


def test_names_whose_module_grads_may_change_are_names_of_the_stubs():
    for module, name in MODULE_GRADS_CHANGED:
        assert hasattr(stub_module(module), name), (module, name)


def test_names_that_need_not_propagate_are_names_of_the_stubs():
    for module, name in NO_PROPAGATES:
        assert hasattr(stub_module(module), name), (module, name)


# (module, name) -> why a function given the caller's code declares no count of its calls.
NO_RUNS = {
    **NO_PROPAGATES,
    ("q09_mlp_module", "MLP"): (
        "activation is a factory: one module per hidden layer or one shared, the contract "
        "lets either be"
    ),
    ("q21_dead_relus", "dead_and_saturated"): (
        "an activation is elementwise and left as it was, by contract: its output and its "
        "slope may come from one call or from two (torch.func.grad gives the slope alone), "
        "by autograd or by forward mode (torch.func.jvp), in any grad mode"
    ),
    ("q38_compile_graph_breaks", "count_compilations"): (
        "Dynamo traces fn and runs its graphs: how often fn itself runs is Dynamo's"
    ),
}


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_function_that_runs_the_callers_code_counts_its_calls(module):
    # The caller's code may have effects of its own (a BatchNorm's statistics, a dropout's
    # draw, a step counter): an answer that runs it twice (to log a loss, to check a result
    # first, to warm up) or a step ahead gives the same values and still does it twice.
    # Every public name given a callable declares Runs, or says why not in NO_RUNS.
    stub = stub_module(module)
    entries = functions_by_name(importlib.import_module(f"katas.{module}_test"))
    missing, needless = gaps(
        module,
        sorted(public_names(ROOT / "katas" / f"{module}.py")),
        lambda name: runs_callers_code(getattr(stub, name)),
        lambda name: declares(entries.get(name, []), facets.Runs),
        NO_RUNS,
    )
    assert not missing, (
        f"{module}: {missing} are given the caller's code but declare no Runs: declare "
        "facets.Runs(make, times=...) or say why not in NO_RUNS"
    )
    assert not needless, f"{module}: {needless} declare Runs: take them off NO_RUNS"


def test_names_that_need_not_count_calls_are_names_of_the_stubs():
    for module, name in NO_RUNS:
        assert hasattr(stub_module(module), name), (module, name)


def test_runs_catches_the_callers_code_run_twice_or_in_the_wrong_grad_mode():
    def loss(x):
        return (x * x).sum()

    facet = facets.Runs(
        lambda device, wrap: facets.args(wrap(loss), torch.ones(3)), times=lambda a: 1, grad=True
    )

    def right(f, x):
        with torch.enable_grad():
            point = x.detach().requires_grad_()
            return torch.autograd.grad(f(point), point)[0]

    def checked_first(f, x):
        with torch.no_grad():
            f(x)  # a look at the loss before differentiating it
        return right(f, x)

    def callers_mode(f, x):
        point = x.detach().requires_grad_()
        out = f(point)
        return torch.autograd.grad(out, point)[0] if out.requires_grad else torch.zeros_like(x)

    def checked_first_unless_counted(f, x):
        # Calls it once only where the caller's code is named after the harness's wrapper.
        if "counted" in repr(f) or "torch_katas" in f"{f.__module__} {f.__qualname__}":
            return right(f, x)
        return checked_first(f, x)

    assert_catches(facet, right, checked_first)
    assert_catches(facet, right, callers_mode)
    assert_catches(facet, right, checked_first_unless_counted)


def test_runs_counts_a_module_as_the_module_itself():
    # A loss module handed on as a function would tell the answer that it is counted: it
    # calls a module twice and a function once, and only its module's calls go uncounted.
    loss = nn.MSELoss()
    facet = facets.Runs(
        lambda device, wrap: facets.args(wrap(loss), torch.ones(3)), times=lambda a: 1
    )

    def right(f, x):
        return f(x, torch.zeros_like(x))

    def twice_for_a_module(f, x):
        if isinstance(f, nn.Module):
            f(x, x)  # a look at the loss first
        return right(f, x)

    assert_catches(facet, right, twice_for_a_module)


def test_propagates_catches_an_error_swallowed_replaced_retried_or_interrupt_ignored():
    facet = facets.Propagates(lambda device, fault: facets.args(fault, torch.ones(3)))

    def right(f, x):
        try:
            return f(x)
        finally:
            x.grad = None  # cleanup on the way out is no swallowing

    def skips_a_failure(f, x):
        try:
            return f(x)
        except Exception:
            return x

    def replaces_it(f, x):
        try:
            return f(x)
        except Exception as error:
            raise RuntimeError("the step failed") from error

    def retries(f, x):
        for attempt in range(3):
            try:
                return f(x)
            except Exception:
                if attempt == 2:
                    raise
        return x

    def stops_on_ctrl_c(f, x):
        try:
            return f(x)
        except KeyboardInterrupt:  # "stop early, keep what we have"
            return x

    def bare_except(f, x):
        try:
            return f(x)
        except:  # noqa: E722
            return x

    def tells_the_planted_error(f, x):
        # Re-raises what looks planted (the harness's class or message), swallows the rest.
        try:
            return f(x)
        except BaseException as error:
            if type(error).__module__ != "builtins" or "planted" in repr(error):
                raise
            return x

    def tells_the_harness_by_name(f, x):
        # Propagates only where the caller's code is named after the harness.
        try:
            return f(x)
        except Exception:
            if "torch_katas" in f"{f!r} {f.__module__} {f.__qualname__}" or "fault" in repr(f):
                raise
            return x

    wrongs = (skips_a_failure, replaces_it, retries, bare_except, tells_the_planted_error)
    for wrong in (*wrongs, tells_the_harness_by_name):
        assert_catches(facet, right, wrong)
    _, failed = outcomes(tells_the_planted_error, facet)
    assert len(failed) == 2, f"an Exception and a Ctrl-C are caught: {failed}"
    _, failed = outcomes(stops_on_ctrl_c, facet)
    assert [case for case in failed if "KeyboardInterrupt" in case] == failed != [], failed


def runs_edge_models(functions: list[facets.Function]) -> bool:
    return any(
        isinstance(facet, facets.Edges)
        and any(label.startswith("edge model") for label in facet.calls)
        for function in functions
        for facet in function.facets
    )


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_function_given_a_module_runs_the_edge_models(module):
    # A model may hold nothing, no parameters, buffers only, or only frozen parameters:
    # next(model.parameters()) for the device, torch.cat or torch.stack of no tensors, max()
    # of nothing, a division by the number of parameters break only there. Every public name
    # given a module declares an Edges case per facets.EDGE_MODELS (facets.edge_models), or
    # says why not in NO_EDGE_MODELS.
    stub = stub_module(module)
    entries = functions_by_name(importlib.import_module(f"katas.{module}_test"))
    missing, needless = gaps(
        module,
        sorted(public_names(ROOT / "katas" / f"{module}.py")),
        lambda name: takes_a_module(getattr(stub, name)),
        lambda name: runs_edge_models(entries.get(name, [])),
        NO_EDGE_MODELS,
    )
    assert not missing, (
        f"{module}: {missing} are given a module but run no edge model: declare "
        "facets.Edges(facets.edge_models(make), oracle=...) or say why not in NO_EDGE_MODELS"
    )
    assert not needless, f"{module}: {needless} run the edge models: take them off NO_EDGE_MODELS"


def test_names_without_edge_models_are_names_of_the_stubs():
    for module, name in NO_EDGE_MODELS:
        assert hasattr(stub_module(module), name), (module, name)


# A result the caller owns once it is returned: a tensor, an array, a list or a dict.
OWNED_RESULT = re.compile(r"\b(?:torch\.Tensor|numpy\.ndarray|list|dict)\b")

# (module, name) -> why a function that returns one declares no facet that calls it twice.
NOT_CALLED_TWICE: dict[tuple[str, str], str] = {
    ("q02_numpy_bridge", "to_numpy"): "the array is t's own memory on the CPU, by contract",
    ("q15_warmup_cosine", "train_with_schedule"): (
        "a training run: its list holds the learning rates read while it trained the model"
    ),
    ("q26_to_device", "place_for_training"): (
        "a tensor already on the device may come back as the caller's own, by contract"
    ),
    ("q34_debug_nonfinite", "overfit_one_batch"): (
        "a training run: its list holds the losses of the steps it took on the model"
    ),
    ("q35_tensor_creation", "as_tensor_shared"): "shares data's memory where it can, by contract",
    ("q36_grad_accumulation", "train_accumulated"): (
        "a training run: its list holds the losses of the steps it took on the model"
    ),
    ("q48_export_deploy", "run_onnx"): "needs onnxruntime: its own tests run it where present",
    ("q50_data_parallel", "global_mean"): "needs a process group: its own tests run it on ranks",
}


def calls_twice(facet) -> bool:
    """Whether the facet's check calls the function a second time and holds that call to
    results of its own (nothing of the first result handed out again)."""
    if isinstance(facet, facets.Number):
        return facet.type in (list, dict, tuple)
    return isinstance(facet, (facets.Dtypes, facets.Returns))


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_function_that_returns_what_its_caller_owns_is_called_twice(module):
    # A result cached by shape or id and handed out for other inputs, or a tensor (a list)
    # the function keeps and overwrites on its next call, shows only on a second call: every
    # function that returns a tensor, an array, a list or a dict declares a facet whose check
    # makes one (Dtypes, on other values of the same shapes; Returns; Number of a container).
    stub = stub_module(module)
    entries = functions_by_name(importlib.import_module(f"katas.{module}_test"))

    def returns_what_the_caller_owns(name: str) -> bool:
        target = getattr(stub, name)
        annotation = str(inspect.signature(target).return_annotation)
        return not inspect.isclass(target) and bool(OWNED_RESULT.search(annotation))

    missing, needless = gaps(
        module,
        entries,
        returns_what_the_caller_owns,
        lambda name: any(calls_twice(f) for function in entries[name] for f in function.facets),
        NOT_CALLED_TWICE,
    )
    assert not missing, (
        f"{module}: {missing} return a tensor, an array, a list or a dict, but no facet calls "
        "them twice: declare facets.Dtypes or facets.Returns (or a Number of the container), "
        "or say why not in NOT_CALLED_TWICE"
    )
    assert not needless, f"{module}: {needless} are called twice: take them off NOT_CALLED_TWICE"


# A module's or optimizer's state, read by a function that returns what it found there.
STATEFUL = re.compile(r"Module|Optimizer")
# (module, function) -> why a function that takes a module or an optimizer declares no Changed.
NOT_CHANGED: dict[tuple[str, str], str] = {
    ("q08_no_grad_detach", "ema_update_"): "returns None: it changes the target, by contract",
    ("q14_param_groups", "make_optimizer"): "returns a new optimizer, built at each call",
    ("q15_warmup_cosine", "warmup_cosine_scheduler"): "returns a new scheduler at each call",
    ("q15_warmup_cosine", "train_with_schedule"): "a training run: it changes the model itself",
    ("q17_init_weights", "init_layer"): "returns None: it sets the module's state, by contract",
    ("q17_init_weights", "init_weights"): "returns the model, whose state it sets",
    ("q24_train_epoch", "train_epoch"): "a training run: it changes the model itself",
    ("q26_to_device", "place_for_training"): "moves the model: its state is the call's result",
    ("q27_state_dict", "load_checkpoint"): "returns the model, whose state it sets",
    ("q28_checkpoint", "save_checkpoint"): "returns None: its file is read back by its tests",
    ("q28_checkpoint", "load_checkpoint"): "sets the state of what it is given, by contract",
    ("q34_debug_nonfinite", "overfit_one_batch"): "a training run: it changes the model itself",
    ("q36_grad_accumulation", "train_accumulated"): "a training run: it changes the model",
    ("q37_mixed_precision", "amp_train_step"): "a training step: it changes the model itself",
    ("q48_export_deploy", "export_for_inference"): "returns a new program at each call",
    ("q48_export_deploy", "export_onnx"): "returns None: it writes a file",
    ("q50_data_parallel", "average_gradients"): "returns None: it changes the gradients",
}


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_function_that_reads_a_module_or_an_optimizer_reads_it_at_each_call(module):
    # A result kept under the object's id() (or on the object) shows only when the same
    # object is passed again after its state changed: every function that takes a module or
    # an optimizer and returns what it read there declares Changed.
    stub = stub_module(module)
    entries = functions_by_name(importlib.import_module(f"katas.{module}_test"))

    def reads_a_module_or_an_optimizer(name: str) -> bool:
        target = getattr(stub, name)
        parameters = [] if inspect.isclass(target) else inspect.signature(target).parameters
        return any(STATEFUL.search(str(parameters[p].annotation)) for p in parameters)

    missing, needless = gaps(
        module,
        entries,
        reads_a_module_or_an_optimizer,
        lambda name: declares(entries[name], facets.Changed),
        NOT_CHANGED,
    )
    assert not missing, (
        f"{module}: {missing} take a module or an optimizer but no facet calls them again on "
        "it after it changed: declare facets.Changed, or say why not in NOT_CHANGED"
    )
    assert not needless, f"{module}: {needless}: take them off NOT_CHANGED"


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


def test_dtypes_catches_a_stand_in_for_a_missing_tensor_made_in_the_default_dtype():
    """An optional bias (default None) stood in by zeros made without dtype=: float16 input
    comes back float32, and float32 input float64 under a float64 default. The cases pass
    a bias, so only the call with it left None shows."""

    def right(x, weight, bias=None):
        y = x @ weight.T
        return y if bias is None else y + bias

    def wrong(x, weight, bias=None):
        if bias is None:
            bias = torch.zeros(weight.shape[0], device=x.device)
        return x @ weight.T + bias

    facet = facets.Dtypes(
        lambda dtype, device: facets.args(
            torch.linspace(-1, 1, 6, dtype=dtype, device=device).reshape(2, 3),
            torch.linspace(-2, 2, 12, dtype=dtype, device=device).reshape(4, 3),
            torch.linspace(0, 1, 4, dtype=dtype, device=device),
        ),
        oracle=lambda x, weight, bias: x @ weight.T + bias,
        dtypes=(torch.float32, torch.float64),
    )
    assert_catches(facet, right, wrong)


def test_dtypes_catches_a_result_kept_under_any_arguments_id():
    # A value read from the second argument, kept under its id(): the caller changes that
    # tensor's values in place and calls again.
    facet = facets.Dtypes(
        lambda dtype, device: facets.args(
            torch.linspace(1, 2, 6, dtype=dtype), torch.linspace(3, 5, 6, dtype=dtype)
        ),
        oracle=lambda x, w: x * w[0],
        dtypes=(torch.float32, torch.float64),
    )
    kept: dict[int, torch.Tensor] = {}

    def right(x, w):
        return x * w[0]

    def kept_by_id(x, w):
        return x * kept.setdefault(id(w), w[0].clone())

    assert_catches(facet, right, kept_by_id)


def test_dtypes_catches_a_dtype_changed_or_a_native_16_bit_sum():
    facet = facets.Dtypes(
        lambda dtype, device: facets.args(torch.linspace(1, 200, 1000, dtype=dtype)),
        oracle=lambda x: x.mean(),
    )

    def right(x):  # 16-bit inputs summed in float32, float64 in float64
        return (x.float() if x.element_size() < 4 else x).mean().to(x.dtype)

    def float32(x):
        return x.float().mean()

    def native(x):
        return x.sum() / x.numel()

    assert_catches(facet, right, float32)
    assert_catches(facet, right, native)


def test_dtypes_catches_one_float64_input_moved_through_float32():
    # The statistics hold values float32 holds too (0.5, 2.0), so only the float64 case
    # with its inputs moved off them shows the statistic cast to float32 and promoted back.
    facet = facets.Dtypes(
        lambda dtype, device: facets.args(
            torch.linspace(-3, 3, 7, dtype=torch.float64).to(dtype),
            torch.tensor(0.5, dtype=dtype),
            torch.tensor(2.0, dtype=dtype),
        ),
        oracle=lambda x, mean, std: (x - mean) / std,
        dtypes=(torch.float32, torch.float64),
    )

    def right(x, mean, std):
        return (x - mean) / std

    def stats_in_float32(x, mean, std):
        return ((x - mean.float()) / std.float()).to(x.dtype)

    assert_catches(facet, right, stats_in_float32)


def test_regions_tell_where_a_narrower_computation_differs():
    def reached(values, dtype, oracle=lambda x: x.mean()):
        make = lambda dtype, device: facets.args(torch.tensor(values, dtype=dtype))  # noqa: E731
        return facets.regions(facets.Dtypes(make, oracle=oracle), dtype)

    assert reached([1.0, -200.0], torch.float16) == set()
    assert reached([1.0, -300.0], torch.float16) == {"square"}
    assert reached([100.0] * 700, torch.float16) == {"sum"}
    assert reached([1.0, 0.5], torch.float64) == set()  # a mean float32 holds
    assert reached([1.0, 0.0, 0.0], torch.float64) == {"float32"}  # 1/3
    # Where a case reaches "sum", a native float16 sum / n fails it; where not, it passes.
    for count, caught in ((700, True), (600, False)):
        facet = facets.Dtypes(
            lambda dtype, device, count=count: facets.args(
                torch.full((count,), 100.0, dtype=dtype)
            ),
            oracle=lambda x: x.mean(),
            dtypes=(torch.float16,),
        )
        assert ("sum" in facets.regions(facet, torch.float16)) is caught
        assert bool(outcomes(lambda x: x.sum() / x.numel(), facet)[1]) is caught


def test_regions_and_past_float32_catch_values_moved_through_float32():
    # A mover that copies through float32 (x.float() ... .to(x.dtype)) rounds float64 values
    # and integers past 2**24: the cases reach "float32" only with such values, and NaN or
    # inf (which float32 holds as they are) does not count.
    def reached(values, dtype):
        make = lambda dtype, device: facets.args(torch.tensor(values, dtype=dtype))  # noqa: E731
        return facets.regions(facets.Dtypes(make, oracle=lambda x: x, dtypes=(dtype,)), dtype)

    assert reached([1.0, float("nan"), float("inf")], torch.float64) == set()
    assert reached([3, -5], torch.int64) == set()
    assert reached([2**24 + 1], torch.int32) == {"float32"}
    assert reached([2**24 + 1], torch.uint64) == {"float32"}
    moved = facets.past_float32(torch.tensor([0, 3, -4]))
    assert not torch.equal(moved.float().long(), moved)
    for unsigned in (torch.uint32, torch.uint64):  # (torch cannot add in these: through int64)
        moved = facets.past_float32(torch.tensor([1, 2], dtype=unsigned))
        assert moved.dtype == unsigned and moved.tolist() == [2**24 + 2, 2**24 + 3]
    assert torch.equal(
        facets.past_float32(torch.tensor([1, 2], dtype=torch.int16)),
        torch.tensor([1, 2], dtype=torch.int16),
    )
    facet = facets.Dtypes(
        lambda dtype, device: facets.args(facets.past_float32(torch.arange(6, dtype=dtype))),
        oracle=lambda x: x.clone(),
        dtypes=(torch.float64, torch.int64, torch.int32),
        once=True,
    )
    assert all(facets.regions(facet, dtype) == {"float32"} for dtype in facet.dtypes)
    through_float32 = outcomes(lambda x: x.float().to(x.dtype), facet)[1]
    assert len(through_float32) == 3, through_float32
    assert not outcomes(lambda x: x.clone(), facet)[1]


def test_once_catches_a_step_in_the_16_bit_dtype_or_a_second_rounding():
    # A normalisation whose contract computes in float32 and rounds once: statistics in the
    # dtype, an affine step after the cast (a second rounding), and a result rounded through
    # bfloat16 each pass a tolerance of a few units of the dtype, and fail `once`.
    def make(dtype, device):
        x = torch.linspace(-3, 5, 60, dtype=torch.float64).reshape(6, 10) ** 2
        return facets.args(x.to(dtype), torch.linspace(0.5, 2, 10, dtype=dtype))

    def oracle(x, weight):
        return torch.nn.functional.layer_norm(x, (10,), weight)

    def right(x, weight):
        wide = x.float()
        centred = wide - wide.mean(-1, keepdim=True)
        y = centred * torch.rsqrt(centred.square().mean(-1, keepdim=True) + 1e-5)
        return (y * weight).to(x.dtype)

    def statistics_in_the_dtype(x, weight):
        centred = x - x.mean(-1, keepdim=True)
        y = centred * torch.rsqrt(centred.square().float().mean(-1, keepdim=True) + 1e-5)
        return (y.float() * weight).to(x.dtype)

    def affine_after_the_cast(x, weight):
        return right(x, torch.ones_like(weight)) * weight

    def through_bfloat16(x, weight):
        return right(x, weight).to(torch.bfloat16).to(x.dtype)

    loose = facets.Dtypes(make, oracle=oracle, dtypes=facets.HALF, ulps=8)
    once = facets.Dtypes(make, oracle=oracle, dtypes=facets.HALF, ulps=8, once=True)
    assert not outcomes(affine_after_the_cast, loose)[1], "the loose tolerance lets it pass"
    for wrong in (statistics_in_the_dtype, affine_after_the_cast):
        assert_catches(once, right, wrong)
    float16 = facets.Dtypes(make, oracle=oracle, dtypes=(torch.float16,), once=True)
    assert not outcomes(through_bfloat16, dataclasses.replace(float16, once=False, ulps=8))[1]
    assert_catches(float16, right, through_bfloat16)


def test_rounded_once_accepts_either_neighbour_of_a_tie_only():
    # 1 + 2**-8 lies halfway between two bfloat16 values: either is a rounding of a float32
    # computation; a value a quarter step off the exact one is not.
    exact = torch.tensor([1 + 2.0**-8, 1 + 2.0**-9, 3.0], dtype=torch.float64)
    below = torch.tensor([1.0, 1.0, 3.0], dtype=torch.bfloat16)
    above = torch.tensor([1 + 2.0**-7, 1.0, 3.0], dtype=torch.bfloat16)
    assert facets.rounded_once_excess(below, exact).max() == 0
    assert facets.rounded_once_excess(above, exact).max() == 0
    off = torch.tensor([1.0, 1 + 2.0**-7, 3.0 + 2.0**-6], dtype=torch.bfloat16)
    assert (facets.rounded_once_excess(off, exact)[1:] > 0).all()
    # Past the dtype's range the rounding is inf, and nothing else is.
    huge = torch.tensor([float("inf"), 1e5], dtype=torch.float64)
    assert facets.rounded_once_excess(torch.tensor([65504.0, 65504.0]).half(), huge)[0] > 0
    assert facets.rounded_once_excess(torch.tensor([float("inf")] * 2).half(), huge).max() == 0


def test_rounded_once_accepts_float32_cancellation_near_zero_and_still_catches_a_second_rounding():
    # Eval batch norm as one scale and shift, the form F.batch_norm takes on the CPU: where
    # x equals the running mean, x * scale + shift leaves float32's error of mean * scale,
    # not 0. A computation in float32 rounded once all the same; one through bfloat16 is not.
    far = 58944.0  # float16 holds it
    x = torch.linspace(-1, 1, 24, dtype=torch.float64) * far
    mean, var = torch.tensor(-far, dtype=torch.float64), torch.tensor(far, dtype=torch.float64)

    def make(dtype, device):
        return facets.args(*(t.to(dtype=dtype, device=device) for t in (x, mean, var)))

    def oracle(x, mean, var):
        return (x - mean) / torch.sqrt(var + 1e-5) * 1.5

    def fused(x, mean, var):
        scale = 1.5 / torch.sqrt(var.float() + 1e-5)
        shift = -mean.float() * scale
        # A fused multiply-add (addcmul's, vectorised): x * scale unrounded, plus the shift.
        return (x.double() * scale.double() + shift.double()).float().to(x.dtype)

    def through_bfloat16(x, mean, var):
        return fused(x, mean, var).to(torch.bfloat16).to(x.dtype)

    facet = facets.Dtypes(make, oracle=oracle, dtypes=(torch.float16,), ulps=8, once=True)
    # Past the default absolute tolerance where the exact value is 0.
    assert fused(*make(torch.float16, torch.device("cpu")).args)[0].abs() > 1e-5
    assert_catches(facet, fused, through_bfloat16)


def test_dtypes_catches_a_tensor_made_in_the_default_dtype():
    # float32 and float64 only: exact zeros in float32 change no float64 value, so only a
    # caller's torch.set_default_dtype(torch.float64) shows them, in a float32 result.
    facet = facets.Dtypes(
        lambda dtype, device: facets.args(torch.linspace(-2, 2, 9, dtype=dtype)),
        oracle=torch.relu,
        dtypes=(torch.float32, torch.float64),
    )

    def right(x):
        return torch.maximum(x, torch.zeros_like(x))

    def default_dtype(x):
        return torch.maximum(x, torch.zeros(x.shape, device=x.device))

    assert_catches(facet, right, default_dtype)
    _, failed = outcomes(default_dtype, facet)
    assert failed == ["default_dtype-dtypes-float32"], failed


def test_own_generator_catches_the_global_generator_used_while_the_call_runs():
    facet = facets.OwnGenerator(lambda device: facets.args(5, seed=3))

    def own(n, seed):
        return torch.randperm(n, generator=torch.Generator().manual_seed(seed))

    def drawn(n, seed):
        return torch.randperm(n)

    def forked(n, seed):
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            return torch.randperm(n)

    def put_back(n, seed):  # the default generator's own methods, the state put back
        generator = torch.default_generator
        state = generator.get_state()
        generator.manual_seed(seed)
        try:
            return torch.randperm(n)
        finally:
            generator.set_state(state)

    for wrong in (drawn, forked, put_back):
        assert_catches(facet, own, wrong)

    class Later:  # draws when iterated, as a sampler does
        def __init__(self, n, seed):
            self.n, self.seed = n, seed

        def __iter__(self):
            return iter(forked(self.n, self.seed).tolist())

    later = facets.OwnGenerator(lambda device: facets.args(5, 3), then=lambda a, it: list(it))
    assert_catches(later, lambda n, seed: own(n, seed).tolist(), Later)


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


class _SquareForgettingGradOutput(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 2 * x  # the local derivative alone: right only where grad_output is 1


def test_gradients_catches_a_backward_that_drops_grad_output():
    # Elementwise and reduced to a scalar: sum() alone sends ones into both, as gradcheck
    # does into a scalar.
    for reduce in (lambda y: y, lambda y: y.sum()):
        facet = facets.Gradients(
            lambda dtype, device: facets.args(torch.linspace(-2, 2, 7, dtype=dtype)),
            oracle=lambda x, reduce=reduce: reduce(x * x),
        )
        assert_catches(
            facet,
            lambda x, reduce=reduce: reduce(x * x),
            lambda x, reduce=reduce: reduce(_SquareForgettingGradOutput.apply(x)),
        )


class _SquareSavedOnTheClass(torch.autograd.Function):
    saved = None

    @staticmethod
    def forward(ctx, x):
        _SquareSavedOnTheClass.saved = x.detach()  # where the next forward overwrites it
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        return 2 * _SquareSavedOnTheClass.saved * grad_output


def test_gradients_catches_a_backward_that_reads_what_the_next_forward_wrote():
    facet = facets.Gradients(
        lambda dtype, device: facets.args(torch.linspace(-2, 3, 7, dtype=dtype)),
        oracle=lambda x: x * x,
        dtypes=(torch.float32,),
    )
    assert_catches(facet, lambda x: x * x, _SquareSavedOnTheClass.apply)


def test_gradients_catches_a_result_that_requires_grad_on_its_own():
    facet = facets.Gradients(
        lambda dtype, device: facets.args(torch.linspace(-2, 2, 7, dtype=dtype)),
        oracle=lambda x: x.square().sum(),
    )

    def right(x):
        return x.square().sum()

    def leaf_accumulator(x):
        total = torch.zeros((), dtype=x.dtype, requires_grad=True)
        return total + x.square().sum()

    assert_catches(facet, right, leaf_accumulator)


def test_fresh_grads_catches_gradients_from_before_the_call_leaking_into_a_step():
    def make(device):
        model = nn.Linear(3, 1)
        return facets.args(model, torch.optim.SGD(model.parameters(), lr=0.1))

    def step(model, optimizer, clear):
        clear(optimizer)
        model(torch.ones(2, 3)).sum().backward()
        optimizer.step()
        return model.weight.detach().clone()

    def multiplied_by_zero(optimizer):
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.grad.mul_(0)  # NaN * 0 is NaN

    facet = facets.FreshGrads(make, params=lambda arguments: list(arguments.args[0].parameters()))
    assert_catches(
        facet,
        lambda model, optimizer: step(model, optimizer, lambda o: o.zero_grad()),
        lambda model, optimizer: step(model, optimizer, lambda o: None),
    )
    assert_catches(
        facet,
        lambda model, optimizer: step(model, optimizer, lambda o: o.zero_grad()),
        lambda model, optimizer: step(model, optimizer, multiplied_by_zero),
    )


def test_fresh_grads_catches_a_step_that_clears_only_gradients_that_look_planted():
    """A step that clears .grad only where it looks planted (NaN, or one value filling each
    tensor, as a test writes it) or is its own from an earlier call, and otherwise lets a
    caller's leftover gradients (a backward it ran to inspect them) leak in: the check
    leaves values as a backward does, each tensor's own, on a held-out run too."""

    def make(device):
        model = nn.Linear(3, 1)
        return facets.args(model, torch.optim.SGD(model.parameters(), lr=0.1))

    def planted(grad):
        return bool(grad.isnan().all()) or bool((grad == grad.flatten()[0]).all())

    def step(model, optimizer, recognising=False):
        grads = [p.grad for p in model.parameters()]
        if not recognising or all(
            g is None or getattr(g, "_own", False) or planted(g) for g in grads
        ):
            optimizer.zero_grad()
        model(torch.ones(2, 3)).sum().backward()
        optimizer.step()
        for p in model.parameters():
            if p.grad is not None:
                p.grad._own = True
        return model.weight.detach().clone()

    facet = facets.FreshGrads(make, params=lambda arguments: list(arguments.args[0].parameters()))
    for run in (0, 918273):
        previous = isolation.set_run_seed(run)
        try:
            assert_catches(facet, step, lambda m, o: step(m, o, recognising=True))
        finally:
            isolation.set_run_seed(previous)


def test_fresh_grads_catches_a_step_that_changes_what_the_caller_froze():
    def make(device):
        model = nn.Linear(3, 1)
        return facets.args(model, torch.optim.SGD(model.parameters(), lr=0.1))

    def step(model, optimizer, unfreeze=False, freeze=False):
        if unfreeze:
            model.requires_grad_(True)  # "make sure the gradients flow"
        optimizer.zero_grad()
        model(torch.ones(2, 3)).sum().backward()
        optimizer.step()
        if freeze:
            model.requires_grad_(False)  # "trained: freeze it"
        return model.bias.detach().clone()

    facet = facets.FreshGrads(make, params=lambda arguments: list(arguments.args[0].parameters()))
    assert_catches(facet, step, lambda model, optimizer: step(model, optimizer, unfreeze=True))
    assert_catches(facet, step, lambda model, optimizer: step(model, optimizer, freeze=True))


def test_fresh_grads_catches_a_step_that_keeps_a_frozen_parameters_old_grad_in_play():
    """A parameter the caller froze after training a while still holds its last .grad.
    Zeroing it (set_to_none=False) keeps it in the step, where the caller's weight decay
    moves it; clearing only the trainable ones' lets the optimizer step it with the old
    gradient. The check freezes some with a .grad held and the optimizer decaying weights
    (a plain SGD is made here: the check gives it weight decay)."""

    def make(device):
        model = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1))
        return facets.args(model, torch.optim.SGD(model.parameters(), lr=0.1))

    def step(model, optimizer, clear):
        clear(model, optimizer)
        model(torch.ones(2, 3)).sum().backward()
        optimizer.step()
        return model[1].bias.detach().clone()

    def zeroed(model, optimizer):
        optimizer.zero_grad(set_to_none=False)

    def trainable_only(model, optimizer):
        for p in model.parameters():
            if p.requires_grad:
                p.grad = None

    facet = facets.FreshGrads(make, params=lambda arguments: list(arguments.args[0].parameters()))
    right = lambda model, optimizer: step(model, optimizer, lambda m, o: o.zero_grad())  # noqa: E731
    assert_catches(facet, right, lambda model, optimizer: step(model, optimizer, zeroed))
    assert_catches(facet, right, lambda model, optimizer: step(model, optimizer, trainable_only))


def test_fresh_grads_draws_which_parameters_the_caller_froze_anew_on_a_held_out_run():
    """A step that unfreezes the model but where the caller froze exactly what the check
    freezes on a plain run (every other tensor, say) passes there: which ones are frozen is
    drawn from seed_for, so a held-out run (grading's --katas-seed) freezes others."""

    def make(device):
        model = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1))
        return facets.args(model, torch.optim.SGD(model.parameters(), lr=0.1))

    def step(model, optimizer, unfreeze=False):
        if unfreeze:
            model.requires_grad_(True)
        optimizer.zero_grad()
        model(torch.ones(2, 3)).sum().backward()
        optimizer.step()
        return model[1].bias.detach().clone()

    seen = []

    def recording(model, optimizer):
        seen.append(tuple(p.requires_grad for p in model.parameters()))
        return step(model, optimizer)

    def recognising(model, optimizer):
        flags = tuple(p.requires_grad for p in model.parameters())
        return step(model, optimizer, unfreeze=all(flags) or flags not in seen)

    facet = facets.FreshGrads(make, params=lambda arguments: list(arguments.args[0].parameters()))
    assert outcomes(recording, facet)[1] == []
    assert not all(all(flags) for flags in seen), seen  # a call froze some
    assert outcomes(recognising, facet)[1] == []  # the plain run's pattern, recognised
    caught = []
    for run in (918273, 55501, 7):
        previous = isolation.set_run_seed(run)
        try:
            caught.append(bool(outcomes(recognising, facet)[1]))
        finally:
            isolation.set_run_seed(previous)
    assert any(caught), caught


def test_every_checker_has_a_test_that_it_can_fail():
    # A facet built in a test that runs checks (assert_catches, outcomes), not a name in a
    # message or a declaration table.
    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    fed = set()
    for test in tree.body:
        if not (isinstance(test, ast.FunctionDef) and test.name.startswith("test_")):
            continue
        called = {
            node.func.id
            for node in ast.walk(test)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        }
        if called & {"assert_catches", "outcomes"}:
            fed |= {
                node.func.attr
                for node in ast.walk(test)
                if isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "facets"
            }
    untested = [kind.__name__ for kind in facets.CHECKERS if kind.__name__ not in fed]
    assert not untested, f"no test here feeds these checkers a wrong answer: {untested}"


def test_shapes_catches_a_shape_not_handled():
    facet = facets.Shapes(lambda shape, device: facets.args(torch.ones(shape)), oracle=torch.neg)
    assert_catches(facet, torch.neg, lambda x: -x.view(-1))
    assert_catches(facet, torch.neg, lambda x: -x.reshape(*x.shape[:1], -1) if x.dim() else -x)


def test_shapes_runs_under_the_other_default_dtype_and_keeps_the_inputs_dtype():
    """A zero made in the default dtype (torch.tensor(0.0)) promotes a 0-dim input only, a
    shape Dtypes does not try; a module's own float64 state sets no dtype for the result."""

    class Scaled(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("scale", torch.tensor(2.0, dtype=torch.float64), persistent=False)

    def make(shape, device):
        return facets.args(Scaled(), torch.ones(shape))

    def make_dtype(dtype, device):
        return facets.args(Scaled(), torch.ones(3, dtype=dtype))

    def oracle(module, x):
        return x * 2

    declared = [
        facets.Shapes(make, oracle=oracle),
        facets.Dtypes(make_dtype, oracle=oracle, dtypes=(torch.float32, torch.float64)),
    ]

    def right(module, x):
        return x * module.scale.to(x.dtype)

    def default_zero(module, x):
        return x * module.scale.to(x.dtype) + torch.tensor(0.0)

    assert_catches(declared, right, default_zero)


def test_dtypes_and_shapes_run_under_both_default_dtypes_so_the_default_tells_nothing():
    """Every Dtypes and Shapes call ran under the other default dtype alone (float64 for
    float32 and 16-bit inputs, float32 for float64 ones): a function reading
    torch.get_default_dtype() could take the right path there and a wrong one under the
    default a caller has (float32 for 16-bit inputs, float64 for float64 ones). Kata 12's
    softplus computing in float32 where the default and the input are float64 passed a plain
    run and a held-out one."""

    def oracle(x):
        return x * 3

    def right(x):
        return x * 3

    def narrow_where_the_caller_works_in_float64(x):
        if torch.get_default_dtype() == x.dtype == torch.float64:
            return (x.float() * 3).to(x.dtype)
        return x * 3

    def float32_for_16_bit_under_the_usual_default(x):
        if torch.get_default_dtype() == torch.float32 and x.dtype in facets.HALF:
            return x.float() * 3
        return x * 3

    def strided_read_wrong_under_the_usual_default(x):
        if torch.get_default_dtype() == torch.float32 and not x.is_contiguous():
            return x.contiguous().flip(0) * 3
        return x * 3

    dtypes = facets.Dtypes(
        lambda dtype, device: facets.args(
            facets.past_float32(torch.linspace(1, 2, 6, dtype=dtype).reshape(2, 3))
        ),
        oracle=oracle,
    )
    for wrong in (
        narrow_where_the_caller_works_in_float64,
        float32_for_16_bit_under_the_usual_default,
        strided_read_wrong_under_the_usual_default,
    ):
        assert_catches(dtypes, right, wrong)

    def wrong_for_0_dim_under_the_usual_default(x):
        if torch.get_default_dtype() == torch.float32 and x.dim() == 0:
            return x * 2
        return x * 3

    shapes = facets.Shapes(lambda shape, device: facets.args(torch.randn(shape)), oracle=oracle)
    for wrong in (
        wrong_for_0_dim_under_the_usual_default,
        strided_read_wrong_under_the_usual_default,
    ):
        assert_catches(shapes, right, wrong)


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


def test_shapes_catches_a_shortcut_that_cuts_the_graph_where_gradients_are_declared():
    # An empty input answered with a new empty tensor has the right values and shape, and no
    # graph: a loss over an empty batch then cannot be backpropagated.
    make = lambda shape, device: facets.args(torch.randn(shape))  # noqa: E731
    shapes = facets.Shapes(make, oracle=torch.sin, shapes=("empty", "2-D"))
    gradients = facets.Gradients(
        lambda dtype, device: facets.args(torch.ones(3, dtype=dtype)), torch.sin
    )

    def shortcut(x):
        return torch.empty_like(x) if x.numel() == 0 else torch.sin(x)

    def doubled(x):  # values right, gradient twice the true one
        return torch.sin(x) + (x - x.detach())

    for wrong in (shortcut, doubled):
        assert_catches([shapes, gradients], torch.sin, wrong)
    # Without Gradients declared, values alone are the contract.
    assert_catches(shapes, torch.sin, lambda x: -x.view(-1))
    assert not outcomes(shortcut, shapes)[1]


def test_edges_catches_a_value_or_a_gradient_wrong_at_the_edge():
    def make(device, ignored=True):
        logits = torch.randn(4, 3)
        target = torch.full((4,), -100) if ignored else torch.tensor([0, 1, 2, 0])
        return facets.args(logits, target, weight=torch.tensor([0.5, 1.0, 2.0]))

    facet = facets.Edges(
        {"every target ignored": make, "none ignored": lambda device: make(device, False)},
        oracle=lambda logits, target, weight: F.cross_entropy(logits, target, weight=weight),
        wrt=0,
    )
    right = lambda logits, target, weight: F.cross_entropy(logits, target, weight=weight)  # noqa: E731

    def zero_for_nothing(logits, target, weight):  # 0 where the mean of nothing is nan
        loss = F.cross_entropy(logits, target, weight=weight, reduction="sum")
        counted = torch.where(target != -100, weight[target.clamp(min=0)], 0).sum()
        return loss / counted.clamp(min=1)

    def constant(logits, target, weight):  # nan, but no graph
        if (target == -100).all():
            return logits.new_tensor(math.nan)
        return right(logits, target, weight)

    def float64(logits, target, weight):
        return right(logits.double(), target, weight.double())

    for wrong in (zero_for_nothing, constant, float64):
        assert_catches(facet, right, wrong)
    # Python numbers and tuples: compared as numbers, NaN with NaN.
    numbers = facets.Edges(
        {"nothing": lambda device: facets.args(torch.zeros(0))},
        oracle=lambda x: (x.numel(), math.nan, x),
    )
    assert_catches(numbers, lambda x: (0, math.nan, x.clone()), lambda x: (0, 0.0, x.clone()))
    assert_catches(numbers, lambda x: (0, math.nan, x.clone()), lambda x: (0.0, math.nan, x))
    # A plain tuple asked for: the caller's torch.Size handed back unchanged is not one.
    shapes = facets.Edges(
        {"an empty shape": lambda device: facets.args(torch.Size(), torch.Size([2, 3]))},
        oracle=lambda a, b: tuple(torch.broadcast_shapes(a, b)),
    )
    assert_catches(shapes, lambda a, b: tuple(b), lambda a, b: b if not a else tuple(b))


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

    # Three dims or more: each pair swapped, so a check of the count and of some dims (the
    # first, the last, the rank) misses none of the orders.
    def make3(device):
        return facets.args(torch.arange(24.0).reshape(2, 3, 4), torch.ones(2, 3, 4))

    three = facets.BadShapes(make3, names=(1,), dims=(0, 1, 2))
    for wrong in (
        lambda x, t: x.numel() != t.numel() or x.shape[-1] != t.shape[-1],  # (3, 2, 4) passes
        lambda x, t: x.numel() != t.numel() or x.shape[0] != t.shape[0],  # (2, 4, 3) passes
        lambda x, t: x.numel() != t.numel() or x.shape[1] != t.shape[1],  # (4, 3, 2) passes
    ):
        assert_catches(three, right, checked(wrong))

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


def test_refused_catches_a_refused_call_that_changed_something_first():
    def make(device):
        model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
        model[1].eval()  # a frozen part: mixed modes
        model[0].weight.grad = torch.ones(2, 2)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        return facets.args(model, optimizer, torch.ones(3, 1))

    facet = facets.Refused({"one feature": make})

    def right(model, optimizer, x):
        if x.shape[-1] != 2:
            raise ValueError(x.shape)
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()

    def buffer_first(model, optimizer, x):
        with torch.no_grad():
            model[1].running_mean.lerp_(x.mean(dim=0), 0.1)  # broadcasts, then refused
        right(model, optimizer, x)

    def hook_first(model, optimizer, x):
        model.register_forward_hook(lambda *_: None)
        right(model, optimizer, x)

    def mode_first(model, optimizer, x):
        model.train()
        right(model, optimizer, x)

    def grads_first(model, optimizer, x):
        optimizer.zero_grad()
        right(model, optimizer, x)

    def state_first(model, optimizer, x):
        for parameter in model.parameters():
            optimizer.state[parameter]["momentum_buffer"] = torch.zeros_like(parameter)
        right(model, optimizer, x)

    def buffer_put_back_anew(model, optimizer, x):
        model[1].running_mean = model[
            1
        ].running_mean.clone()  # the same values, not the same tensor
        right(model, optimizer, x)

    def accepted(model, optimizer, x):
        pass

    for wrong in (buffer_first, hook_first, mode_first, grads_first, state_first):
        assert_catches(facet, right, wrong)
    assert_catches(facet, right, buffer_put_back_anew)
    assert_catches(facet, right, accepted)


def test_setting_holds_a_refused_call_to_every_state_as_refused_does():
    def make(device):
        model = nn.Linear(2, 2)
        model.weight.grad = torch.ones(2, 2)
        return facets.args(model, steps=1)

    facet = facets.Setting(make, "steps", low=1, integer=True)

    def right(model, steps):
        if steps < 1:
            raise ValueError(steps)

    def mode_first(model, steps):
        model.eval()
        right(model, steps)

    def grads_first(model, steps):
        model.zero_grad()
        right(model, steps)

    assert_catches(facet, right, mode_first)
    assert_catches(facet, right, grads_first)


def test_forward_modes_catches_a_mode_switched_for_the_call_and_put_back():
    def make(device):
        return facets.args(nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5)), torch.ones(3, 2))

    def module(arguments):
        return arguments.args[0]

    def right(model, x):
        return model(x)

    def switched(model, x):
        modes = [m.training for m in model.modules()]
        model.train()
        try:
            return model(x)
        finally:
            for m, training in zip(model.modules(), modes, strict=True):
                m.training = training

    def in_eval(model, x):
        model.eval()
        return model(x)

    def not_run(model, x):
        return x

    caller = facets.ForwardModes(make, module, grad=None)
    assert_catches(caller, right, switched)
    assert_catches(caller, right, not_run)
    evaluated = facets.ForwardModes(make, module, runs="eval", grad=None)
    assert_catches(evaluated, in_eval, switched)
    assert_catches(evaluated, in_eval, right)


def test_forward_modes_catches_a_forward_in_another_grad_mode():
    # A measurement that records a graph and detaches after, a forward pass that turns
    # autograd on under the caller's no_grad, a training step under no_grad: the values are
    # the same, the grad mode of each forward is not.
    def make(device):
        return facets.args(nn.Sequential(nn.Linear(2, 2), nn.Tanh()), torch.ones(3, 2))

    def module(arguments):
        return arguments.args[0]

    def measured(model, x):
        with torch.no_grad():
            return model(x)

    def detached_after(model, x):
        return model(x).detach()

    def forced_on(model, x):
        with torch.enable_grad():
            return model(x)

    def plain(model, x):
        return model(x)

    assert_catches(facets.ForwardModes(make, module, grad=False), measured, detached_after)
    assert_catches(facets.ForwardModes(make, module, grad=None), plain, forced_on)
    assert_catches(facets.ForwardModes(make, module, grad=None), plain, measured)
    assert_catches(facets.ForwardModes(make, module, grad=True), forced_on, measured)


def test_forward_modes_counts_a_forward_run_without_calling_the_module():
    # A forward run by any other way than module(x) (module.forward(x), the class's forward
    # handed the module, the forward torch runs under tracing) skips the module's hooks: a
    # count kept by a pre-hook misses it. A leaf module has no layers whose own hooks would
    # count the second run, and a run kept from drawing dropout masks changes no output.
    def make(device):
        return facets.args(nn.Linear(2, 2), torch.ones(3, 2))

    def module(arguments):
        return arguments.args[0]

    def once(model, x):
        return model(x)

    def copied(model, x):  # a deep copy run in its place keeps the module's hooks
        return copy.deepcopy(model)(x)

    def twice_through_forward(model, x):
        model.forward(x)
        return model(x)

    def twice_through_the_class(model, x):
        type(model).forward(model, x)
        return model(x)

    def twice_through_torchs_class(model, x):
        nn.Linear.forward(model, x)
        return model(x)

    def twice_through_slow_forward(model, x):
        model._slow_forward(x)
        return model(x)

    def forward_only(model, x):  # run, never called
        return model.forward(x)

    def counted_not_run(model, x):  # the count's hook called by hand, the layer run by hand
        for hook in list(model._forward_pre_hooks.values()):
            hook(model, (x,))
        return F.linear(x, model.weight, model.bias)

    facet = facets.ForwardModes(make, module, grad=None, calls=1)
    for right in (once, copied):
        assert_catches(facet, right, twice_through_forward)
    for wrong in (
        twice_through_the_class,
        twice_through_torchs_class,
        twice_through_slow_forward,
        forward_only,
        counted_not_run,
    ):
        assert_catches(facet, once, wrong)
    # Layers run twice inside one call of the model count for the layers.
    sequential = facets.ForwardModes(
        lambda device: facets.args(nn.Sequential(nn.Linear(2, 2)), torch.ones(3, 2)),
        module,
        grad=None,
        calls=1,
    )

    def layer_twice(model, x):
        model[0].forward(x)
        return model(x)

    assert_catches(sequential, once, layer_twice)


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

    def put_back_by_swapping_memory(model, x):  # same objects; a view sees the update
        saved = [(b, b.clone()) for b in model.buffers()]
        model(x)
        with torch.no_grad():
            for buffer, value in saved:
                buffer.set_(value)

    assert_catches(facets.Unmodified(buffer_model), put_back, put_back_by_swapping_memory)

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


def test_unmodified_catches_a_write_through_an_alias_put_back():
    # .data and a NumPy round trip have version counters of their own, and the values are
    # as they were: only the write itself shows (an expanded caller's tensor raises there).
    facet = facets.Unmodified(lambda device: facets.args(torch.arange(4.0), nn.Linear(2, 2)))
    dtypes = facets.Dtypes(
        lambda dtype, device: facets.args(torch.arange(4, dtype=dtype), nn.Linear(2, 2)),
        oracle=lambda x, model: -x,
        dtypes=(torch.float32,),
    )

    def negated(x, model):
        with torch.no_grad():  # the module's own state: its to change and put back
            model.weight.neg_()
            model.weight.neg_()
        return -x

    def through_data(x, model):
        x.data.neg_()
        result = x.clone()
        x.data.neg_()
        return result

    def through_numpy(x, model):
        alias = torch.from_numpy(x.numpy())
        alias.neg_()
        result = alias.clone()
        alias.neg_()
        return result

    def through_a_view_of_data(x, model):
        x.data[1:].neg_()
        result = -x
        x.data[1:].neg_()
        return torch.cat([result[:1], -result[1:]])

    for wrong in (through_data, through_numpy, through_a_view_of_data):
        assert_catches(facet, negated, wrong)
        assert_catches([dtypes, facet], negated, wrong)  # each case of a read-only function
        assert "wrote into the caller's argument 0" in facets_error(dtypes, facet, wrong)


def facets_error(*declared_and_target):
    """The message of the first case of a Dtypes facet (given with an Unmodified) that fails."""
    *declared, target = declared_and_target
    for case in facets.declare(facets.of(target, *declared)).cases():
        if isinstance(case.facet, facets.Dtypes):
            try:
                facets.run(case, CPU)
            except AssertionError as error:
                return str(error)
    return ""


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


def test_unmodified_catches_frozen_parameters_unfrozen_on_the_way_out():
    def stack(device):
        return facets.args(nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2)))

    def measures(model):  # requires_grad as it was, each parameter's own
        with torch.no_grad():
            return model(torch.ones(1, 2))

    def freezes_then_unfreezes_all(model):
        model.requires_grad_(False)
        try:
            return model(torch.ones(1, 2))
        finally:
            model.requires_grad_(True)

    assert_catches(facets.Unmodified(stack), measures, freezes_then_unfreezes_all)


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


def test_unmodified_with_inputs_holds_every_facet_to_the_inputs_it_keeps():
    # A function that updates one argument (a running total) and keeps the other: its
    # Unmodified case runs in float32 only, and x.to(float64) is the caller's own float64
    # tensor, changed in place; the Dtypes case's float64 call shows it.
    def make(device):
        return facets.args(torch.arange(4.0), torch.zeros(()))

    declared = [
        facets.Unmodified(make, inputs=lambda arguments: arguments.args[0]),
        facets.Dtypes(
            lambda dtype, device: facets.args(
                torch.linspace(-3, 5, 7, dtype=dtype), total=torch.zeros((), dtype=dtype)
            ),
            oracle=lambda x, total: x - x.mean(),
            dtypes=(torch.float32, torch.float64),
        ),
    ]

    def right(x, total):
        total.add_(x.sum())
        return x - x.mean()

    def centres_float64_in_place(x, total):
        total.add_(x.sum())
        wide = x.to(torch.float64)
        return wide.sub_(wide.mean()).to(x.dtype)

    assert_catches(declared, right, centres_float64_in_place)


def test_unmodified_with_module_grads_catches_a_change_to_a_modules_grad():
    facet = facets.Unmodified(
        lambda device: facets.args(nn.Linear(4, 2), torch.randn(3, 4)), module_grads=True
    )

    def right(model, x):  # an evaluation: no graph, the caller's .grad left alone
        with torch.no_grad():
            return model(x)

    def clears(model, x):
        model.zero_grad()
        with torch.no_grad():
            return model(x)

    def zeroes(model, x):
        for parameter in model.parameters():
            if parameter.grad is not None:
                parameter.grad.zero_()

    def fills(model, x):
        model(x).sum().backward()

    for wrong in (clears, zeroes, fills):
        assert_catches(facet, right, wrong)


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


def test_no_graph_catches_a_returned_leaf_that_requires_grad():
    # The point an optimizer moved is a leaf (no grad_fn) that requires grad: returned as it
    # is, it is not detached. The caller's own tensor handed back is the caller's.
    facet = facets.NoGraph(
        lambda device: facets.args(torch.ones(3, requires_grad=True)),
        state=lambda arguments, result: result,
    )

    def descend(start, detach):
        x = start.detach().clone().requires_grad_()
        (x**2).sum().backward()
        with torch.no_grad():
            x -= 0.1 * x.grad
        return x.detach() if detach else x

    assert_catches(facet, lambda start: descend(start, True), lambda start: descend(start, False))
    passed, failed = outcomes(lambda start: start, facet)
    assert passed and not failed, "the caller's own tensor, returned, is not the call's"


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


def test_updates_all_catches_a_loss_fn_given_the_targets_first():
    # MSE is symmetric: the values cannot tell loss_fn(targets, outputs) from the contract's
    # loss_fn(outputs, targets); which argument carries the graph can.
    def make(device):
        model = nn.Linear(2, 1)
        batch = (torch.ones(3, 2), torch.zeros(3, 1))
        return facets.args(model, batch, nn.MSELoss(), torch.optim.SGD(model.parameters(), lr=0.1))

    facet = facets.UpdatesAll(make, params=lambda arguments: list(arguments.args[0].parameters()))

    def step(model, batch, loss_fn, optimizer, swapped=False):
        inputs, targets = batch
        optimizer.zero_grad()
        pair = (targets, model(inputs)) if swapped else (model(inputs), targets)
        loss_fn(*pair).backward()
        optimizer.step()

    def swapped(model, batch, loss_fn, optimizer):
        step(model, batch, loss_fn, optimizer, swapped=True)

    assert_catches(facet, step, swapped)


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


def test_returns_catches_a_copy_skipped_for_a_non_contiguous_input():
    # A result that shares the input's memory only where the input is not contiguous (a
    # copy taken to have been made already) shows on the strided copies of the inputs.
    new = facets.Returns(lambda device: facets.args(torch.arange(6.0).reshape(2, 3)))

    def skipped(x):
        return x.clone() if x.is_contiguous() else x[:]

    def skipped_array(x):
        array = x.numpy()
        return array.copy() if x.is_contiguous() else array

    assert_catches(new, lambda x: x.clone(), skipped)
    assert_catches(new, lambda x: x.numpy().copy(), skipped_array)
    # An array given: the same, its strided copy a NumPy array too.
    given = facets.Returns(lambda device: facets.args(np.arange(6.0).reshape(2, 3)))

    def wrapped(array):
        return torch.tensor(array) if array.flags.c_contiguous else torch.as_tensor(array)

    assert_catches(given, torch.tensor, wrapped)
    assert_catches(given, torch.tensor, torch.as_tensor)


def test_strided_copies_are_laid_out_anew_on_a_held_out_run():
    """A copy skipped only for the layouts the checks' strided copies do not have (an odd
    stride, where a plain run's copies lie two elements apart) passes a plain run: a held-out
    run (grading's --katas-seed) spreads them 3, 5 or 7 elements apart, and fails it (and
    the tensor and array alike). Kata 4's time_bucket returned the input itself so."""
    new = facets.Returns(lambda device: facets.args(torch.arange(6.0).reshape(2, 3)))
    given = facets.Returns(lambda device: facets.args(np.arange(6.0).reshape(2, 3)))

    def skipped(x):
        odd = not x.is_contiguous() and 1 not in x.stride() and x.stride(0) % 2
        return x if odd else x.clone()

    def wrapped(array):
        odd = (
            not array.flags.c_contiguous
            and array.itemsize not in array.strides
            and array.strides[0] // array.itemsize % 2
        )
        return torch.as_tensor(array) if odd else torch.tensor(array)

    cases = ((new, lambda x: x.clone(), skipped), (given, torch.tensor, wrapped))
    for facet, right, wrong in cases:
        assert outcomes(wrong, facet)[1] == []  # a plain run: every stride even
        for run in (918273, 55501, 2):  # 7, 5 and 3 apart
            previous = isolation.set_run_seed(run)
            try:
                assert_catches(facet, right, wrong)
            finally:
                isolation.set_run_seed(previous)


def test_returns_lays_the_inputs_out_as_a_caller_does_too():
    """A copy skipped only for a layout a caller makes (a transpose, whose first dimension
    has stride 1; a slice of a larger buffer, at an offset) and made for the checks' strided
    copies (every stride above one) passed a plain run and a held-out one: the inputs are
    laid out both ways, the tensor and the array alike."""
    new = facets.Returns(lambda device: facets.args(torch.arange(6.0).reshape(2, 3)))
    given = facets.Returns(lambda device: facets.args(np.arange(6.0).reshape(2, 3)))
    row = facets.Returns(lambda device: facets.args(torch.arange(6.0)))

    def skipped(x):
        return x[...] if not x.is_contiguous() and 1 in x.stride() else x.clone()

    def wrapped(array):
        caller = not array.flags.c_contiguous and array.itemsize in array.strides
        return torch.as_tensor(array) if caller else torch.tensor(array)

    def offset(x):
        return x[...] if x.storage_offset() else x.clone()

    cases = (
        (new, lambda x: x.clone(), skipped),
        (given, torch.tensor, wrapped),
        (row, lambda x: x.clone(), offset),
    )
    for run in (0, 918273):
        previous = isolation.set_run_seed(run)
        try:
            for facet, right, wrong in cases:
                assert_catches(facet, right, wrong)
        finally:
            isolation.set_run_seed(previous)


def test_returns_catches_an_inference_tensor_in_the_result():
    new = facets.Returns(lambda device: facets.args(torch.arange(4.0)))

    def inferred(x):  # under inference_mode: the caller cannot write into it afterwards
        with torch.inference_mode():
            return 1.0, x * 2

    def computed(x):
        with torch.inference_mode():
            y = x * 2
        return 1.0, y.clone()  # cloned outside: an ordinary tensor

    assert_catches(new, computed, inferred)


def test_returns_catches_views_of_one_split_output():
    # The parts of one split (chunk, unbind) are views that autograd refuses to write into
    # in place; one op per part, or parts cloned, give tensors the caller owns.
    new = facets.Returns(lambda device: facets.args(torch.arange(6.0, requires_grad=True)))

    def split(x):
        return dict(zip("ab", (x * 2).split([2, 4]), strict=True))

    def separate(x):
        return {"a": x[:2] * 2, "b": x[2:] * 2}

    def cloned(x):
        return {key: part.clone() for key, part in split(x).items()}

    assert_catches(new, separate, split)
    assert_catches(new, cloned, split)


def test_dtypes_catches_a_result_cached_by_the_tensor_s_id():
    facet = facets.Dtypes(
        lambda dtype, device: facets.args(torch.arange(6.0, dtype=dtype).reshape(3, 2)),
        oracle=lambda x: x.cumsum(0),
        dtypes=(torch.float32,),
    )
    cached = functools.lru_cache(lambda x: x.cumsum(0))  # keyed by id(x): stale once x changes
    assert_catches(facet, lambda x: x.cumsum(0), lambda x: cached(x).clone())


def test_changed_catches_a_result_cached_by_id_or_on_the_object():
    def make(device):
        return facets.args(nn.Linear(3, 2, device=device))

    def freeze(arguments):
        arguments.args[0].bias.requires_grad_(False)

    facet = facets.Changed(make, freeze)

    def right(model):
        return sum(p.numel() for p in model.parameters() if p.requires_grad)

    by_id: dict[int, int] = {}

    def cached(model):  # the count of the first call, for every later state of the model
        return by_id.setdefault(id(model), right(model))

    def kept(model):  # the same, kept on the model itself (a deep copy carries it along)
        if not hasattr(model, "_count"):
            model._count = right(model)
        return model._count

    assert_catches(facet, right, cached)
    assert_catches(facet, right, kept)
    # A change that leaves the result as it was cannot catch anything: the check says so.
    _, failed = outcomes(right, facets.Changed(make, lambda arguments: None))
    assert failed == ["right-changed"]


def test_returns_catches_an_array_or_a_list_handed_out_again():
    arrays: dict[tuple[int, ...], np.ndarray] = {}

    def kept_array(x):  # one buffer per shape, copied into
        out = arrays.setdefault(tuple(x.shape), np.empty(tuple(x.shape)))
        np.copyto(out, x.numpy())
        return out

    facet = facets.Returns(lambda device: facets.args(torch.arange(4.0)))
    assert_catches(facet, lambda x: x.numpy().copy(), kept_array)
    lists: dict[int, list[float]] = {}
    assert_catches(
        facet,
        lambda x: [x.sum().item()],
        lambda x: lists.setdefault(x.numel(), [x.sum().item()]),
    )


def test_number_catches_a_container_handed_out_again():
    facet = facets.Number(lambda device: facets.args(3), list)
    cached = functools.lru_cache(lambda n: [n] * 2)
    assert_catches(facet, lambda n: [n] * 2, cached)
    pair = facets.Number(lambda device: facets.args(3), tuple)
    kept = ([3], [4])
    assert_catches(pair, lambda n: ([n], [n + 1]), lambda n: kept)


def test_dtypes_calls_twice_on_other_values_of_the_same_shapes():
    make = lambda dtype, device: facets.args(torch.randn(4, 3, dtype=dtype))  # noqa: E731
    facet = facets.Dtypes(make, oracle=lambda x: x.sum(dim=1), dtypes=(torch.float32,))
    by_shape: dict[tuple[int, ...], torch.Tensor] = {}

    def cached(x):  # the first result for a shape, handed out for other values
        return by_shape.setdefault(tuple(x.shape), x.sum(dim=1))

    assert_catches(facet, lambda x: x.sum(dim=1), cached)
    buffers: dict[tuple[int, ...], torch.Tensor] = {}

    def kept(x):  # right values, in a tensor the next call overwrites
        out = buffers.setdefault(tuple(x.shape), x.new_empty(x.shape[0]))
        return torch.sum(x, dim=1, out=out)

    assert_catches(facet, lambda x: x.sum(dim=1), kept)
    pair = facets.Dtypes(
        make, oracle=lambda x: (x.sum(dim=1), x.sum(dim=1)), dtypes=(torch.float32,)
    )

    def shared(x):  # two results in one tensor
        total = x.sum(dim=1)
        return total, total

    assert_catches(pair, lambda x: (x.sum(dim=1), x.sum(dim=1)), shared)

    def unbound(x):  # two rows of one tensor: a write into one leaves the other as it is
        return tuple(torch.stack([x.sum(dim=1), x.sum(dim=1)]).unbind(0))

    assert_catches(pair, unbound, shared)
    windows = facets.Dtypes(make, oracle=lambda x: (x[:, 0:2], x[:, 1:3]), dtypes=(torch.float32,))

    def side_by_side(x):  # one storage, rows interleaved, no element in both
        both = torch.cat([x[:, 0:2], x[:, 1:3]], dim=1)
        return both[:, :2], both[:, 2:]

    def overlapping(x):  # two windows of one copy: column 1 is in both
        copy = x.clone()
        return copy[:, 0:2], copy[:, 1:3]

    assert_catches(windows, side_by_side, overlapping)


def test_other_values_reverse_the_rows_of_the_first_tensor_only():
    x, y = torch.arange(6.0).reshape(3, 2), torch.arange(3)
    other = facets._other_values(facets.args(torch.ones(1, 2), x, y=y))
    assert torch.equal(other.args[0], torch.ones(1, 2))  # one row: nothing to reverse
    assert torch.equal(other.args[1], x.flip(0))
    assert other.kwargs["y"] is y
    leaf = torch.ones(2, 2, requires_grad=True)
    (flipped,) = facets._other_values(facets.args(leaf)).args
    assert flipped.is_leaf and flipped.requires_grad


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


def test_seeded_catches_part_of_the_draws_from_a_stream_put_back_by_hand():
    """Half the draws from a copy of the stream, made by saving its state and putting it back
    (torch.get_rng_state / set_rng_state, the default generator's get_state / set_state),
    not by fork_rng, or in a generator given its state or its seed: the calls still differ
    and follow the caller's seed, yet the halves repeat one another (kata 29's dropout drops
    the same units in both halves)."""
    facet = facets.Seeded(lambda device: facets.args(8))

    def right(n):
        return torch.rand(n)

    def saved_and_put_back(n):
        state = torch.get_rng_state()
        first = torch.rand(n // 2)
        torch.set_rng_state(state)
        return torch.cat([first, torch.rand(n - n // 2)])

    def generator_state_put_back(n):
        state = torch.default_generator.get_state()
        first = torch.rand(n // 2)
        torch.default_generator.set_state(state)
        return torch.cat([first, torch.rand(n - n // 2)])

    def copied_into_a_generator(n):
        copy = torch.Generator().set_state(torch.get_rng_state())
        return torch.cat([torch.rand(n // 2, generator=copy), torch.rand(n - n // 2)])

    def seeded_alike(n):
        copy = torch.Generator().manual_seed(torch.initial_seed())
        return torch.cat([torch.rand(n // 2, generator=copy), torch.rand(n - n // 2)])

    for wrong in (saved_and_put_back, generator_state_put_back, copied_into_a_generator):
        assert_catches(facet, right, wrong)
    assert_catches(facet, right, seeded_alike)  # the stream's start, repeated at every call


def test_seeded_catches_part_of_the_draws_from_a_copy_of_the_generator_however_made():
    """A copy of the caller's stream made by copying the default generator itself
    (copy.deepcopy, copy.copy: its __reduce_ex__ reads its state), or by a method of it
    called through its class: no list of state readers names every way, so every method of
    the global generator but the neutral ones is refused while the call runs. Kata 12's
    PreActivationBlock with fc2's weight drawn from copy.deepcopy(torch.default_generator)
    taken before fc1 (fc2 repeats fc1's draws) passed a plain run and a held-out one."""
    facet = facets.Seeded(lambda device: facets.args(8))

    def right(n):
        return torch.rand(n)

    def deep_copied(n):
        stream = copy.deepcopy(torch.default_generator)
        return torch.cat([torch.rand(n // 2, generator=stream), torch.rand(n - n // 2)])

    def copied(n):
        stream = copy.copy(torch.default_generator)
        return torch.cat([torch.rand(n // 2, generator=stream), torch.rand(n - n // 2)])

    def through_the_class(n):
        stream = torch.Generator().set_state(torch.Generator.get_state(torch.default_generator))
        return torch.cat([torch.rand(n // 2, generator=stream), torch.rand(n - n // 2)])

    for wrong in (deep_copied, copied, through_the_class):
        assert_catches(facet, right, wrong)


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


def test_trains_catches_a_path_cut_that_leaves_every_parameter_a_gradient():
    class Residual(nn.Module):
        def __init__(self, cut):
            super().__init__()
            self.blocks = nn.ModuleList(nn.Linear(3, 3) for _ in range(2))
            self.cut = cut

        def forward(self, x):
            for block in self.blocks:
                x = (x.detach() if self.cut else x) + torch.tanh(block(x))
            return x

    facet = facets.Trains(
        lambda device: facets.args(),
        forward=lambda model, device: model(torch.randn(4, 3, device=device)),
    )
    assert_catches(facet, lambda: Residual(cut=False), lambda: Residual(cut=True))


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


# Functions whose float16/bfloat16 results the reference rounds once, though their Dtypes
# facet does not declare `once`: why a correct answer may round more than once.
CUDA_REDUCES = (
    "on CUDA the builtin may reduce in the 16-bit dtype (cuBLAS's reduced-precision "
    "reduction, the fused attention kernels): the reference itself rounds more there"
)
IN_THE_DTYPE = "the contract lets the arithmetic run in the 16-bit dtype, each step rounded"
NOT_ONCE: dict[tuple[str, str], str] = {
    ("q29_penalty_early_stopping", "dropout"): (
        "the contract leaves the dtype of the scale 1 / (1 - p) open (a scale in x's dtype "
        "rounds the kept values twice)"
    ),
    ("q03_vectorised_ops", "batched_scores"): CUDA_REDUCES,
    ("q06_gradients", "grad_of"): CALLERS + ": the rounding is its backward's",
    ("q06_gradients", "grads_per_loss"): CALLERS + ": the rounding is its backward's",
    ("q11_layer_shapes", "linear_forward(no bias)"): CUDA_REDUCES,
    ("q11_layer_shapes", "padded_attention"): CUDA_REDUCES,
    ("q11_layer_shapes", "padded_attention(causal)"): CUDA_REDUCES,
    ("q12_activations", "class_probabilities(loghalf)"): (
        "computing in float32 inside is allowed, not asked: F.log_softmax of the 16-bit "
        "logits is a correct answer"
    ),
    ("q22_masked_sequence_loss", "task_loss(regression_with_outliers)"): (
        "the builtin loss's own values, in the dtype"
    ),
    ("q22_masked_sequence_loss", "task_loss(multilabel)"): (
        "the builtin loss's own values, in the dtype"
    ),
    **{
        ("q22_masked_sequence_loss", name): (
            "the contract asks for no overflow and no underflow; rounding once is a hint "
            "(16-bit per-token losses summed in float32 are correct too)"
        )
        for name in (
            "masked_cross_entropy",
            "masked_cross_entropy(small losses)",
            "masked_cross_entropy(edges)",
        )
    },
    **{
        ("q30_grad_clipping", name): (
            "torch's norm of the gradients: the norm of the per-tensor norms, each rounded "
            "to the dtype"
        )
        for name in ("layer_grad_norms", "clip_grad_norm", "clip_grad_norm(L3)")
    },
    ("q31_init_depth", "activation_stds"): (
        "the stack's layers compute the activations in the dtype; the contract asks the stds "
        "to be finite where the exact ones fit"
    ),
    ("q47_custom_loss", "FocalLoss.forward(spread out)"): (
        "the loss is computed in logits' dtype (the contract): each step rounds"
    ),
    ("q47_custom_loss", "FocalLoss.forward"): (
        "the loss is computed in logits' dtype (the contract): each step rounds (the "
        "reference's single rounding on these logits is chance)"
    ),
}


@pytest.mark.parametrize("module", sorted(KATAS))
def test_results_the_reference_rounds_once_are_held_to_it(module):
    # A 16-bit Dtypes case compared within a few units of the dtype lets through an answer
    # that computes a step in the dtype (statistics, a sum, a second rounding) where the
    # contract computes in float32 and rounds once. Where the reference rounds once, the
    # facet declares `once`, or NOT_ONCE says why another correct answer may not.
    tests = reference_tests(module)
    loose, needless = [], []
    for function in tests.FACETS.functions:
        for facet in function.facets:
            if not isinstance(facet, facets.Dtypes):
                continue
            half = [dtype for dtype in facet.dtypes if dtype in facets.HALF]
            if not half or facet.once:
                continue
            with torch.random.fork_rng(devices=[]):  # the same draws at every run
                torch.manual_seed(0)
                once = all(facets.rounds_once(function, facet, dtype) for dtype in half)
            key = (module, function.name + (f"({facet.label})" if facet.label else ""))
            if once and key not in NOT_ONCE:
                loose.append(key[1])
            elif not once and key in NOT_ONCE:
                needless.append(key[1])
    assert not loose, (
        f"{loose}: the reference rounds these 16-bit results once, but the Dtypes facet allows "
        "more: declare once=True where the contract computes in float32 and rounds once, or "
        "say in NOT_ONCE why a correct answer may round more"
    )
    assert not needless, (
        f"{needless}: the reference does not round these once: take them off NOT_ONCE"
    )


def test_registered_catches_state_torch_does_not_see():
    facet = facets.Registered(
        lambda device: facets.args(3),
        forward=lambda module, device: module(torch.ones(2, 3, device=device)),
    )

    class Scaled(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.linear = nn.Linear(n, n)
            self.register_buffer("scale", torch.full((n,), 2.0))

        def forward(self, x):
            return self.linear(x) * self.scale

    class PlainTensor(Scaled):  # not in state_dict, not moved or cast by .to()
        def __init__(self, n):
            super().__init__(n)
            del self.scale
            self.scale = torch.full((n,), 2.0)

    class InAList(Scaled):  # a layer in a Python list: its parameters are not registered
        def __init__(self, n):
            super().__init__(n)
            self.layers = [nn.Linear(n, n)]

        def forward(self, x):
            return self.layers[0](super().forward(x))

    class Frozen(Scaled):
        def __init__(self, n):
            super().__init__(n)
            self.linear.bias.requires_grad_(False)

    class Float32(Scaled):  # whatever the default dtype
        def __init__(self, n):
            super().__init__(n)
            self.linear = nn.Linear(n, n, dtype=torch.float32)

        def forward(self, x):
            return self.linear(x.float()).to(x.dtype) * self.scale

    class Unsaved(Scaled):  # drawn at random and left out of the state_dict
        def __init__(self, n):
            super().__init__(n)
            self.register_buffer("scale", torch.rand(n), persistent=False)

    class ClassLevel(Scaled):  # one layer for every instance
        layer = nn.Linear(3, 3)

        def forward(self, x):
            return super().forward(self.layer.to(x.dtype)(x))

    shared = {}

    class Shared(Scaled):  # one buffer for every instance, registered in each
        def __init__(self, n):
            super().__init__(n)
            dtype = torch.get_default_dtype()
            self.register_buffer("scale", shared.setdefault(dtype, torch.full((n,), 2.0)))

    class ModeKept(Scaled):  # eval() does not reach the children
        def train(self, mode=True):
            self.training = mode
            return self

    class Twice(Scaled):  # one layer under two names: saved and loaded twice
        def __init__(self, n):
            super().__init__(n)
            self.parts = nn.ModuleList([self.linear])

    class KeepsOutput(Scaled):  # the forward leaves its output as a plain tensor attribute
        def forward(self, x):
            self.last = super().forward(x)
            return self.last

    wrongs = (PlainTensor, InAList, Frozen, Float32, Unsaved, ClassLevel, Shared, ModeKept, Twice)
    wrongs += (KeepsOutput,)
    for wrong in wrongs:
        assert_catches(facet, Scaled, wrong)
    tied = facets.Registered(
        lambda device: facets.args(3),
        forward=lambda module, device: module(torch.ones(2, 3, device=device)),
        shared=True,
    )
    assert_catches(tied, Twice, InAList)
    frozen = facets.Registered(
        lambda device: facets.args(3),
        forward=lambda module, device: module(torch.ones(2, 3, device=device)),
        frozen=lambda module: [module.linear.bias],
    )
    assert_catches(frozen, Frozen, InAList)


# What a caller hands over and could find written to: a tensor, an array, a module, an
# optimizer, a dataset.
CALLERS_OBJECTS = re.compile(
    r"\btorch\.(?:Tensor|nn\.modules|optim|utils\.data)\b|\bnumpy\.ndarray\b"
)

# (module, name) -> why a function given one declares no Unmodified.
NOT_UNMODIFIED: dict[tuple[str, str], str] = {
    ("q15_warmup_cosine", "warmup_cosine_scheduler"): (
        "a scheduler sets the optimizer's learning rates, by contract"
    ),
    ("q17_init_weights", "init_layer"): "sets the module's state, by contract",
    ("q17_init_weights", "init_weights"): "sets the model's state, by contract",
    ("q20_warmup_step_scheduler", "WarmupStepLR"): (
        "a scheduler sets the optimizer's learning rates, by contract"
    ),
    ("q34_debug_nonfinite", "nan_born_in_backward"): (
        "runs the caller's backward pass, which fills .grad by contract"
    ),
    ("q48_export_deploy", "GuardedScorer"): (
        "a module built from the two it is given: it holds them as its children, by contract"
    ),
    ("q25_dataset_loader", "make_loader"): "wraps the dataset in a loader: no item is read",
    ("q25_dataset_loader", "throughput_loader"): "wraps the dataset in a loader: no item is read",
    ("q30_grad_clipping", "clip_grad_norm"): "scales the gradients in place, by contract",
    ("q33_plateau_by_hand", "PlateauLR"): (
        "a scheduler sets the optimizer's learning rates, by contract"
    ),
    ("q41_reproducibility", "make_loader"): "wraps the dataset in a loader: no item is read",
    ("q44_fine_tuning", "FineTuner"): "freezes the backbone's parameters, by contract",
    ("q45_split_dataset", "split_dataset"): "wraps the dataset in Subsets: no item is read",
    ("q29_penalty_early_stopping", "EarlyStopping.restore_best"): (
        "loads the saved weights into the model, by contract"
    ),
    ("q50_data_parallel", "rank_loader"): "wraps the dataset in a loader: no item is read",
}


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_function_given_tensors_or_modules_declares_what_it_leaves_alone(module):
    # A write to the caller's tensor (x -= x.min(), labels[labels < 0] = 0, a flag set on
    # a module), even one undone before returning, shows only where a check looks at the
    # arguments after the call: every function given a tensor, an array, a module, an
    # optimizer or a dataset declares Unmodified (its `inputs` naming what the contract
    # leaves alone, where it updates the rest), or says why not in NOT_UNMODIFIED.
    # A class's method declared on its own (name="Cls.method": a module's forward) is held
    # to it too, by the method's signature.
    tests = importlib.import_module(f"katas.{module}_test")
    stub = stub_module(module)
    missing, needless = [], []
    entries = dict(functions_by_name(tests))
    for function in tests.FACETS.functions:
        if "." in function.name and inspect.isclass(function.target):
            entries.setdefault(function.name.partition("(")[0], []).append(function)
    for name, functions in entries.items():
        if all(not function.facets for function in functions):
            continue  # facets.none: its reason says which tests cover it
        owner, _, method = name.partition(".")
        target = getattr(stub, owner)
        target = getattr(target, method) if method else target
        parameters = inspect.signature(target).parameters.values()
        given = any(CALLERS_OBJECTS.search(str(parameter.annotation)) for parameter in parameters)
        declared = any(
            isinstance(facet, facets.Unmodified)
            for function in functions
            for facet in function.facets
        )
        # A class's reason stands for its constructor: its methods answer for themselves.
        own = any(
            isinstance(facet, facets.Unmodified)
            for function in functions
            if method or "." not in function.name
            for facet in function.facets
        )
        if (module, name) in NOT_UNMODIFIED:
            needless += [name] if own or not given else []
        elif given and not declared:
            missing.append(name)
    assert not missing, (
        f"{module}: {missing} are given tensors or modules, but no facet checks what the call "
        "leaves of them: declare facets.Unmodified (with `inputs` where the contract updates "
        "some), or say why not in NOT_UNMODIFIED"
    )
    assert not needless, f"{module}: {needless}: take them off NOT_UNMODIFIED"


def test_functions_without_unmodified_are_functions_of_the_stubs():
    for module, name in NOT_UNMODIFIED:
        owner, _, method = name.partition(".")
        stub = stub_module(module)
        assert hasattr(stub, owner), (module, name)
        assert not method or hasattr(getattr(stub, owner), method), (module, name)


# An Edges label that names a size-1 case: "(size 1)", "(N = 1)", "one class", "a single window".
SIZE_1 = re.compile(r"\(size 1\)|\b[A-Z] = 1\b|\bone class\b|\ba single\b")

# (module, name) -> why a function given tensors and returning one runs no size-1 case.
SIZE_1_UNCHECKED: dict[tuple[str, str], str] = {
    ("q01_fit_line", "fit_line"): "returns a slope and an intercept: no dimension of x to drop",
    ("q01_fit_line", "fit_until"): "returns a slope and an intercept: no dimension of x to drop",
    ("q06_gradients", "grads_per_loss"): "autograd's gradients, shaped like the params",
    ("q07_dynamic_graph", "apply_until_small"): "returns the caller's layer's output or x",
    ("q08_no_grad_detach", "evaluate"): "returns the caller's model's output",
    ("q11_layer_shapes", "padded_attention"): (
        "scaled_dot_product_attention does the work (the rule), on q, k and v as they are"
    ),
    ("q16_text_classifier", "encode"): "returns the caller's layer's output",
    ("q19_sgd_by_hand", "race_in_a_valley"): "one final point per optimizer, of scales' shape",
    ("q22_masked_sequence_loss", "task_loss"): "a mean loss: a 0-dim result",
    ("q22_masked_sequence_loss", "masked_cross_entropy"): "a mean loss: a 0-dim result",
    ("q26_to_device", "place_for_training"): "moves the caller's tensors as they are",
    ("q26_to_device", "copy_to"): "moves the caller's tensor as it is",
    ("q30_grad_clipping", "clip_grad_norm"): "returns the total norm: a 0-dim result",
    ("q31_init_depth", "activation_stds"): "one std per activation layer: no input dimension",
    ("q31_init_depth", "train_hidden_units"): "returns the trained weights, of fixed shape",
    ("q35_tensor_creation", "as_tensor_shared"): "converts data as it is, 0-dim among its edges",
    ("q35_tensor_creation", "zeros_for"): "the shape is the caller's argument",
    ("q35_tensor_creation", "scalar_like"): "a 0-dim result",
    ("q37_mixed_precision", "amp_train_step"): "returns the loss: a 0-dim result",
    ("q38_compile_graph_breaks", "clipped_residual"): "x @ weight keeps x's rows: no reshape",
    ("q40_eval_metrics", "confusion_matrix"): "a [C, C] result, C the caller's num_classes",
    ("q40_eval_metrics", "evaluate"): "accuracy and F1 are numbers, the matrix [C, C]",
    ("q46_norm_layers", "batch_norm"): (
        "(C,) statistics, which broadcast over x as [1, C, 1...] squeezed or not"
    ),
    ("q49_gpu_memory", "checkpointed_forward"): "returns the caller's blocks' output",
}


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_function_from_tensors_to_a_tensor_runs_a_size_1_case(module):
    # x.squeeze() drops the batch dimension at a batch of one (and a feature dimension at one
    # feature), which no larger case shows: every function given tensors that returns one
    # runs a size-1 case (Shapes with "size 1", or an Edges label SIZE_1 finds), or
    # SIZE_1_UNCHECKED says why not (or names the kata's own test of it).
    tests = importlib.import_module(f"katas.{module}_test")
    stub = stub_module(module)
    missing, needless = [], []
    for name, functions in functions_by_name(tests).items():
        target = getattr(stub, name)
        if inspect.isclass(target) or all(not function.facets for function in functions):
            continue
        signature = inspect.signature(target)
        given = any("torch.Tensor" in str(p.annotation) for p in signature.parameters.values())
        returns = "torch.Tensor" in str(signature.return_annotation)
        declared = [facet for function in functions for facet in function.facets]
        run = any(
            isinstance(facet, facets.Shapes) and "size 1" in facet.shapes for facet in declared
        ) or any(
            isinstance(facet, facets.Edges) and any(map(SIZE_1.search, facet.calls))
            for facet in declared
        )
        why = SIZE_1_UNCHECKED.get((module, name))
        if why is not None:
            needless += [name] if run or not (given and returns) else []
            if why.startswith("test_"):
                assert callable(getattr(tests, why, None)), f"{module} has no {why}"
        elif given and returns and not run:
            missing.append(name)
    assert not missing, (
        f'{module}: {missing} take and return tensors but run no size-1 case: add "size 1" to '
        'their Shapes, or an Edges case labelled "... (size 1)", or say why not in '
        "SIZE_1_UNCHECKED"
    )
    assert not needless, f"{module}: {needless}: take them off SIZE_1_UNCHECKED"


def test_functions_without_a_size_1_case_are_functions_of_the_stubs():
    for module, name in SIZE_1_UNCHECKED:
        assert hasattr(stub_module(module), name), (module, name)


# (module, function, Dtypes label, where) -> why the float64 case passes a setting that
# float32 holds exactly.
SETTINGS_HELD_BY_FLOAT32: dict[tuple[str, str, str, str], str] = {
    ("q01_fit_line", "fit_until", "", "argument 2"): (
        "a negative tolerance, never met: the loop runs its steps, the setting takes no part in "
        "the arithmetic"
    ),
    ("q29_penalty_early_stopping", "dropout", "", "argument 1"): (
        "training=False: the identity, p takes no part (test_dropout_in_training_keeps_the_dtype "
        "checks the scale in float64, with p = 0.3)"
    ),
    ("q29_penalty_early_stopping", "dropout", "p=1", "argument 1"): (
        "p = 1 drops everything: the edge, whose result is zeros"
    ),
    ("q30_grad_clipping", "clip_grad_norm", "", "norm_type"): (
        "a norm's order: the whole numbers torch's callers use, a power float32 holds"
    ),
    ("q30_grad_clipping", "clip_grad_norm", "L3", "norm_type"): (
        "a norm's order: the whole numbers torch's callers use, a power float32 holds"
    ),
    ("q30_grad_clipping", "clip_grad_norm, the gradients", "", "norm_type"): (
        "a norm's order: the whole numbers torch's callers use, a power float32 holds"
    ),
}


def _settings(value, path, depth=0):
    """(where, value) of each Python float a call is given: as an argument, in a tuple, a list
    or a dict, as a plain attribute of one of the kata's own modules (FocalLoss's gamma), or
    in an optimizer's param groups."""
    if isinstance(value, bool):
        return
    if isinstance(value, float):
        yield path, value
    elif depth > 3:
        return
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from _settings(item, f"{path}[{index}]", depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _settings(item, f"{path}[{key!r}]", depth + 1)
    elif isinstance(value, nn.Module):
        for name, module in value.named_modules():
            if type(module).__module__.startswith("torch."):
                continue  # torch's layers compute with their settings themselves
            for key, item in vars(module).items():
                if isinstance(item, float) and not key.startswith("_"):
                    yield f"{path}.{name + '.' if name else ''}{key}", item
    elif isinstance(value, torch.optim.Optimizer):
        for index, group in enumerate(value.param_groups):
            for key, item in group.items():
                yield from _settings(item, f"{path}.param_groups[{index}][{key!r}]", depth + 1)


def _held_by_float32(value: float) -> bool:
    return math.isfinite(value) and value != 0 and float(np.float32(value)) == value


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_float64_case_passes_settings_that_float32_does_not_hold(module):
    # lr = 0.1, betas, eps, a weight decay, a temperature turned into a float32 tensor (a
    # 0-dim tensor joins float64 ones without promoting them) or multiplied in float32 is
    # rounded to float32: it shows in a float64 result only where float32 does not hold the
    # setting. Each float64 Dtypes case passes every nonzero float setting (and leaves out
    # none whose default float32 holds) with a value float32 rounds, or
    # SETTINGS_HELD_BY_FLOAT32 says why not.
    tests = reference_tests(module)
    held, listed = [], set()
    for function in tests.FACETS.functions:
        for facet in function.facets:
            if not isinstance(facet, facets.Dtypes) or torch.float64 not in facet.dtypes:
                continue
            arguments = facet.make(torch.float64, CPU)
            found = [
                *(
                    item
                    for index, value in enumerate(arguments.args)
                    for item in _settings(value, f"argument {index}")
                ),
                *(
                    item
                    for key, value in arguments.kwargs.items()
                    for item in _settings(value, key)
                ),
            ]
            if not inspect.isclass(function.target) and function.call is function.target:
                signature = inspect.signature(function.target)
                given = signature.bind_partial(*arguments.args, **arguments.kwargs).arguments
                found += [
                    (f"{name} (its default)", parameter.default)
                    for name, parameter in signature.parameters.items()
                    if name not in given and isinstance(parameter.default, float)
                ]
            for where, value in found:
                key = (module, function.name, facet.label, where)
                if key in SETTINGS_HELD_BY_FLOAT32:
                    listed.add(key)
                elif _held_by_float32(value):
                    label = f"({facet.label})" if facet.label else ""
                    held.append(f"{function.name}{label}: {where} = {value!r}")
    assert not held, (
        f"{module}: float64 cases pass settings that float32 holds exactly, so a setting "
        f"rounded to float32 (a float32 tensor of it) goes unseen: {held}; pick values float32 "
        "rounds (0.3, 1.3, 2.9), or say why not in SETTINGS_HELD_BY_FLOAT32"
    )
    stale = {key for key in SETTINGS_HELD_BY_FLOAT32 if key[0] == module} - listed
    assert not stale, f"{module}: {sorted(stale)}: take them off SETTINGS_HELD_BY_FLOAT32"


# (module, name) -> why a function given tensors that returns one declares no Dtypes.
DTYPES_UNDECLARED: dict[tuple[str, str], str] = {
    ("q11_layer_shapes", "lstm_final_states"): (
        "the caller's LSTM computes in its own dtype: the function only selects its states"
    ),
    ("q16_text_classifier", "encode"): (
        "the caller's layer computes in its own dtype: the function runs it in a mode"
    ),
    ("q26_to_device", "place_for_training"): (
        "moves the caller's tensors as they are: test_keeps_dtypes checks their dtypes"
    ),
    ("q35_tensor_creation", "as_tensor_shared"): (
        "the dtype is the caller's argument: the kata's own tests check each"
    ),
    ("q37_mixed_precision", "amp_train_step"): (
        "autocast chooses the dtypes: the loss is float32 by contract, its own tests check it"
    ),
    ("q40_eval_metrics", "evaluate"): "accuracy and F1 are numbers, the matrix int64 counts",
    ("q42_indexing", "batch_histogram"): (
        "int64 labels in, int64 counts out, by contract: its tests check the dtype, past 2**24 "
        "too (test_batch_histogram_counts_past_float32_precision)"
    ),
    ("q48_export_deploy", "run_onnx"): "ONNX Runtime computes in the exported model's dtype",
    ("q50_data_parallel", "global_mean"): (
        "a collective over processes: the kata's own tests run it in a process group"
    ),
}


@pytest.mark.parametrize("module", sorted(KATAS))
def test_a_function_from_tensors_to_tensors_declares_dtypes(module):
    # A result made in the default dtype, an input turned float (x.float()), a float64
    # computed in float32: each shows only where a case runs in another dtype under the
    # other default. Every function given a tensor that returns one (or a tuple of them)
    # declares Dtypes, or DTYPES_UNDECLARED says why not.
    stub = stub_module(module)
    entries = functions_by_name(importlib.import_module(f"katas.{module}_test"))

    def from_tensors_to_tensors(name: str) -> bool:
        target = getattr(stub, name)
        if inspect.isclass(target):
            return False
        signature = inspect.signature(target)
        given = any("torch.Tensor" in str(p.annotation) for p in signature.parameters.values())
        return given and "torch.Tensor" in str(signature.return_annotation)

    missing, needless = gaps(
        module,
        entries,
        from_tensors_to_tensors,
        lambda name: declares(entries[name], facets.Dtypes),
        DTYPES_UNDECLARED,
    )
    assert not missing, (
        f"{module}: {missing} take and return tensors but declare no Dtypes: declare "
        "facets.Dtypes (result= where the result's dtype is another), or say why not in "
        "DTYPES_UNDECLARED"
    )
    assert not needless, f"{module}: {needless}: take them off DTYPES_UNDECLARED"


@pytest.mark.parametrize(
    "exempt",
    [
        NO_REFUSED_CALL,
        NO_FORWARD_MODES,
        NOT_REGISTERED,
        NOT_CALLED_TWICE,
        NOT_CHANGED,
        DTYPES_UNDECLARED,
    ],
    ids=["refused call", "forward modes", "registered", "called twice", "changed", "dtypes"],
)
def test_each_reason_to_leave_a_rule_out_names_a_function_of_the_stubs(exempt):
    unknown = [key for key in exempt if not hasattr(stub_module(key[0]), key[1])]
    assert not unknown, f"{unknown}: no such public name in the stubs"


class _Scaled:
    """A scaled copy of x, with its factor set per instance (right) or on the class (wrong)."""

    factor = 1.0

    def __init__(self, x, factor=2.0, on_the_class=False):
        if on_the_class:
            type(self).factor = factor  # shared: a second instance changes the first
        else:
            self.factor = factor
        self.value = x * self.factor


_CALLS: list[int] = []


def _counted(x):
    """Right values, but a module-level counter that every later call sees."""
    _CALLS.append(1)
    return x * 2


_GENERATOR = torch.Generator()
_BUFFER = torch.zeros(3)
_UNUSED = torch.Generator(), torch.zeros(3)


def _shuffled_by_a_kept_generator(x):
    """Right values (a seeded shuffle, the same every call), but from a module-level
    generator that every call reseeds: two callers, two threads among them, share it."""
    _GENERATOR.manual_seed(1)
    return x[torch.randperm(len(x), generator=_GENERATOR)]


def _doubled_in_a_kept_buffer(x):
    """Right values, but written into a module-level buffer first: a later call overwrites
    what an earlier one left there."""
    _BUFFER.copy_(x * 2)
    return _BUFFER.clone()


def _doubled_beside_a_kept_generator(x):
    """Right: the module keeps a generator and a tensor, and no call touches them."""
    return x * 2 + 0 * _UNUSED[1]


_SEEN: weakref.WeakSet[torch.Tensor] = weakref.WeakSet()
_BY_INPUT: weakref.WeakKeyDictionary[torch.Tensor, torch.Tensor] = weakref.WeakKeyDictionary()
_RECENT: collections.deque[torch.Tensor] = collections.deque(maxlen=4)


def _marked_in_a_weak_set(x):
    """Right values, but the inputs seen are kept in a module-level WeakSet, as an answer
    that skips a module it has treated before (a second call then does nothing) keeps them."""
    _SEEN.add(x)
    return x * 2


def _cached_by_input(x):
    """Right values, but each result kept in a module-level WeakKeyDictionary by its input."""
    return _BY_INPUT.setdefault(x, x * 2).clone()


def _kept_in_a_deque(x):
    """Right values, but the recent results kept in a module-level deque."""
    _RECENT.append(x * 2)
    return _RECENT[-1].clone()


_NESTED: dict[str, list[int]] = {"calls": []}


def _counted_in_a_nested_list(x):
    """Right values, but a counter kept in a list that a module-level dict holds."""
    _NESTED["calls"].append(1)
    return x * 2


def _counted_in_a_mutable_default(x, _calls=[]):  # noqa: B006 (the mistake shown)
    """Right values, but a counter kept in a mutable default argument."""
    _calls.append(1)
    return x * 2


def _counter():
    calls = []

    def count(x):
        calls.append(1)
        return x * 2

    return count


_counted_in_a_closure = _counter()


@functools.cache
def _seen_ids(key):
    return set()


def _marked_through_an_lru_cache(x):
    """Right values, but the inputs seen kept in a set an lru_cache hands out."""
    _seen_ids(0).add(id(x))
    return x * 2


@functools.cache
def _doubled(values):
    return tuple(v * 2 for v in values)


def _cached_by_an_lru_cache(x):
    """Right values, but each result kept in an lru_cache's table by the input's values."""
    return torch.tensor(_doubled(tuple(x.tolist())), dtype=x.dtype)


class _Registry:
    """A module-level object of the answer's own class, and a class attribute of another."""

    seen: typing.ClassVar[list[int]] = []

    def __init__(self):
        self.calls = 0


_REGISTRY = _Registry()


def _counted_on_an_object_of_its_own(x):
    _REGISTRY.calls += 1
    return x * 2


def _counted_on_a_class_of_its_own(x):
    _Registry.seen.append(1)
    return x * 2


def _doubled_beside_its_own_helpers(x):
    """Right: the module keeps functions, a class, an object of it and a cache, and no call
    changes what any of them holds."""
    return x * 2 + 0 * len(_REGISTRY.__class__.__name__)


def test_every_call_leaves_state_the_module_keeps_anywhere_as_it_was():
    """A counter or cache the module keeps is state a call leaves for the next wherever it is
    kept: a list inside a dict, a mutable default, a closure, an lru_cache's table, an
    object or a class of the answer's own. Only plain containers and the attribute's own
    identity were looked at, so each of these passed every facet."""
    facet = facets.Unmodified(lambda device: facets.args(torch.arange(3.0)))
    for function, fails in (
        (_counted_in_a_nested_list, True),
        (_counted_in_a_mutable_default, True),
        (_counted_in_a_closure, True),
        (_marked_through_an_lru_cache, True),
        (_cached_by_an_lru_cache, True),
        (_counted_on_an_object_of_its_own, True),
        (_counted_on_a_class_of_its_own, True),
        (_doubled_beside_its_own_helpers, False),
    ):
        for case in facets.declare(facets.of(function, facet, name="f")).cases():
            if fails:
                with pytest.raises(AssertionError, match=r"changed .* of the (class|module)"):
                    facets.run(case, CPU)
            else:
                facets.run(case, CPU)


def test_every_call_leaves_the_class_and_the_module_as_they_were():
    # A setting kept on the class is shared by every instance, and a module-level cache,
    # counter, generator or buffer makes one call depend on the calls before: every facet's
    # call catches each of them, a generator reseeded with the same seed every call too.
    facet = facets.Unmodified(lambda device: facets.args(torch.arange(3.0)))
    on_the_class = facets.of(
        _Scaled, facet, call=lambda x: _Scaled(x, on_the_class=True), name="_Scaled"
    )
    per_instance = facets.of(_Scaled, facet, call=lambda x: _Scaled(x), name="_Scaled")
    for function, fails in (
        (per_instance, False),
        (on_the_class, True),
        (facets.of(_counted, facet), True),
        (facets.of(_shuffled_by_a_kept_generator, facet), True),
        (facets.of(_doubled_in_a_kept_buffer, facet), True),
        (facets.of(_marked_in_a_weak_set, facet), True),
        (facets.of(_cached_by_input, facet), True),
        (facets.of(_kept_in_a_deque, facet), True),
        (facets.of(_doubled_beside_a_kept_generator, facet), False),
    ):
        for case in facets.declare(function).cases():
            _Scaled.factor = 1.0
            if fails:
                with pytest.raises(AssertionError, match=r"changed .* of the (class|module)"):
                    facets.run(case, CPU)
            else:
                facets.run(case, CPU)


def _run_twice_nested(model: nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """A second forward of `model`, run from a parametrization its first forward reads (no
    pre-hook runs for it), the model put back as it was after."""
    from torch.nn.utils import parametrize

    state: dict[str, typing.Any] = {"reads": 0, "peek": None}

    class Peek(nn.Module):
        def forward(self, weight: torch.Tensor) -> torch.Tensor:
            state["reads"] += 1
            if state["reads"] == 2:  # the first is register_parametrization's own check
                state["peek"] = model.forward(x)
            return weight

    parametrize.register_parametrization(model, "weight", Peek())
    try:
        return model(x), state["peek"]
    finally:
        parametrize.remove_parametrizations(model, "weight", leave_parametrized=False)


def test_a_forward_run_again_inside_its_first_run_is_counted():
    """The forward entered again while it runs is a second run, unless it goes up the MRO."""
    model = nn.Linear(3, 2)
    hooks: dict[str, typing.Callable[..., typing.Any]] = {"the model": lambda m, args: None}
    model.register_forward_pre_hook(hooks["the model"])
    with facets._forward_runs(model, hooks) as runs:
        _, peek = _run_twice_nested(model, torch.randn(4, 3))
    assert peek is not None
    assert runs["the model"] == 2, runs


def test_a_forward_that_calls_super_forward_is_one_run():
    class Base(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x + 1

    class Middle(Base):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return super().forward(x) * 2

    class Top(Middle):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return super().forward(x) - 1

    model = Top()
    hooks: dict[str, typing.Callable[..., typing.Any]] = {"the model": lambda m, args: None}
    model.register_forward_pre_hook(hooks["the model"])
    with facets._forward_runs(model, hooks) as runs:
        model(torch.ones(2))
        Middle.forward(model, torch.ones(2))
    assert runs["the model"] == 2, runs
