"""Families of torch builtins that compute the same thing, for the kata rules that forbid one.

A rule that forbids `torch.logsumexp` and not `torch.logcumsumexp` (whose last element is the
same number) is evaded by taking the family's other member. So a rule names a family, defined
here once: every way torch offers to compute it, as the Python functions `forbidden_ops`
matches by name (a method or module that calls one is matched too: `Tensor.softmax`,
`nn.Softmax`) and the aten operators behind them, which it refuses at the dispatcher however
they are reached. A family that computes another one inside includes it: log_softmax gives a
log-sum-exp (x - log_softmax(x)), so the log-sum-exp family holds the softmax family.

    with forbidden_ops(*LOG_SUM_EXP.ops, reason=..., aten=LOG_SUM_EXP.aten):
        answer(...)

Name only builtins a correct answer never needs: every op of a family is refused.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.nn.functional as F

__all__ = [
    "BINARY_CROSS_ENTROPY",
    "COUNTING",
    "CROSS_ENTROPY",
    "EINSUM",
    "GELU",
    "HUBER",
    "LINEAR",
    "LOG_SUM_EXP",
    "NORMALISATION",
    "PAIRWISE_DISTANCES",
    "POOLING",
    "SIGMOID",
    "SILU",
    "SOFTMAX",
    "SOFTPLUS",
    "OpFamily",
]


@dataclass(frozen=True)
class OpFamily:
    """The Python functions (matched by name) and the aten operators of one computation."""

    ops: tuple[Callable, ...]
    aten: tuple[str, ...] = ()

    def __or__(self, other: OpFamily) -> OpFamily:
        return OpFamily(
            tuple(dict.fromkeys(self.ops + other.ops)), tuple(dict.fromkeys(self.aten + other.aten))
        )


def _present(owner: object, *names: str) -> tuple[Callable, ...]:
    """The functions of `owner` with these names that this torch has."""
    return tuple(getattr(owner, name) for name in names if hasattr(owner, name))


# softmax(x) and log_softmax(x), under every name: softmin(x) is softmax(-x), the sparse and
# masked versions are the dense one on stored or unmasked elements, and attention is a softmax
# of the scores times the values (with values = the identity, the softmax itself).
SOFTMAX = OpFamily(
    (
        F.softmax,
        F.log_softmax,
        F.softmin,
        torch.special.softmax,
        torch.special.log_softmax,
        torch.sparse.softmax,
        torch.sparse.log_softmax,
        F.scaled_dot_product_attention,
        F.multi_head_attention_forward,
        *_present(torch.masked, "softmax", "log_softmax", "softmin", "logsumexp"),
    ),
    (
        "_softmax",
        "softmax",
        "_log_softmax",
        "log_softmax",
        "_sparse_softmax",
        "_sparse_log_softmax",
        "_masked_softmax",
        "scaled_dot_product_attention",
        "_scaled_dot_product_attention_math",
        "_scaled_dot_product_attention_math_for_mps",
        "_scaled_dot_product_flash_attention",
        "_scaled_dot_product_flash_attention_for_cpu",
        "_scaled_dot_product_efficient_attention",
        "_scaled_dot_product_cudnn_attention",
        "_scaled_dot_product_fused_attention_overrideable",
        "_flash_attention_forward",
        "_efficient_attention_forward",
        "_native_multi_head_attention",
        "_transformer_encoder_layer_fwd",
    ),
)

# cross-entropy and the negative log-likelihood it ends with (F.cross_entropy computes a
# log-sum-exp inside: logsumexp(x) - x[target]).
CROSS_ENTROPY = OpFamily(
    (F.cross_entropy, F.nll_loss),
    ("cross_entropy_loss", "nll_loss", "nll_loss_nd", "nll_loss_forward", "nll_loss2d_forward"),
)

# log(sum(exp(x))): directly, as the last element of the running version, by pairs (in base e
# or 2), or from a log-softmax or a cross-entropy.
LOG_SUM_EXP = (
    OpFamily(
        (
            torch.logsumexp,
            torch.special.logsumexp,
            torch.logcumsumexp,
            torch.logaddexp,
            torch.logaddexp2,
        ),
        ("logsumexp", "logcumsumexp", "_logcumsumexp", "logaddexp", "logaddexp2"),
    )
    | SOFTMAX
    | CROSS_ENTROPY
)

# softplus(x) = log(1 + exp(x)) = logaddexp(0, x) = -logsigmoid(-x); the binary
# cross-entropy from logits, which is softplus(x) at a target of 0; the soft-margin losses,
# log(1 + exp(-y x)), softplus(x) at a label y = -1 (the multi-label one through logsigmoid);
# and mish(x) = x tanh(softplus(x)), from which softplus is atanh(mish(x) / x).
SOFTPLUS = (
    OpFamily(
        (
            F.softplus,
            F.logsigmoid,
            F.binary_cross_entropy_with_logits,
            F.soft_margin_loss,
            F.multilabel_soft_margin_loss,
            F.mish,
        ),
        (
            "softplus",
            "log_sigmoid",
            "log_sigmoid_forward",
            "binary_cross_entropy_with_logits",
            "soft_margin_loss",
            "mish",
        ),
    )
    | LOG_SUM_EXP
)

# The binary cross-entropy, from probabilities or from logits.
BINARY_CROSS_ENTROPY = OpFamily((F.binary_cross_entropy,), ("binary_cross_entropy",)) | SOFTPLUS

# sigmoid(x) = 1 / (1 + exp(-x)), also spelled expit.
SIGMOID = OpFamily((torch.sigmoid, torch.special.expit, F.sigmoid), ("sigmoid",))

GELU = OpFamily((F.gelu,), ("gelu",))

# silu(x) = x * sigmoid(x), also called swish; the gated linear unit glu([a, b]) = a * sigmoid(b)
# is silu at a = b = x.
SILU = OpFamily((F.silu, F.glu), ("silu", "glu"))

# The Huber loss, and the smooth L1 loss, which is the Huber loss divided by its beta.
HUBER = OpFamily(
    (F.huber_loss, F.smooth_l1_loss),
    ("huber_loss", "huber_loss_backward", "smooth_l1_loss", "smooth_l1_loss_backward"),
)

# Distances between the rows of two sets: all pairs at once, pair by pair (broadcast to all
# pairs), or within one set.
PAIRWISE_DISTANCES = OpFamily(
    (torch.cdist, F.pairwise_distance, F.pdist),
    ("cdist", "_cdist_forward", "_euclidean_dist", "pairwise_distance", "pdist", "_pdist_forward"),
)

# Pooling over windows, in any number of dimensions: a 2-D pool is a 3-D one over a view with a
# dimension of size 1 in front (kernel (1, k, k)), or two 1-D pools one after the other; the
# Lp pools are an average pool of x ** p (p = inf is the max); and the windows themselves, cut
# out by unfold (im2col), are a pool's first half.
_POOLS = tuple(
    f"{kind}_pool{dims}d"
    for kind in ("max", "avg", "adaptive_max", "adaptive_avg")
    for dims in (1, 2, 3)
)
POOLING = OpFamily(
    tuple(
        dict.fromkeys(
            _present(
                F,
                *_POOLS,
                *(f"{kind}_pool{dims}d" for kind in ("lp", "fractional_max") for dims in (1, 2, 3)),
                *(f"{pool}_with_indices" for pool in _POOLS if "max" in pool),
                "fractional_max_pool2d_with_indices",
                "fractional_max_pool3d_with_indices",
                "unfold",
            )
            + _present(torch, *_POOLS)
            + (torch.Tensor.unfold,)
        )
    ),
    (
        *_POOLS,
        *(f"max_pool{dims}d_with_indices" for dims in (1, 2, 3)),
        "_adaptive_avg_pool2d",
        "_adaptive_avg_pool3d",
        "fractional_max_pool2d",
        "fractional_max_pool3d",
        "mkldnn_max_pool2d",
        "mkldnn_max_pool3d",
        "mkldnn_adaptive_avg_pool2d",
        "quantized_max_pool1d",
        "quantized_max_pool2d",
        "quantized_max_pool3d",
        "_mps_max_pool2d",  # MPS builds only
        "im2col",
        "unfold",
    ),
)

# Einstein summation.
EINSUM = OpFamily((torch.einsum,), ("einsum",))

# y = x W^T + b in one call.
LINEAR = OpFamily((F.linear,), ("linear",))

# Counting values into bins: by value, by range, or by a one-hot encoding summed.
COUNTING = OpFamily(
    (torch.bincount, torch.histc, torch.histogram, torch.histogramdd, F.one_hot),
    (
        "bincount",
        "histc",
        "histogram",
        "one_hot",
        "_histogramdd_bin_edges",
        "_histogramdd_from_bin_cts",
        "_histogramdd_from_bin_tensors",
    ),
)

# Normalisation layers' builtins (rms_norm of a centred x is a layer norm).
NORMALISATION = OpFamily(
    _present(
        torch,
        "batch_norm",
        "native_batch_norm",
        "batch_norm_stats",
        "batch_norm_elemt",
        "layer_norm",
        "native_layer_norm",
        "group_norm",
        "native_group_norm",
        "instance_norm",
        "rms_norm",
    ),
    (
        "batch_norm",
        "native_batch_norm",
        "_native_batch_norm_legit",
        "_native_batch_norm_legit_no_training",
        "_native_batch_norm_legit_functional",
        "_batch_norm_with_update",
        "_batch_norm_no_update",
        "_batch_norm_impl_index",
        "cudnn_batch_norm",
        "miopen_batch_norm",
        "batch_norm_stats",
        "batch_norm_elemt",
        "layer_norm",
        "native_layer_norm",
        "group_norm",
        "native_group_norm",
        "instance_norm",
        "rms_norm",
        "_fused_rms_norm",
    ),
)
