"""Kata 16: embeddings, padding, a transformer encoder layer and masked pooling (reference
answer)."""

import torch
from torch import nn


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    if mask.dtype != torch.bool or mask.shape != values.shape[:2]:
        raise ValueError(
            f"mask must be bool with shape {tuple(values.shape[:2])}, "
            f"got {mask.dtype} {tuple(mask.shape)}"
        )
    keep = mask.unsqueeze(-1)  # [B, T, 1] broadcasts over D
    # where() rather than a multiply: whatever sits at a masked position is replaced,
    # not scaled, and its gradient is exactly zero.
    # float16/bfloat16 sum in float32: a sum can overflow (1000 values of 100 in float16)
    # or lose its low bits where the mean would not. The mean is rounded once, at the end.
    low_precision = values.dtype in (torch.float16, torch.bfloat16)
    total = torch.where(keep, values, 0).sum(dim=1, dtype=torch.float32 if low_precision else None)
    # An all-padding row would divide 0 by 0; clamping the count to 1 gives 0 instead.
    count = keep.sum(dim=1).clamp(min=1)
    return (total / count).to(values.dtype)


def encode(
    layer: nn.TransformerEncoderLayer, embedded: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    if mask.dtype != torch.bool or mask.shape != embedded.shape[:2]:
        raise ValueError(
            f"mask must be bool with shape {tuple(embedded.shape[:2])}, "
            f"got {mask.dtype} {tuple(mask.shape)}"
        )
    # src_key_padding_mask is True where a key is padding: the mask of real tokens, inverted.
    # A bool mask, not a float one: a float mask is added to the scores, and 1.0 hides nothing.
    return layer(embedded, src_key_padding_mask=~mask)


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
        # padding_idx: that row starts at zero and its gradient is always zero.
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=padding_idx)
        # batch_first=True: the layer takes [B, T, D], as the embedding gives it; the
        # default (False) would read [B, T, D] as T sequences of B tokens.
        self.encoder = nn.TransformerEncoderLayer(
            embed_dim, num_heads, dim_feedforward=4 * embed_dim, dropout=dropout, batch_first=True
        )
        self.head = nn.Linear(embed_dim, num_classes)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        if tokens.dim() != 2:
            raise ValueError(f"tokens must be [B, T], got shape {tuple(tokens.shape)}")
        # The mask, not the zero padding row, decides what counts: the row may change
        # (pretrained vectors, a manual edit) and a plain mean would count padded positions.
        mask = tokens != self.embedding.padding_idx
        # Padded positions of the encoding hold anything (nan on the eval fast path);
        # masked_mean selects the real ones.
        return self.head(masked_mean(encode(self.encoder, self.embedding(tokens), mask), mask))
