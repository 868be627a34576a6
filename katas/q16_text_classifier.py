"""Kata 16: embeddings, padding and masked pooling.

nn.Embedding is a lookup table: row i of its weight is the vector for token id i, so a
[B, T] tensor of ids becomes [B, T, D] vectors. Sequences in a batch have different
lengths, so short ones are filled up with a padding id. `padding_idx` tells nn.Embedding
which id that is: its row starts at zero and never receives a gradient. Padding must not
change what the model says either, so pooling over the sequence has to skip padded
positions with a mask: a plain mean would count them.

Task: a bag-of-embeddings text classifier, Embedding -> masked mean -> Linear, and the
masked mean it uses.
"""

import torch
from torch import nn


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean of `values` over the positions where `mask` is True.

    - values: [B, T, D] floating tensor; mask: [B, T] bool tensor on the same device, True
      at real positions, False at padding.
    - Returns [B, D] with values' dtype and device: for each row b, the mean of values[b, t]
      over the t with mask[b, t] True. A row with no True position (all padding, or T = 0)
      gives zeros, not nan. Masked positions have no effect on the result (for any finite
      values there) and get a zero gradient. values and mask are not modified.
    - float16 and bfloat16: the result is the float32 mean rounded once to values' dtype.
      No intermediate value may overflow (or lose its low bits) where the mean would not:
      1000 values of 100 give 100, not inf, and a count of 70000 positions is no float16
      count. Hint: sum in float32 (or divide in float32 before summing) and round once.
    - Raises ValueError if mask is not bool (a uint8 "byte mask" is not bool either) or its
      shape is not values.shape[:2].

    Rules: no Python loops; tensor operations only.

    >>> values = torch.tensor([[[1.0], [3.0], [100.0]], [[5.0], [0.0], [0.0]]])
    >>> mask = torch.tensor([[True, True, False], [False, False, False]])
    >>> masked_mean(values, mask)
    tensor([[2.],
            [0.]])
    """
    # TODO: zero out the masked positions, sum, and divide by the count of real positions.
    raise NotImplementedError


class TextClassifier(nn.Module):
    """Logits from token ids: embed every token, average the real ones, apply a Linear.

    - `self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=padding_idx)`
    - `self.head = nn.Linear(embed_dim, num_classes)`

    padding_idx may be negative and then counts from the end, as in nn.Embedding: -1 is
    the id vocab_size - 1 (nn.Embedding stores it that way in `embedding.padding_idx`).

    forward(tokens): tokens is a [B, T] integer tensor of ids in [0, vocab_size), where
    the padding id marks padding wherever it stands (after the real tokens, before them or
    between them). Returns logits [B, num_classes] in the parameters' dtype,
    on their device: head(masked mean of the embeddings of the non-padding tokens).
    - Padding changes nothing: appending padding ids to a sequence, or whatever finite
      values the padding row of the embedding holds, leaves its logits unchanged.
    - A row of padding only (or T = 0) pools to zeros, so its logits are `head.bias`.
    - The padding row gets no gradient.
    - Raises ValueError if tokens is not 2-D.

    Rules: no Python loops over the batch or the sequence.

    >>> model = TextClassifier(vocab_size=100, embed_dim=16, num_classes=3, padding_idx=0)
    >>> model(torch.tensor([[5, 17, 2, 0, 0], [8, 9, 10, 11, 12]])).shape
    torch.Size([2, 3])
    """

    def __init__(
        self, vocab_size: int, embed_dim: int, num_classes: int, padding_idx: int = 0
    ) -> None:
        # TODO: create self.embedding and self.head as described.
        raise NotImplementedError

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        # TODO: embed, build the mask from padding_idx, pool with masked_mean, apply the head.
        raise NotImplementedError
