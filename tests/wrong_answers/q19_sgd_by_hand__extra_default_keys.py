"""Wrong: adds maximize, foreach and differentiable to the five defaults torch's SGD names."""

from solutions.q19_sgd_by_hand import SGD as ReferenceSGD, optimizer_state_bytes, race_in_a_valley


class SGD(ReferenceSGD):
    def __init__(
        self, params, lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False
    ):
        super().__init__(params, lr, momentum, dampening, weight_decay, nesterov)
        extra = dict(maximize=False, foreach=None, differentiable=False)
        self.defaults.update(extra)
        for group in self.param_groups:
            group.update(extra)
