"""masked_mean as an einsum against per-position weights (divide before summing), encode with an
additive float padding mask, the classifier's mask from the embedding's own padding id."""

import torch
from torch import nn

_WIDE = {torch.float16: torch.float32, torch.bfloat16: torch.float32}


def _check_mask(mask: torch.Tensor, leading: torch.Size) -> None:
    if mask.dtype != torch.bool:
        raise ValueError(f"mask must be torch.bool, got {mask.dtype}")
    if mask.shape != leading:
        raise ValueError(f"mask must have shape {tuple(leading)}, got {tuple(mask.shape)}")


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    _check_mask(mask, values.shape[:2])
    wide = _WIDE.get(values.dtype, values.dtype)
    count = mask.sum(dim=1, keepdim=True).clamp(min=1)  # int64: no 16-bit count
    weights = mask.to(wide) / count.to(wide)
    # torch.where, not a product: padding may hold nan or inf, and 0 * nan is nan.
    kept = torch.where(
        mask.unsqueeze(-1), values.to(wide), torch.zeros((), dtype=wide, device=values.device)
    )
    return torch.einsum("btd,bt->bd", kept, weights).to(values.dtype)


def encode(
    layer: nn.TransformerEncoderLayer, embedded: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    _check_mask(mask, embedded.shape[:2])
    # Added to the attention scores: 0 keeps a key, -inf hides it.
    hide = torch.zeros(mask.shape, dtype=embedded.dtype, device=embedded.device)
    hide = hide.masked_fill(mask.logical_not(), float("-inf"))
    return layer(embedded, src_key_padding_mask=hide)


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

    @property
    def pad_id(self) -> int:
        # nn.Embedding has already turned a negative padding_idx into vocab_size + padding_idx.
        pad = self.embedding.padding_idx
        assert pad is not None
        return pad

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        if tokens.dim() != 2:
            raise ValueError(f"tokens must be [B, T], got shape {tuple(tokens.shape)}")
        real = tokens.ne(self.pad_id)
        encoded = encode(self.encoder, self.embedding(tokens), real)
        return self.head(masked_mean(encoded, real))
