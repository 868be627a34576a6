"""Kata 12: activation functions from primitives.

An activation is the elementwise nonlinearity between layers; without one, a stack of
Linear layers collapses into a single linear map. torch.nn offers them as modules
(nn.GELU()) and functions (F.gelu). Writing them from tensor primitives shows what they
are, and where a formula that is right on paper breaks in floating point: exp overflows to
inf for inputs above ~88 in float32, and an inf anywhere in the graph can turn a gradient
into nan even where the forward value looks fine.

- GELU(x) = x Φ(x), with Φ the standard normal CDF: Φ(x) = (1 + erf(x / √2)) / 2.
  The tanh approximation: 0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³))).
- SiLU(x) = x σ(x), with σ the logistic sigmoid (also called swish).
- softplus(x) = log(1 + exp(β x)) / β, a smooth ReLU.

Task: write the three with tensor operations, matching torch's versions in values and in
gradients over the whole float range. All three compute float16 and bfloat16 input in
float32 and round the result once to the input's dtype, as torch does.
"""

import torch


def gelu(x: torch.Tensor, approximate: str = "none") -> torch.Tensor:
    """GELU of every element of x, as F.gelu(x, approximate=approximate) computes it.

    - x: a floating tensor of any shape (including empty), on any device.
    - approximate: "none" for the exact form with erf, "tanh" for the tanh approximation.
    - Returns a tensor of x's shape, dtype and device; gradients flow to x. x is not modified.
    - float16 and bfloat16 are computed in float32 and rounded once to x's dtype, values
      and gradients, as torch does: natively, float16's x**3 overflows above about 40 (a
      nan gradient), and bfloat16 loses bits at every step.
    - Raises ValueError if approximate is neither "none" nor "tanh", exactly (no other case,
      no None).

    Rules: do not call F.gelu or nn.GELU; use primitives such as torch.erf and torch.tanh
    (torch.erfc and torch.special.ndtr, which is Φ itself, are primitives too).

    >>> gelu(torch.tensor([-1.0, 0.0, 1.0]))
    tensor([-0.1587,  0.0000,  0.8413])
    """
    # TODO: write the exact form and the tanh approximation.
    raise NotImplementedError


def silu(x: torch.Tensor) -> torch.Tensor:
    """SiLU of every element of x: x * sigmoid(x), as F.silu computes it.

    - x: a floating tensor of any shape, on any device.
    - Returns a tensor of x's shape, dtype and device. Values and gradients must be finite
      and correct for every finite x, including -1e4 and 1e4. x is not modified.
    - float16 and bfloat16 are computed in float32 and rounded once, as for gelu.

    - For very negative x the result is about x exp(x): tiny, not 0, and accurate to float
      precision relative to its size, values and gradients.

    Rules: do not call F.silu, nn.SiLU or F.glu (silu under another name); torch.sigmoid is
    allowed.

    >>> silu(torch.tensor([-1.0, 0.0, 1.0]))
    tensor([-0.2689,  0.0000,  0.7311])
    """
    # TODO: multiply x by its sigmoid.
    raise NotImplementedError


def softplus(x: torch.Tensor, beta: float = 1.0, threshold: float = 20.0) -> torch.Tensor:
    """softplus of every element of x, as F.softplus(x, beta, threshold) computes it.

    - Where beta * x > threshold, the result is x itself, exactly (softplus is x there up
      to rounding, and this avoids exp overflowing); elsewhere, at the threshold included,
      log(1 + exp(beta * x)) / beta.
    - Values and gradients are finite and correct for every finite x (try ±100 and ±1e4;
      at x = 0 the gradient is 1/2, which formulas pieced together from relu and abs can
      miss), and accurate to float precision where the result is tiny: for very negative x
      the result is about exp(beta * x) / beta, small but not 0 (torch.log1p keeps it).
    - x: a floating tensor of any shape, on any device; beta > 0.
    - Returns a tensor of x's shape, dtype and device. x is not modified.
    - float16 and bfloat16 are computed in float32 and rounded once to x's dtype, as
      torch does: float16's exp overflows to inf above about 11, below the default
      threshold, so the formula itself would give inf for 11 < x <= 20.
    - Raises ValueError unless beta > 0 (NaN included), whatever x's dtype.

    Rules: do not call F.softplus, nn.Softplus or F.logsigmoid, nor any way torch offers a
    log-sum-exp (torch.logaddexp, torch.logsumexp, torch.logcumsumexp, softmax, log_softmax,
    the cross-entropies, the soft-margin losses, F.mish): softplus under other names. Use
    primitives such as torch.exp, torch.log1p and torch.where.

    >>> softplus(torch.tensor([-20.0, 0.0, 100.0]))
    tensor([2.0612e-09, 6.9315e-01, 1.0000e+02])
    """
    # TODO: compute softplus without overflow, in values and in gradients.
    raise NotImplementedError
