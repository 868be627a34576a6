"""Weights divided in the accumulation dtype then a bmm, a bool padding mask built by
comparison, and the padding id normalised by the model itself."""

import torch
from torch import nn


def _validate(mask: torch.Tensor, reference: torch.Tensor) -> None:
    if mask.dtype != torch.bool:
        raise ValueError("mask must be a bool tensor")
    if mask.dim() != 2 or mask.shape != reference.shape[:2]:
        raise ValueError("mask must have shape [B, T] exactly")


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    _validate(mask, values)
    wide = values.float() if values.element_size() < 4 else values
    # Zero the padding first: a weight of 0 times a nan there would still be nan.
    cleaned = torch.where(
        mask.unsqueeze(-1), wide, torch.zeros((), dtype=wide.dtype, device=wide.device)
    )
    count = mask.sum(dim=1, keepdim=True).clamp_min(1).to(wide.dtype)
    weights = mask.to(wide.dtype) / count  # [B, T], rows sum to 1 or 0
    pooled = torch.bmm(weights.unsqueeze(1), cleaned).squeeze(1)
    return pooled.to(values.dtype)


def encode(
    layer: nn.TransformerEncoderLayer, embedded: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    _validate(mask, embedded)
    padding = mask == False  # noqa: E712 - True marks padding for the layer
    return layer(embedded, src_key_padding_mask=padding)


class TextClassifier(nn.Module):
    def __init__(
        self,
        vocab_size: int,
        embed_dim: int,
        num_classes: int,
        padding_idx: int = 0,
        num_heads: int = 2,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        self.pad_id = padding_idx + vocab_size if padding_idx < 0 else padding_idx
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=padding_idx)
        self.encoder = nn.TransformerEncoderLayer(
            embed_dim, num_heads, 4 * embed_dim, dropout, batch_first=True
        )
        self.head = nn.Linear(embed_dim, num_classes)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        if tokens.ndim != 2:
            raise ValueError("tokens must be a 2-D [B, T] tensor")
        real = tokens != self.pad_id
        encoded = encode(self.encoder, self.embedding(tokens), real)
        return self.head(masked_mean(encoded, real))
