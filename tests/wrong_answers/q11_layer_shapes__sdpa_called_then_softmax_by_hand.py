"""Wrong: calls SDPA, discards its result and returns a softmax by hand (overflows)."""

import torch
import torch.nn.functional as F

from solutions.q11_layer_shapes import conv2d_output_shape, linear_forward, lstm_final_states


def padded_attention(q, k, v, key_padding_mask=None, causal=False):
    keep = None
    if key_padding_mask is not None:
        keep = ~key_padding_mask[:, None, None, :]
    if causal:
        length = q.shape[-2]
        below = torch.ones(length, length, dtype=torch.bool, device=q.device).tril()
        keep = below if keep is None else keep & below
    F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    weights = (q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5).exp()
    if keep is not None:
        weights = weights * keep
    return weights / weights.sum(dim=-1, keepdim=True) @ v
