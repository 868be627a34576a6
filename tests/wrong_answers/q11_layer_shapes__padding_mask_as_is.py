"""Wrong: passes the padding mask to SDPA as it is, where True means "take part", so only
the padding is attended to."""

import torch
import torch.nn.functional as F

from solutions.q11_layer_shapes import conv2d_output_shape, linear_forward, lstm_final_states


def padded_attention(q, k, v, key_padding_mask=None, causal=False):
    keep = None if key_padding_mask is None else key_padding_mask[:, None, None, :]
    if causal:
        below = torch.ones(q.shape[-2], q.shape[-2], dtype=torch.bool, device=q.device).tril()
        keep = below if keep is None else keep & below
    return F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
