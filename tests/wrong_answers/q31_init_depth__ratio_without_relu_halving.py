"""Wrong: predicts the per-layer factor as sqrt(width) · weight_std, forgetting that ReLU
keeps only half of the mean square."""

import math

from solutions.q31_init_depth import activation_stds, deep_stack  # the rest as in the reference


def relu_std_ratio(width, weight_std):
    return math.sqrt(width) * weight_std
