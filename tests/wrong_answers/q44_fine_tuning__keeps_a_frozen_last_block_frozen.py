"""Wrong: freezes the frozen part but never unfreezes the last block, so a backbone that
arrives all frozen trains nothing but the head even with train_last_block=True."""

from solutions.q44_fine_tuning import (  # the rest as in the reference
    FineTuner as _Reference,
    make_optimizer,
)


class FineTuner(_Reference):
    def __init__(self, backbone, num_features, num_classes, train_last_block=False):
        was_frozen = {p: p.requires_grad for p in backbone[-1].parameters()}
        super().__init__(backbone, num_features, num_classes, train_last_block)
        for parameter, requires_grad in was_frozen.items():
            parameter.requires_grad_(requires_grad)
