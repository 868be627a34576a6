"""Wrong: padding_idx defaults to 1 instead of 0."""

import torch
from torch import nn

from solutions.q16_text_classifier import masked_mean  # the rest as in the reference


class TextClassifier(nn.Module):
    def __init__(
        self, vocab_size: int, embed_dim: int, num_classes: int, padding_idx: int = 1
    ) -> None:
        super().__init__()
        # padding_idx: that row starts at zero and its gradient is always zero.
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=padding_idx)
        self.head = nn.Linear(embed_dim, num_classes)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        if tokens.dim() != 2:
            raise ValueError(f"tokens must be [B, T], got shape {tuple(tokens.shape)}")
        # The mask, not the zero padding row, decides what counts: the row may change
        # (pretrained vectors, a manual edit) and a plain mean would count padded positions.
        mask = tokens != self.embedding.padding_idx
        return self.head(masked_mean(self.embedding(tokens), mask))
