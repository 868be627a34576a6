"""masked_fill then sum in an accumulation dtype, mask-check helper, normalised padding id."""

import torch
from torch import nn

_LOW_PRECISION = (torch.float16, torch.bfloat16)


def _check_mask(mask: torch.Tensor, leading: torch.Size) -> None:
    if mask.dtype is not torch.bool:
        raise ValueError(f"mask must be bool, got {mask.dtype}")
    if tuple(mask.shape) != tuple(leading):
        raise ValueError(f"mask shape {tuple(mask.shape)} != {tuple(leading)}")


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    _check_mask(mask, values.shape[:2])
    acc = torch.float32 if values.dtype in _LOW_PRECISION else values.dtype
    keep = mask.unsqueeze(-1)
    total = values.to(acc).masked_fill(~keep, 0.0).sum(dim=1)
    count = mask.sum(dim=1, keepdim=True).to(acc).clamp(min=1.0)
    return (total / count).to(values.dtype)


def encode(
    layer: nn.TransformerEncoderLayer, embedded: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    _check_mask(mask, embedded.shape[:2])
    return layer(embedded, src_key_padding_mask=mask.logical_not())


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
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=padding_idx)
        self.encoder = nn.TransformerEncoderLayer(
            embed_dim,
            num_heads,
            dim_feedforward=4 * embed_dim,
            dropout=dropout,
            batch_first=True,
        )
        self.head = nn.Linear(embed_dim, num_classes)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        if tokens.dim() != 2:
            raise ValueError(f"tokens must be [B, T], got {tuple(tokens.shape)}")
        pad = self.embedding.padding_idx  # already normalised to be non-negative
        real = tokens.ne(pad)
        hidden = encode(self.encoder, self.embedding(tokens), real)
        return self.head(masked_mean(hidden, real))
