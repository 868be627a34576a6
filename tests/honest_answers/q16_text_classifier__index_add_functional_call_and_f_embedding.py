"""masked_mean gathers the real positions with a boolean index and adds them up per row with
index_add; encode through torch.func.functional_call; the classifier's forward uses
F.embedding and F.linear on its layers' own weights."""

import torch
import torch.nn.functional as F
from torch import nn


def _check(x: torch.Tensor, mask: torch.Tensor) -> None:
    if mask.dtype != torch.bool:
        raise ValueError(f"the mask must be bool, not {mask.dtype}")
    if mask.shape != x.shape[:2]:
        raise ValueError(f"the mask must have shape {list(x.shape[:2])}, not {list(mask.shape)}")


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    _check(values, mask)
    b, t, d = values.shape
    acc = torch.float64 if values.dtype == torch.float64 else torch.float32
    rows = torch.arange(b, device=values.device).unsqueeze(1).expand(b, t)
    picked = values.reshape(b * t, d)[mask.reshape(-1)]  # only the real positions
    totals = torch.zeros(b, d, dtype=acc, device=values.device)
    totals = totals.index_add(0, rows[mask], picked.to(acc))
    counts = mask.sum(dim=1, keepdim=True).clamp(min=1).to(acc)
    return (totals / counts).to(values.dtype)


def encode(
    layer: nn.TransformerEncoderLayer, embedded: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    _check(embedded, mask)
    params = dict(layer.named_parameters())  # the layer's own tensors: gradients reach them
    return torch.func.functional_call(
        layer, params, (embedded,), {"src_key_padding_mask": mask.logical_not()}
    )


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
            embed_dim, num_heads, 4 * embed_dim, dropout, batch_first=True
        )
        self.head = nn.Linear(embed_dim, num_classes)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        if tokens.ndim != 2:
            raise ValueError(f"expected 2-D token ids, got shape {tuple(tokens.shape)}")
        pad = self.embedding.padding_idx
        embedded = F.embedding(tokens, self.embedding.weight, padding_idx=pad)
        real = tokens != pad
        pooled = masked_mean(encode(self.encoder, embedded, real), real)
        return F.linear(pooled, self.head.weight, self.head.bias)
