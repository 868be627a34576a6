"""masked_mean with torch.masked.mean over an expanded mask; encode with a float -inf key mask
through functools.partial; the classifier keeps its layers in a tuple beside the attributes."""

import functools

import torch
from torch import nn


def _check_mask(x: torch.Tensor, mask: torch.Tensor) -> None:
    if mask.dtype is not torch.bool:
        raise ValueError(f"mask must be torch.bool, got {mask.dtype}")
    if tuple(mask.shape) != tuple(x.shape[:2]):
        raise ValueError(f"mask shape {tuple(mask.shape)} is not {tuple(x.shape[:2])}")


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    _check_mask(values, mask)
    work = torch.float32 if values.dtype in (torch.float16, torch.bfloat16) else values.dtype
    full = mask.unsqueeze(-1).expand(values.shape)
    mean = torch.masked.mean(values, dim=1, mask=full, dtype=work)
    # A row with no real position has no mean: zeros there, the rest untouched.
    has_any = mask.any(dim=1, keepdim=True)
    return torch.where(has_any, mean, torch.zeros((), dtype=work, device=values.device)).to(
        values.dtype
    )


def encode(
    layer: nn.TransformerEncoderLayer, embedded: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    _check_mask(embedded, mask)
    # A float key mask is added to the scores: -inf hides a padded key, 0 keeps a real one.
    additive = torch.zeros(mask.shape, dtype=embedded.dtype, device=embedded.device)
    additive = additive.masked_fill(~mask, float("-inf"))
    run = functools.partial(layer, src_key_padding_mask=additive)
    return run(embedded)


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
        # The same three modules again, in order, for forward; registered by the attributes.
        self.stages = (self.embedding, self.encoder, self.head)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        if tokens.dim() != 2:
            raise ValueError(f"tokens must be [B, T], got {tokens.dim()} dims")
        embedding, encoder, head = self.stages
        real = tokens.ne(embedding.padding_idx)
        hidden = encode(encoder, embedding(tokens), real)
        return head(masked_mean(hidden, real))
