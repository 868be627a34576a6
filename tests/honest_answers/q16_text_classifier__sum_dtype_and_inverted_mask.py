"""torch.where then sum(dtype=...) for the mean; ~mask as the key padding mask."""

import torch
from torch import nn


def _check_mask(mask: torch.Tensor, data: torch.Tensor, name: str) -> None:
    if mask.dtype is not torch.bool:
        raise ValueError(f"mask must be a bool tensor, got {mask.dtype}")
    if mask.shape != data.shape[:2]:
        raise ValueError(
            f"mask must have shape {tuple(data.shape[:2])} ({name}.shape[:2]), "
            f"got {tuple(mask.shape)}"
        )


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    _check_mask(mask, values, "values")
    # 16-bit inputs accumulate in float32; float32 and float64 stay as they are.
    accumulate = torch.promote_types(values.dtype, torch.float32)
    real = mask.unsqueeze(-1)
    kept = torch.where(real, values, torch.zeros((), dtype=values.dtype, device=values.device))
    total = kept.sum(dim=1, dtype=accumulate)
    count = real.sum(dim=1, dtype=accumulate).clamp(min=1)  # an empty row: 0 / 1 = 0
    return (total / count).to(values.dtype)


def encode(
    layer: nn.TransformerEncoderLayer, embedded: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    _check_mask(mask, embedded, "embedded")
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
            embed_dim, num_heads, dim_feedforward=4 * embed_dim, dropout=dropout, batch_first=True
        )
        self.head = nn.Linear(embed_dim, num_classes)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        if tokens.dim() != 2:
            raise ValueError(f"tokens must be [B, T], got shape {tuple(tokens.shape)}")
        # nn.Embedding keeps a negative padding_idx as the id it counts to.
        real = tokens.ne(self.embedding.padding_idx)
        encoded = encode(self.encoder, self.embedding(tokens), real)
        return self.head(masked_mean(encoded, real))
