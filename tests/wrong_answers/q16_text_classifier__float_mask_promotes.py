"""Wrong: masked_mean multiplies by mask.float(), so float16 and bfloat16 values come back
as float32."""

import torch
from torch import nn


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    if mask.dtype != torch.bool or mask.shape != values.shape[:2]:
        raise ValueError("mask must be bool with shape values.shape[:2]")
    weights = mask.float().unsqueeze(-1)
    total = (torch.where(mask.unsqueeze(-1), values, 0) * weights).sum(dim=1)
    return total / weights.sum(dim=1).clamp(min=1)


class TextClassifier(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_classes, padding_idx=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=padding_idx)
        self.head = nn.Linear(embed_dim, num_classes)

    def forward(self, tokens):
        if tokens.dim() != 2:
            raise ValueError("tokens must be [B, T]")
        mask = tokens != self.embedding.padding_idx
        return self.head(masked_mean(self.embedding(tokens), mask))
