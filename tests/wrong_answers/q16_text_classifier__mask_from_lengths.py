"""Wrong: counts each row's real tokens and masks the first that many positions, which is
right only when all padding comes at the end (not for left-padded rows)."""

import torch
from torch import nn

from solutions.q16_text_classifier import masked_mean


class TextClassifier(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_classes, padding_idx=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=padding_idx)
        self.head = nn.Linear(embed_dim, num_classes)

    def forward(self, tokens):
        if tokens.dim() != 2:
            raise ValueError(f"tokens must be [B, T], got shape {tuple(tokens.shape)}")
        lengths = (tokens != self.embedding.padding_idx).sum(dim=1)
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        mask = positions[None, :] < lengths[:, None]
        return self.head(masked_mean(self.embedding(tokens), mask))
