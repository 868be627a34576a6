"""Wrong: hands the work to torch's ReduceLROnPlateau instead of writing the logic."""

from torch.optim.lr_scheduler import ReduceLROnPlateau


class PlateauLR:
    def __init__(
        self,
        optimizer,
        mode="min",
        factor=0.1,
        patience=10,
        threshold=1e-4,
        threshold_mode="rel",
        cooldown=0,
        min_lr=0.0,
        eps=1e-8,
    ):
        if not 0 <= factor < 1 or threshold < 0 or patience < 0 or cooldown < 0:
            raise ValueError("bad settings")
        self.inner = ReduceLROnPlateau(
            optimizer, mode, factor, patience, threshold, threshold_mode, cooldown, min_lr, eps
        )

    def step(self, metric):
        self.inner.step(metric)
