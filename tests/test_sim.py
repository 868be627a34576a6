"""The simulated accelerator: what runs on it like on a GPU, what fails on it like on a GPU,
and how the plugin offers it."""

import copy
import io
import pickle
import textwrap
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from torch_katas import devices
from torch_katas.devices import sim

pytestmark = pytest.mark.skipif(
    not devices.available("sim"), reason=f"no simulated device: {sim.unavailable()}"
)
SAME_DEVICE = "Expected all tensors to be on the same device"


@pytest.fixture
def dev():
    assert sim.register() is None
    return torch.device("sim")


def test_tensors_made_or_moved_there_hold_the_cpu_values(dev):
    x = torch.arange(6.0).reshape(2, 3)
    on_sim = x.to(dev)
    assert on_sim.device.type == "sim" and on_sim.shape == (2, 3)
    assert torch.arange(6.0, device=dev).shape == (6,)
    assert torch.tensor([[1, 2]], device=dev).tolist() == [[1, 2]]
    result = (on_sim * 2 + 1).sum(dim=0)
    assert result.device.type == "sim"
    torch.testing.assert_close(result.cpu(), (x * 2 + 1).sum(dim=0))
    assert (on_sim + torch.tensor(1.0)).device.type == "sim", "0-dim CPU tensors mix, as on CUDA"
    assert on_sim[torch.tensor([1])].device.type == "sim", "CPU indices work, as on CUDA"


def test_a_cpu_tensor_meeting_a_sim_tensor_fails_with_pytorchs_message(dev):
    x = torch.ones(4, 3, device=dev)
    with pytest.raises(RuntimeError, match=SAME_DEVICE):
        x + torch.zeros(4, 3)
    with pytest.raises(RuntimeError, match=SAME_DEVICE):
        x @ torch.eye(3)
    with pytest.raises(RuntimeError, match=SAME_DEVICE):
        F.cross_entropy(torch.randn(4, 5, device=dev), torch.tensor([0, 1, 2, 3]))
    with pytest.raises(IndexError, match="indices should be either on cpu or on the same"):
        torch.zeros(4)[torch.tensor([1], device=dev)]
    with pytest.raises(TypeError, match="can't convert sim:0 device type tensor to numpy"):
        x.numpy()
    with pytest.raises(RuntimeError, match="Expected a 'sim' device type for generator"):
        torch.randperm(4, generator=torch.Generator(), device=dev)


def test_autograd_and_optimizers_match_the_cpu(dev):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    copy = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    copy.load_state_dict(model.state_dict())
    copy.to(dev)
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    for net, inputs, targets in ((model, x, y), (copy, x.to(dev), y.to(dev))):
        optimizer = torch.optim.AdamW(net.parameters(), lr=0.1)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1)
        for _ in range(3):
            optimizer.zero_grad()
            F.mse_loss(net(inputs), targets).backward()
            nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
    for expected, actual in zip(model.parameters(), copy.parameters(), strict=True):
        assert actual.device.type == "sim" and actual.grad.device.type == "sim"
        torch.testing.assert_close(actual.cpu(), expected)


def test_layers_with_state_and_randomness(dev):
    norm = nn.BatchNorm1d(3).to(dev)
    norm(torch.randn(5, 3, device=dev))
    assert norm.running_mean.device.type == "sim"
    conv = nn.Conv2d(1, 2, 3)
    x = torch.randn(1, 1, 5, 5)
    torch.testing.assert_close(conv.to(dev)(x.to(dev)).cpu(), conv.cpu()(x))
    with torch.random.fork_rng():  # forks the current accelerator's state, sim's here
        dropped = F.dropout(torch.ones(1000, device=dev), 0.5)
    assert dropped.device.type == "sim" and 300 < int((dropped == 0).sum()) < 700
    # Tied weights stay one parameter when the model moves, as on a GPU.
    tied = nn.Sequential(nn.Embedding(4, 2), nn.Linear(2, 4, bias=False))
    tied[1].weight = tied[0].weight
    tied.to(dev)
    assert tied[1].weight is tied[0].weight


@pytest.mark.parametrize("kind", [nn.LSTM, nn.GRU, nn.RNN])
def test_recurrent_layers_run_there_forward_and_backward(dev, kind):
    # On an accelerator torch runs them as fused kernels that exist for CUDA alone; on
    # `sim`, as torch's decomposition, which must agree with the CPU's kernels.
    torch.manual_seed(0)
    layer = kind(3, 4, num_layers=2, bidirectional=True, batch_first=True)
    x = torch.randn(2, 5, 3, requires_grad=True)
    moved = copy.deepcopy(layer).to(dev)
    x_dev = x.detach().to(dev).requires_grad_()
    (out, _), (out_dev, _) = layer(x), moved(x_dev)
    out.sum().backward()
    out_dev.sum().backward()
    assert out_dev.device.type == "sim" and x_dev.grad.device.type == "sim"
    torch.testing.assert_close(out_dev.cpu(), out.detach())
    torch.testing.assert_close(x_dev.grad.cpu(), x.grad)
    for expected, actual in zip(layer.parameters(), moved.parameters(), strict=True):
        torch.testing.assert_close(actual.grad.cpu(), expected.grad)


def test_loader_batches_moved_there(dev):
    loader = DataLoader(TensorDataset(torch.arange(10.0), torch.arange(10)), batch_size=4)
    for inputs, targets in loader:
        inputs, targets = inputs.to(dev), targets.to(dev)
        assert inputs.device.type == targets.device.type == "sim"


def test_saved_tensors_load_back_there_with_weights_only(dev):
    buffer = io.BytesIO()
    torch.save({"w": torch.arange(3.0, device=dev)}, buffer)
    buffer.seek(0)
    assert torch.load(buffer, weights_only=True)["w"].device.type == "sim"
    buffer.seek(0)
    loaded = torch.load(buffer, weights_only=True, map_location="cpu")["w"]
    assert loaded.device.type == "cpu" and loaded.tolist() == [0.0, 1.0, 2.0]


def test_autocast_runs_matrix_products_in_16_bit(dev):
    layer = nn.Linear(3, 2).to(dev)
    with torch.autocast(device_type="sim", dtype=torch.bfloat16):
        out = layer(torch.randn(4, 3, device=dev))
        total = out.float().sum()
    assert out.dtype == torch.bfloat16 and total.dtype == torch.float32


def test_torch_compile_runs_there(dev):
    def f(x, w):
        return torch.relu(x @ w).sum()

    x, w = torch.randn(4, 3, device=dev), torch.randn(3, 2, device=dev)
    torch._dynamo.reset()
    try:
        compiled = torch.compile(f, backend="aot_eager")(x, w)
    finally:
        torch._dynamo.reset()
    assert compiled.device.type == "sim"
    torch.testing.assert_close(compiled.cpu(), f(x, w).cpu())


def test_pinned_memory_is_only_for_cpu_tensors(dev):
    pinned = torch.arange(4.0).pin_memory()
    assert pinned.is_pinned() and pinned.pin_memory() is pinned, "pinning twice is a no-op"
    assert pinned[1:].is_pinned(), "a view of pinned memory is pinned"
    assert not torch.arange(4.0).is_pinned()
    moved = pinned.to(dev, non_blocking=True)
    assert moved.device.type == "sim" and not moved.is_pinned()
    with pytest.raises(RuntimeError, match="only dense CPU tensors can be pinned"):
        moved.pin_memory()


def test_autocast_rules_reach_composite_ops_and_backward(dev):
    model = nn.Sequential(nn.Linear(3, 4), nn.LayerNorm(4), nn.Linear(4, 2)).to(dev)
    x, targets = torch.randn(5, 3, device=dev), torch.tensor([0, 1, 1, 0, 1], device=dev)
    with torch.autocast(device_type="sim", dtype=torch.float16):
        hidden = model[0](x)
        normed = model[1](hidden)
        logits = model[2](normed)
        loss = F.cross_entropy(logits, targets)
    assert (hidden.dtype, normed.dtype, logits.dtype) == (
        torch.float16,
        torch.float32,
        torch.float16,
    )
    assert loss.dtype == torch.float32
    loss.backward()
    assert all(
        p.grad.dtype == torch.float32 and p.grad.device.type == "sim" for p in model.parameters()
    )


def test_saved_parameters_and_modules_load_back_as_they_were(dev):
    model = nn.Linear(3, 2).to(dev)
    buffer = io.BytesIO()
    torch.save(model, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer, weights_only=False)
    assert isinstance(loaded.weight, nn.Parameter) and loaded.weight.device.type == "sim"
    torch.testing.assert_close(loaded.weight.cpu(), model.weight.cpu())
    copied = copy.deepcopy(model)
    assert isinstance(copied.weight, nn.Parameter) and copied.weight.device.type == "sim"
    restored = pickle.loads(pickle.dumps(torch.arange(3.0, device=dev)))
    assert restored.device.type == "sim" and restored.tolist() == [0.0, 1.0, 2.0]


# ------------------------------------------------------------------ kata answers on sim

ROOT = Path(__file__).resolve().parents[1]


def kata_failures(run_pytest_inline, tmp_path, name, source):
    """Run a kata's tests on sim against an answer file; the failed reports."""
    answer = tmp_path / f"{name}.py"
    answer.write_text(textwrap.dedent(source))
    kata = name.partition("__")[0]
    reports = run_pytest_inline(
        str(ROOT / "katas" / f"{kata}_test.py"), "--answer-file", str(answer), "--device", "sim"
    )
    assert reports, f"no test of {kata} ran"
    return [report.nodeid for report in reports if report.failed]


def test_numpy_with_force_is_a_correct_kata_2_answer_on_sim(run_pytest_inline, tmp_path):
    source = """
        from solutions.q02_numpy_bridge import to_tensor  # the rest as in the reference


        def to_numpy(t):
            return t.numpy(force=True)  # detach, copy to the CPU, convert


        def to_numpy_copy(t):
            return t.numpy(force=True).copy()
    """
    assert kata_failures(run_pytest_inline, tmp_path, "q02_numpy_bridge__force", source) == []


def test_drawing_on_the_device_with_a_cpu_generator_fails_kata_45_on_sim(
    run_pytest_inline, tmp_path
):
    # torch.randperm(n, generator=cpu_generator, device=labels.device) raises on CUDA.
    source = """
        import torch
        from torch.utils.data import Subset

        from solutions.q45_split_dataset import split_dataset, split_sizes


        def stratified_split(dataset, labels, fractions, seed):
            if labels.dim() != 1 or len(labels) != len(dataset):
                raise ValueError("labels must be 1-D, one per item")
            split_sizes(len(dataset), fractions)
            generator = torch.Generator().manual_seed(seed)
            splits = [[] for _ in fractions]
            for label in torch.unique(labels).tolist():
                members = torch.nonzero(labels == label).flatten()
                drawn = torch.randperm(len(members), generator=generator, device=labels.device)
                order = members[drawn]
                start = 0
                for split, size in zip(splits, split_sizes(len(members), fractions)):
                    split.extend(order[start : start + size].tolist())
                    start += size
            return [Subset(dataset, indices) for indices in splits]
    """
    failed = kata_failures(run_pytest_inline, tmp_path, "q45_split_dataset__device_draw", source)
    assert any("stratified" in nodeid for nodeid in failed), failed


# ------------------------------------------------------------------ the plugin


@pytest.fixture
def kata_project(kata_harness):
    pytester = kata_harness
    pytester.makepyfile(
        device_test="""
        import pytest
        import torch

        def test_keeps_the_device(device):
            x = torch.ones(3, device=device)
            assert (x + torch.ones(3, device=device)).device.type == device.type

        def test_makes_a_cpu_tensor(device):
            x = torch.ones(3, device=device)
            x + torch.ones(3)

        @pytest.mark.not_on_sim("needs a CUDA-only API")
        def test_marked(device):
            pass
        """
    )
    return pytester


def without_gpu() -> None:
    if devices.present() != ["cpu", "sim"]:
        pytest.skip(f"this machine's default devices are {devices.present()}")


def test_default_devices_without_a_gpu_are_cpu_and_sim(kata_project):
    without_gpu()
    result = kata_project.runpytest("-v", "-rs")
    result.stdout.fnmatch_lines(
        [
            "torch-katas: devices cpu, sim (simulated accelerator: device checks only, "
            "CPU speed); not found: cuda, mps"
        ]
    )
    result.stdout.fnmatch_lines_random(
        [
            "*test_keeps_the_device?cpu? PASSED*",
            "*test_keeps_the_device?sim? PASSED*",
            "*test_makes_a_cpu_tensor?cpu? PASSED*",
            "*test_makes_a_cpu_tensor?sim? FAILED*",
            "*test_marked?cpu? PASSED*",
            "*test_marked?sim? SKIPPED*",
            "*not on the simulated device: needs a CUDA-only API*",
        ]
    )


def test_device_sim_chooses_it_alone(kata_project):
    result = kata_project.runpytest("--device", "sim", "-k", "keeps", "-v")
    result.stdout.fnmatch_lines(["*test_keeps_the_device?sim? PASSED*"])
    result.assert_outcomes(passed=1)


def test_without_the_extension_point_sim_is_absent_and_says_why(kata_project, monkeypatch):
    monkeypatch.setattr(sim, "unavailable", lambda: "torch 2.0 lacks the extension point")
    result = kata_project.runpytest("-k", "keeps")
    result.stdout.fnmatch_lines(["*not found: *sim (torch 2.0 lacks the extension point)*"])
    assert "sim]" not in result.stdout.str()
    assert result.ret == pytest.ExitCode.OK
    result = kata_project.runpytest("--device", "sim")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--device sim: sim is not available*lacks the extension point*"])
