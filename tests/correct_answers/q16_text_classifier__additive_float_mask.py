"""Correct: hides padding with an additive float mask (0 at real tokens, -inf at padding)
instead of a bool one, builds the encoder with keyword arguments, and drops the padded
outputs with masked_fill before pooling."""

import torch
from torch import nn

from solutions.q16_text_classifier import masked_mean  # the rest as in the reference


def encode(layer, embedded, mask):
    if mask.dtype is not torch.bool or mask.shape != embedded.shape[:2]:
        raise ValueError("mask must be a bool [B, T] tensor")
    scores_bias = torch.zeros(mask.shape, dtype=embedded.dtype, device=embedded.device)
    return layer(embedded, src_key_padding_mask=scores_bias.masked_fill(~mask, float("-inf")))


class TextClassifier(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_classes, padding_idx=0, num_heads=2, dropout=0.0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=padding_idx)
        self.encoder = nn.TransformerEncoderLayer(
            d_model=embed_dim,
            nhead=num_heads,
            dim_feedforward=embed_dim * 4,
            dropout=dropout,
            batch_first=True,
        )
        self.head = nn.Linear(embed_dim, num_classes)

    def forward(self, tokens):
        if tokens.ndim != 2:
            raise ValueError("tokens must be [B, T]")
        real = tokens.ne(self.embedding.padding_idx)
        encoded = encode(self.encoder, self.embedding(tokens), real)
        return self.head(masked_mean(encoded.masked_fill(~real[..., None], 0.0), real))
