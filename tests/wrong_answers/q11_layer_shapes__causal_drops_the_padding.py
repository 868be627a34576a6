"""Wrong: with both masks asks SDPA for is_causal alone, so padded keys are attended to."""

import torch.nn.functional as F

from solutions.q11_layer_shapes import conv2d_output_shape, linear_forward, lstm_final_states


def padded_attention(q, k, v, key_padding_mask=None, causal=False):
    if causal:
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    keep = None if key_padding_mask is None else ~key_padding_mask[:, None, None, :]
    return F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
