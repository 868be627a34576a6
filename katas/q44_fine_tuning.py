"""Kata 44: freeze a pretrained backbone and fine-tune a new head.

Transfer learning reuses a network trained on a large dataset: keep its feature extractor
(the backbone), put a new head on top for your classes, and train only what must change.
Freezing takes three things, and forgetting any one of them quietly spoils the result:

- requires_grad=False on the frozen parameters, so no gradients are computed for them;
- an optimizer that holds only the trainable parameters (often with a smaller learning
  rate for the backbone layers that are unfrozen, so they move less than the new head);
- BatchNorm layers in the frozen part kept in eval mode. A BatchNorm layer in training
  mode updates its running statistics on every forward pass, gradients or not, so
  `model.train()` would slowly overwrite what was learned in pretraining; its batch
  statistics also make it fail on a batch of one. `model.train()` sets every submodule to
  training mode, so the model has to put the frozen part back into eval mode each time.

Task: write the fine-tuning model and the optimizer for it.
"""

import torch
from torch import nn


class FineTuner(nn.Module):
    """A pretrained backbone, frozen (except perhaps its last block), and a new linear head.

    - backbone: nn.Sequential of blocks mapping x to features of shape (N, num_features).
      Keep it as `self.backbone` (the same object, not a copy).
    - head: `self.head = nn.Linear(num_features, num_classes)`, created on the device and
      with the dtype of the backbone's parameters (it has some, all of one device and dtype),
      initialised as nn.Linear creates it, from torch's generator as the caller seeded it.
    - Frozen part: the whole backbone, or every block but the last (backbone[-1]) when
      train_last_block is True; fixed at construction, by position (a last block without
      parameters is not frozen, a block unfrozen by hand later stays in the frozen part).
      Frozen parameters get requires_grad=False; all other parameters (the head, and the
      last block when it trains) get requires_grad=True, also a last block whose
      parameters arrive frozen (a backbone shipped all frozen).
    - Every module of the frozen part is in eval mode from construction on, and stays
      there whatever `train()` / `eval()` calls follow: its BatchNorm layers normalise with
      their stored statistics and never update them, its Dropout is off. All other
      modules follow `train(mode)` as usual; after construction the model is in training
      mode, like any new nn.Module, so the head and a trainable last block train (also a
      last block that arrived in eval mode).
    - forward(x) = head(backbone(x)), all on autograd's graph (no torch.no_grad() around the
      frozen part): a block unfrozen later by hand gets its gradients.

    >>> backbone = nn.Sequential(nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8)))
    >>> model = FineTuner(backbone, num_features=8, num_classes=3).train()
    >>> model.training, model.head.training, backbone[0][1].training
    (True, True, False)
    """

    def __init__(
        self,
        backbone: nn.Sequential,
        num_features: int,
        num_classes: int,
        train_last_block: bool = False,
    ) -> None:
        # TODO: call super().__init__(), keep the backbone, add the head, freeze, set modes.
        raise NotImplementedError

    def train(self, mode: bool = True) -> "FineTuner":
        """Like nn.Module.train (returns self), but the frozen part stays in eval mode."""
        # TODO: let nn.Module.train do its work, then put the frozen part back into eval.
        raise NotImplementedError

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # TODO: features from the backbone, then the head.
        raise NotImplementedError


def make_optimizer(
    model: "FineTuner", lr: float, last_block_lr: float | None = None
) -> torch.optim.Optimizer:
    """torch.optim.SGD (momentum 0.9, SGD's other defaults: no weight decay, dampening 0, no
    Nesterov) over the trainable parameters of `model` only.

    - Every parameter of the model with requires_grad=True is in the optimizer, once (also
      one in a module added to the model since); no frozen one is.
      requires_grad is read when make_optimizer is called: a block unfrozen since
      construction (gradual unfreezing) is in, a parameter frozen since is out.
    - Parameter groups: the last backbone block's trainable parameters in a group with
      learning rate `last_block_lr` (None: lr / 10; 0.0 is a learning rate like any
      other), whether the block trains from construction (train_last_block=True) or was
      unfrozen since; every other trainable parameter (the head, a middle block unfrozen
      since) in a group with learning rate `lr`.

    >>> backbone = nn.Sequential(nn.Linear(4, 8), nn.Linear(8, 8))
    >>> model = FineTuner(backbone, 8, 3, train_last_block=True)
    >>> sorted(group["lr"] for group in make_optimizer(model, lr=0.1).param_groups)
    [0.01, 0.1]
    """
    # TODO: split the trainable parameters into the two groups and build the optimizer.
    raise NotImplementedError
