"""Wrong: reads the padding mask as lengths, so padding is assumed to sit on the right."""

import torch
import torch.nn.functional as F

from solutions.q11_layer_shapes import conv2d_output_shape, linear_forward, lstm_final_states


def padded_attention(q, k, v, key_padding_mask=None, causal=False):
    keep = None
    if key_padding_mask is not None:
        lengths = (~key_padding_mask).sum(dim=-1)
        positions = torch.arange(key_padding_mask.shape[-1], device=q.device)
        keep = (positions[None, :] < lengths[:, None])[:, None, None, :]
    if causal:
        length = q.shape[-2]
        below = torch.ones(length, length, dtype=torch.bool, device=q.device).tril()
        keep = below if keep is None else keep & below
    return F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
