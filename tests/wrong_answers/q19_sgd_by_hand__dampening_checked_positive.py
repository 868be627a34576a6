"""Wrong: rejects Nesterov momentum only for a positive dampening, so a negative one is
accepted."""

from solutions.q19_sgd_by_hand import (  # the rest as in the reference
    SGD as Reference,
    optimizer_state_bytes,
    race_in_a_valley,
)


class SGD(Reference):
    def __init__(
        self, params, lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False
    ):
        if lr < 0 or momentum < 0 or weight_decay < 0:
            raise ValueError("lr, momentum and weight_decay must be >= 0")
        if nesterov and (momentum <= 0 or dampening > 0):
            raise ValueError("Nesterov momentum needs momentum > 0 and dampening 0")
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
        )
        super(Reference, self).__init__(params, defaults)
