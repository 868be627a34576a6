from collections import OrderedDict

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from katas.q44_fine_tuning import FineTuner, make_optimizer
from torch_katas import facets
from torch_katas.testing import check_tensor, seed_for, skip_unless_supported

NUM_FEATURES, NUM_CLASSES = 8, 3


def pretrained_backbone(device, dtype=torch.float32):
    """Three blocks with BatchNorm (and a Dropout), whose running statistics have moved
    away from their initial values, as after pretraining."""
    backbone = nn.Sequential(
        nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.ReLU()),
        nn.Sequential(nn.Linear(16, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.2)),
        nn.Sequential(nn.Linear(16, NUM_FEATURES), nn.BatchNorm1d(NUM_FEATURES), nn.ReLU()),
    ).to(device, dtype)
    with torch.no_grad():
        for _ in range(3):
            backbone(torch.randn(32, 6, device=device, dtype=dtype) * 2 + 1)
    return backbone


def frozen_and_trained_blocks(backbone, train_last_block):
    blocks = list(backbone)
    return (blocks[:-1], blocks[-1:]) if train_last_block else (blocks, [])


def snapshot(blocks):
    """Every parameter and buffer (running stats, num_batches_tracked) of the blocks."""
    return {
        f"backbone[{index}].{name}": value.detach().clone()
        for index, block in enumerate(blocks)
        for name, value in block.state_dict().items()
    }


def batch(device, dtype=torch.float32, n=16):
    x = torch.randn(n, 6, device=device, dtype=dtype)
    return x, torch.randint(NUM_CLASSES, (n,), device=device)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_keeps_the_backbone_and_adds_a_head_beside_it(device, dtype):
    skip_unless_supported(device, dtype)
    backbone = pretrained_backbone(device, dtype)
    model = FineTuner(backbone, NUM_FEATURES, NUM_CLASSES)
    assert model.backbone is backbone, "keep the backbone itself as self.backbone (no copy)"
    assert isinstance(model.head, nn.Linear), "the head is an nn.Linear"
    check_tensor(
        model.head.weight,
        shape=(NUM_CLASSES, NUM_FEATURES),
        dtype=dtype,
        device=device,
        name="model.head.weight",
    )
    x, _ = batch(device, dtype)
    check_tensor(model(x), shape=(16, NUM_CLASSES), dtype=dtype, device=device, name="model(x)")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_a_backbone_whose_first_block_has_no_parameters(device, dtype):
    # The head takes the dtype and device of the backbone's parameters, wherever they sit:
    # a backbone may open with a block that holds none (Flatten, Dropout, Identity).
    skip_unless_supported(device, dtype)
    backbone = nn.Sequential(nn.Flatten(), *pretrained_backbone(device, dtype))
    model = FineTuner(backbone, NUM_FEATURES, NUM_CLASSES)
    check_tensor(
        model.head.weight,
        shape=(NUM_CLASSES, NUM_FEATURES),
        dtype=dtype,
        device=device,
        name="model.head.weight",
    )
    x, _ = batch(device, dtype)
    check_tensor(model(x), shape=(16, NUM_CLASSES), dtype=dtype, device=device, name="model(x)")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_head_is_initialised_as_nn_linear_creates_it(device, dtype):
    # The head is the only thing drawn: after the same seed it equals the nn.Linear built
    # on the backbone's device and dtype (no re-initialisation of its own, xavier or other).
    skip_unless_supported(device, dtype)
    backbone = pretrained_backbone(device, dtype)
    seed = seed_for(0)
    torch.manual_seed(seed)
    model = FineTuner(backbone, NUM_FEATURES, NUM_CLASSES)
    torch.manual_seed(seed)
    expected = nn.Linear(NUM_FEATURES, NUM_CLASSES, device=device, dtype=dtype)
    pairs = zip(model.head.named_parameters(), expected.parameters(), strict=True)
    for (name, parameter), want in pairs:
        assert torch.equal(parameter.detach(), want.detach()), (
            f"model.head.{name} differs from nn.Linear({NUM_FEATURES}, {NUM_CLASSES}) built "
            "after the same seed: keep the initialisation nn.Linear gives it, created on the "
            "backbone's device and dtype"
        )


@pytest.mark.parametrize("train_last_block", [False, True], ids=["frozen", "last-block"])
def test_freezes_the_backbone(device, train_last_block):
    backbone = pretrained_backbone(device)
    model = FineTuner(backbone, NUM_FEATURES, NUM_CLASSES, train_last_block=train_last_block)
    frozen, trained = frozen_and_trained_blocks(backbone, train_last_block)
    for index, block in enumerate(frozen):
        for name, parameter in block.named_parameters():
            assert not parameter.requires_grad, (
                f"backbone[{index}].{name} should be frozen (requires_grad=False)"
            )
    for block in trained:
        assert all(p.requires_grad for p in block.parameters()), (
            "with train_last_block=True the last block's parameters stay trainable"
        )
    assert all(p.requires_grad for p in model.head.parameters()), "the head must be trainable"


@pytest.mark.parametrize("train_last_block", [False, True], ids=["frozen", "last-block"])
def test_frozen_part_stays_in_eval_mode(device, train_last_block):
    backbone = pretrained_backbone(device)
    model = FineTuner(backbone, NUM_FEATURES, NUM_CLASSES, train_last_block=train_last_block)
    frozen, trained = frozen_and_trained_blocks(backbone, train_last_block)
    for when, call in [
        ("right after construction", lambda: model),
        ("after model.eval()", model.eval),
        ("after model.train()", model.train),
    ]:
        returned = call()
        assert returned is model, f"{when}: train() and eval() return the model itself"
        for block in frozen:
            for module in block.modules():
                assert not module.training, (
                    f"{when}: {module} in the frozen part is in training mode; override "
                    "train() so that the frozen part goes back to eval mode every time"
                )
        expected = when != "after model.eval()"
        for module in [*model.head.modules(), *(m for b in trained for m in b.modules())]:
            assert module.training == expected, (
                f"{when}: {module} should follow the model's mode (training={expected})"
            )
        assert model.training == expected


@pytest.mark.parametrize("train_last_block", [False, True], ids=["frozen", "last-block"])
def test_a_training_step_leaves_the_frozen_part_alone(device, train_last_block):
    backbone = pretrained_backbone(device)
    model = FineTuner(backbone, NUM_FEATURES, NUM_CLASSES, train_last_block=train_last_block)
    optimizer = make_optimizer(model, lr=0.1)
    model.train()
    frozen, trained = frozen_and_trained_blocks(backbone, train_last_block)
    frozen_before, trained_before = snapshot(frozen), snapshot(trained)
    head_before = model.head.weight.detach().clone()
    x, y = batch(device)
    optimizer.zero_grad()
    F.cross_entropy(model(x), y).backward()
    optimizer.step()
    frozen_after = snapshot(frozen)
    for name, value in frozen_before.items():
        assert torch.equal(frozen_after[name], value), (
            f"{name} changed in a training step although it is frozen"
            + (" (BatchNorm statistics update in training mode)" if "running" in name else "")
            + (
                " (num_batches_tracked counts forward passes in training mode)"
                if "num_batches" in name
                else ""
            )
        )
    assert not torch.equal(model.head.weight, head_before), "the head should have been trained"
    trained_after = snapshot(trained)
    for name, value in trained_before.items():
        if name.endswith(("weight", "running_mean")):
            assert not torch.equal(trained_after[name], value), (
                f"{name} did not change; the last block trains normally (train mode, in the "
                "optimizer) when train_last_block=True"
            )


def test_a_module_added_to_the_model_follows_its_mode(device):
    # "All other modules follow train(mode)": any the model holds, not only the head and the
    # last block (train() lets nn.Module.train set every module, then re-freezes the part).
    model = FineTuner(pretrained_backbone(device), NUM_FEATURES, NUM_CLASSES)
    model.extra = nn.Sequential(nn.Dropout(0.5)).to(device)
    for call, mode in [(model.eval, False), (model.train, True)]:
        call()
        left = [name or "extra" for name, m in model.extra.named_modules() if m.training != mode]
        assert not left, (
            f"after model.{call.__name__}() {left} of a module added to the model kept the other "
            "mode: every module outside the frozen part follows train(mode)"
        )


def test_a_block_unfrozen_after_construction_gets_gradients(device):
    # Gradual unfreezing: requires_grad set again on a block of the frozen part. It stays in
    # eval mode (the part is fixed at construction), and the forward computes its gradients,
    # so an optimizer built now (make_optimizer puts it in) trains it.
    backbone = pretrained_backbone(device)
    model = FineTuner(backbone, NUM_FEATURES, NUM_CLASSES).train()
    backbone[1].requires_grad_(True)
    x, y = batch(device)
    F.cross_entropy(model(x), y).backward()
    missing = [
        f"backbone[1].{name}" for name, p in backbone[1].named_parameters() if p.grad is None
    ]
    assert not missing, (
        f"{missing} require grad again but got no gradient: forward(x) is head(backbone(x)) on "
        "autograd's graph (not under torch.no_grad() for the frozen part), so parameters "
        "unfrozen since construction train"
    )
    assert all(p.grad is None for p in backbone[0].parameters()), "backbone[0] is still frozen"


def test_the_input_gets_its_gradient_through_the_frozen_backbone(device):
    # "All on autograd's graph": with every parameter of the backbone frozen, the features
    # still depend on x, and a gradient with respect to the input (a saliency map, an
    # adversarial example) goes through the frozen part. Features detached, or computed
    # under torch.no_grad(), while no backbone parameter requires grad, cut it.
    backbone = pretrained_backbone(device)
    model = FineTuner(backbone, NUM_FEATURES, NUM_CLASSES).train()
    x = torch.randn(4, 6, device=device, requires_grad=True)
    weights = torch.randn(4, NUM_CLASSES, device=device)
    (grad,) = torch.autograd.grad(model(x), x, weights, allow_unused=True)
    assert grad is not None, (
        "model(x) has no gradient with respect to x: forward(x) is head(backbone(x)) on "
        "autograd's graph, even while the whole backbone is frozen (no detach(), no "
        "torch.no_grad() around it)"
    )
    again = x.detach().clone().requires_grad_()
    (expected,) = torch.autograd.grad(model.head(backbone(again)), again, weights)
    torch.testing.assert_close(grad, expected)


def test_frozen_parameters_get_no_gradients(device):
    backbone = pretrained_backbone(device)
    model = FineTuner(backbone, NUM_FEATURES, NUM_CLASSES).train()
    x, y = batch(device)
    F.cross_entropy(model(x), y).backward()
    assert all(p.grad is None for p in backbone.parameters()), (
        "frozen parameters should get no gradient: set requires_grad=False on them"
    )
    assert model.head.weight.grad is not None


def test_a_batch_of_one_in_training_mode(device):
    model = FineTuner(pretrained_backbone(device), NUM_FEATURES, NUM_CLASSES).train()
    x, _ = batch(device, n=1)
    out = model(x)  # BatchNorm in training mode would refuse one value per channel
    check_tensor(out, shape=(1, NUM_CLASSES), device=device, name="model(x)")


@pytest.mark.parametrize("train_last_block", [False, True], ids=["frozen", "last-block"])
def test_optimizer_holds_the_trainable_parameters_only(device, train_last_block):
    model = FineTuner(
        pretrained_backbone(device), NUM_FEATURES, NUM_CLASSES, train_last_block=train_last_block
    )
    optimizer = make_optimizer(model, lr=0.05)
    assert isinstance(optimizer, torch.optim.Optimizer)
    held = [p for group in optimizer.param_groups for p in group["params"]]
    trainable = [p for p in model.parameters() if p.requires_grad]
    assert not any(not p.requires_grad for p in held), (
        "the optimizer holds frozen parameters; give it only those with requires_grad=True"
    )
    assert len(held) == len({id(p) for p in held}), "a parameter appears twice in the optimizer"
    assert {id(p) for p in held} == {id(p) for p in trainable}, (
        "every trainable parameter (head, and last block when it trains) belongs in the optimizer"
    )


def test_a_last_block_that_arrives_frozen_and_in_eval_trains(device):
    backbone = pretrained_backbone(device).requires_grad_(False).eval()
    model = FineTuner(backbone, NUM_FEATURES, NUM_CLASSES, train_last_block=True)
    frozen = [name for name, p in backbone[-1].named_parameters() if not p.requires_grad]
    assert not frozen, (
        f"backbone[-1].{frozen} arrived with requires_grad=False and must train: set "
        "requires_grad=True on the last block's parameters"
    )
    in_eval = [name or "backbone[-1]" for name, m in backbone[-1].named_modules() if not m.training]
    assert not in_eval, (
        f"{in_eval} arrived in eval mode and stayed there; the new model is in training mode, "
        "so the trainable last block trains (call self.train() at the end of __init__)"
    )
    frozen_modules = [m for block in list(backbone)[:-1] for m in block.modules()]
    assert model.head.training and not any(m.training for m in frozen_modules), (
        "the head trains and the frozen blocks stay in eval"
    )


def test_optimizer_is_sgd_with_momentum_0_9(device):
    model = FineTuner(pretrained_backbone(device), NUM_FEATURES, NUM_CLASSES, True)
    optimizer = make_optimizer(model, lr=0.05)
    assert isinstance(optimizer, torch.optim.SGD), f"use torch.optim.SGD, not {optimizer}"
    momenta = [group["momentum"] for group in optimizer.param_groups]
    assert momenta == [0.9] * len(momenta), f"every group needs momentum 0.9, got {momenta}"
    # SGD's own defaults otherwise: weight decay would also shrink the parameters.
    others = {
        key: group[key]
        for group in optimizer.param_groups
        for key, default in (("weight_decay", 0), ("dampening", 0), ("nesterov", False))
        if group[key] != default
    }
    assert not others, f"{others}: keep SGD's defaults apart from momentum 0.9"


def test_a_parameter_free_last_block_follows_the_models_mode(device):
    # The frozen part is fixed at construction, by position: a trainable last block with no
    # parameters (a Dropout) still trains, and a frozen block unfrozen later stays in eval.
    backbone = nn.Sequential(pretrained_backbone(device), nn.Dropout(0.3))
    model = FineTuner(backbone, NUM_FEATURES, NUM_CLASSES, train_last_block=True)
    backbone[0][-1].requires_grad_(True)  # unfrozen by hand, still in the frozen part
    for when, call, mode in [("train()", model.train, True), ("eval()", model.eval, False)]:
        call()
        assert backbone[-1].training == mode, (
            f"after model.{when} the last block (a Dropout, no parameters) has training="
            f"{backbone[-1].training}: with train_last_block=True it follows the model's mode, "
            "whether or not it has parameters: choose the frozen part by position"
        )
        left = [name for name, m in backbone[0].named_modules() if m.training]
        assert not left, (
            f"after model.{when} {left} of the frozen part are in training mode; the frozen "
            "part is fixed at construction, whatever requires_grad says later"
        )


def test_optimizer_holds_a_module_added_to_the_model(device):
    model = FineTuner(pretrained_backbone(device), NUM_FEATURES, NUM_CLASSES)
    model.extra = nn.Linear(NUM_CLASSES, NUM_CLASSES).to(device)  # trainable, by default
    optimizer = make_optimizer(model, lr=0.05)
    lr_of = {id(p): group["lr"] for group in optimizer.param_groups for p in group["params"]}
    missing = [name for name, p in model.extra.named_parameters() if lr_of.get(id(p)) != 0.05]
    assert not missing, (
        f"extra.{missing} requires grad and is not in the optimizer with lr: every trainable "
        "parameter of the model (model.parameters()) is in, not only the backbone's and head's"
    )


def test_optimizer_holds_a_shared_parameter_once(device):
    # Weight tying: a module added to the model reuses the head's weight, one Parameter held
    # by two modules. model.parameters() gives it once; gathered module by module, it comes
    # twice, and SGD would step it twice (and warn of a duplicate).
    model = FineTuner(pretrained_backbone(device), NUM_FEATURES, NUM_CLASSES)
    model.tied = nn.Linear(NUM_FEATURES, NUM_CLASSES, bias=False).to(device)
    model.tied.weight = model.head.weight
    optimizer = make_optimizer(model, lr=0.05)
    held = [p for group in optimizer.param_groups for p in group["params"]]
    shared = sum(p is model.head.weight for p in held)
    assert shared == 1, (
        f"the head's weight, shared with another module of the model, is in the optimizer "
        f"{shared} times: every trainable parameter once (model.parameters() gives each once)"
    )


@pytest.mark.parametrize("last_block_lr, expected", [(None, 0.005), (0.02, 0.02), (0.0, 0.0)])
def test_learning_rate_per_group(device, last_block_lr, expected):
    backbone = pretrained_backbone(device)
    model = FineTuner(backbone, NUM_FEATURES, NUM_CLASSES, train_last_block=True)
    optimizer = make_optimizer(model, lr=0.05, last_block_lr=last_block_lr)
    lr_of = {id(p): group["lr"] for group in optimizer.param_groups for p in group["params"]}
    for name, parameter in model.head.named_parameters():
        assert lr_of[id(parameter)] == pytest.approx(0.05), f"head.{name}: learning rate lr"
    for name, parameter in backbone[-1].named_parameters():
        assert lr_of[id(parameter)] == pytest.approx(expected), (
            f"backbone[-1].{name}: learning rate should be {expected} "
            "(last_block_lr, or lr / 10 when it is None; 0.0 is a learning rate too, so "
            "test `is None` rather than `last_block_lr or lr / 10`)"
        )


def test_optimizer_follows_requires_grad_after_more_unfreezing(device):
    # Gradual unfreezing: a middle block is made trainable after construction, and a
    # new optimizer is built; the head's bias is frozen by hand.
    backbone = pretrained_backbone(device)
    model = FineTuner(backbone, NUM_FEATURES, NUM_CLASSES, train_last_block=True)
    backbone[1].requires_grad_(True)
    x, y = batch(device)
    F.cross_entropy(model(x), y).backward()  # the bias keeps a .grad once frozen
    model.head.bias.requires_grad_(False)
    optimizer = make_optimizer(model, lr=0.05)
    lr_of = {id(p): group["lr"] for group in optimizer.param_groups for p in group["params"]}
    names = {id(p): name for name, p in model.named_parameters()}
    trainable = {names[id(p)] for p in model.parameters() if p.requires_grad}
    held = {names.get(key, "a parameter not in the model") for key in lr_of}
    assert held == trainable, (
        f"the optimizer holds {sorted(held - trainable)} too many and misses "
        f"{sorted(trainable - held)}: choose the parameters by requires_grad as they are "
        "when make_optimizer is called, not by where they sit in the model or whether "
        "they hold a .grad from earlier steps"
    )
    unfrozen = [names[id(p)] for p in backbone[1].parameters() if lr_of[id(p)] != 0.05]
    assert not unfrozen, f"{unfrozen} should be in the group with lr (only backbone[-1] is not)"


def test_a_last_block_unfrozen_after_construction_gets_last_block_lr(device):
    # Built with the whole backbone frozen, then the last block unfrozen by hand (gradual
    # unfreezing): it trains now, so its parameters move with last_block_lr, not lr.
    backbone = pretrained_backbone(device)
    model = FineTuner(backbone, NUM_FEATURES, NUM_CLASSES, train_last_block=False)
    backbone[-1].requires_grad_(True)
    optimizer = make_optimizer(model, lr=0.05)
    lr_of = {id(p): group["lr"] for group in optimizer.param_groups for p in group["params"]}
    for name, parameter in backbone[-1].named_parameters():
        assert id(parameter) in lr_of and lr_of[id(parameter)] == pytest.approx(0.005), (
            f"backbone[-1].{name} was unfrozen after construction: it trains, so it belongs "
            "in the group with last_block_lr (lr / 10 here), whatever train_last_block was"
        )


def test_the_last_block_of_a_backbone_with_named_blocks(device):
    # backbone[-1] is the last block whatever the Sequential calls it: blocks built from an
    # OrderedDict have names, not indices, in named_parameters().
    blocks = list(pretrained_backbone(device))
    backbone = nn.Sequential(OrderedDict(stem=blocks[0], body=blocks[1], top=blocks[2]))
    model = FineTuner(backbone, NUM_FEATURES, NUM_CLASSES, train_last_block=True)
    optimizer = make_optimizer(model, lr=0.05)
    lr_of = {id(p): group["lr"] for group in optimizer.param_groups for p in group["params"]}
    wrong = {
        name: lr_of.get(id(p))
        for name, p in backbone.top.named_parameters()
        if lr_of.get(id(p)) != pytest.approx(0.005)
    }
    assert not wrong, (
        f"the last block's parameters {sorted(wrong)} have learning rates {wrong}, not "
        "last_block_lr (lr / 10 here): find them as backbone[-1].parameters(), not by a "
        "name such as 'backbone.2.'"
    )


# ---------------------------------------------------------------- facets


def pretrained(device):
    backbone = nn.Sequential(nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6)), nn.Linear(6, 5))
    return facets.args(backbone.to(device), 5, 3, train_last_block=True)


FACETS = facets.declare(
    facets.of(
        FineTuner,
        facets.DefaultDevice(pretrained, where="input"),
        # The new head initialised from the caller's generator, as nn.Linear draws it.
        facets.Seeded(pretrained, drawn=lambda arguments, model: list(model.head.parameters())),
        facets.Trains(
            pretrained,
            forward=lambda model, device: model(torch.randn(4, 4, device=device)),
        ),
        facets.Registered(
            pretrained,
            forward=lambda model, device: model(torch.randn(4, 4, device=device)),
            frozen=lambda model: model.backbone[:-1].parameters(),  # train_last_block=True
        ),
        facets.Defaults(
            values={"train_last_block": False},
            key=lambda arguments, model: [p.requires_grad for p in model.parameters()],
        ),
    ),
    facets.none(make_optimizer, "its groups and rates are its contract: its own tests"),
)
test_facets = FACETS.test
