"""Kata 16: embeddings, padding, a transformer encoder layer and masked pooling.

nn.Embedding is a lookup table: row i of its weight is the vector for token id i, so a
[B, T] tensor of ids becomes [B, T, D] vectors. Sequences in a batch have different
lengths, so short ones are filled up with a padding id. `padding_idx` tells nn.Embedding
which id that is: its row starts at zero and never receives a gradient.

nn.TransformerEncoderLayer (self-attention, then a feed-forward block, each with a
residual connection and a LayerNorm) lets every token look at every other one. Built with
batch_first=True it takes [B, T, D]; its default, batch_first=False, takes [T, B, D]. Its
`src_key_padding_mask` [B, T] hides keys from attention: True marks PADDING, the opposite
of the mask of real tokens this kata pools with. A float mask is not a bool one: it is
added to the attention scores (0 keeps a key, -inf hides it), so a 0/1 float mask hides
nothing: it adds 1 to the scores of the padded keys, which then get more attention, not
less (the layer's eval fast path reads it as bool, so that mistake shows in training).

Padding must not change what the model says, so attention must not look at padded keys
and pooling over the sequence has to skip padded positions: a plain mean would count them.

Task: a text classifier, Embedding -> TransformerEncoderLayer -> masked mean -> Linear,
and the two steps it is built from.
"""

import torch
from torch import nn


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean of `values` over the positions where `mask` is True.

    - values: [B, T, D] floating tensor; mask: [B, T] bool tensor on the same device, True
      at real positions, False at padding.
    - Returns [B, D] with values' dtype and device: for each row b, the mean of values[b, t]
      over the t with mask[b, t] True. A row with no True position (all padding, or T = 0)
      gives zeros, not nan. Masked positions have no effect on the result, whatever they
      hold (nan and inf included: a transformer layer may leave nan at padding), and get a
      zero gradient. A nan or inf at a REAL position is part of the mean and shows in the
      result, as in torch.mean. values and mask are not modified.
    - float16 and bfloat16: the result is the float32 mean rounded once to values' dtype,
      with padding or without: no intermediate value may overflow (or lose its low bits)
      where the mean would not: 1000 values of 100 give 100, not inf, and a count of 70000
      positions is no float16 count. Hint: sum in float32 (or divide in float32 before
      summing) and round once. float32 and float64 need no such care: summing in their own
      dtype is fine (a rule only for the two 16-bit dtypes).
    - Raises ValueError if mask's dtype is not torch.bool (integer, uint8 "byte" and floating
      masks all raise) or its shape is not exactly values.shape[:2] (one that merely
      broadcasts, such as [B, 1] or [1, T], raises too).

    Rules: no Python loops; tensor operations only.

    >>> values = torch.tensor([[[1.0], [3.0], [100.0]], [[5.0], [0.0], [0.0]]])
    >>> mask = torch.tensor([[True, True, False], [False, False, False]])
    >>> masked_mean(values, mask)
    tensor([[2.],
            [0.]])
    """
    # TODO: zero out the masked positions, sum, and divide by the count of real positions.
    raise NotImplementedError


def encode(
    layer: nn.TransformerEncoderLayer, embedded: torch.Tensor, mask: torch.Tensor
) -> torch.Tensor:
    """Run a transformer encoder layer over a padded batch; no token attends to padding.

    - layer: an nn.TransformerEncoderLayer built with batch_first=True, in whatever mode
      the caller left it. Run it in that mode (dropout on in training, off in eval): putting
      it in another mode for the call, even if the flag is put back after, is not leaving
      it as it is.
    - embedded: [B, T, D] with T >= 1, D the layer's d_model, in the layer's dtype and on
      its device; mask: [B, T] bool on the same device, True at real tokens, False at
      padding (masked_mean's polarity). Padding may stand anywhere in a row.
    - Returns [B, T, D]: at each real position of row b, what the layer gives when run on
      row b's real tokens alone, in their order, as if the padding were not there. What
      the padded positions hold is not part of the contract: in eval mode without autograd
      the layer may take a fast path that leaves other values there than in training (nan
      throughout a row of padding only); whatever comes next must ignore them. Gradients
      flow to embedded and the layer's parameters; embedded, mask and the layer are not
      modified (nor the .grad of the layer's parameters).
    - The caller's grad mode holds: under torch.no_grad() no graph is recorded (the result
      has no grad_fn). No global setting changes (torch.backends.mha's fast path included).
    - Raises ValueError if mask's dtype is not torch.bool (integer, uint8 and floating masks
      all raise) or its shape is not exactly embedded.shape[:2] (one that merely
      broadcasts raises too).

    Rules: no Python loops over the batch or the sequence: one call of the layer for the
    whole batch, as `layer(...)` (so its hooks run, not layer.forward). Hint: the layer's
    padding mask is True at padding; a float mask is added to the attention scores.

    >>> layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True)
    >>> mask = torch.tensor([[True, True, False], [True, True, True]])
    >>> encode(layer, torch.randn(2, 3, 8), mask).shape
    torch.Size([2, 3, 8])
    """
    # TODO: check the mask, then call the layer with a key padding mask of the right polarity.
    raise NotImplementedError


class TextClassifier(nn.Module):
    """Logits from token ids: embed every token, encode them with a transformer encoder
    layer, average the real positions, apply a Linear.

    - `self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=padding_idx)`
      (other arguments at their defaults: no scale_grad_by_freq, no max_norm); every layer
      keeps the initialisation its constructor gives it (N(0, 1) for the embedding)
    - `self.encoder = nn.TransformerEncoderLayer(embed_dim, num_heads,
      dim_feedforward=4 * embed_dim, dropout=dropout, batch_first=True)` (other arguments
      at their defaults: post-norm, ReLU; embed_dim must be divisible by num_heads)
    - `self.head = nn.Linear(embed_dim, num_classes)`
    - Rule: the three are created in this order and each keeps the initialisation its
      constructor draws from torch's generator as the caller seeded it: after the same
      torch.manual_seed, every parameter equals that of the same three layers created in
      turn (no init of your own, small tensors such as head.bias included).

    padding_idx may be negative and then counts from the end, as in nn.Embedding: -1 is
    the id vocab_size - 1 (nn.Embedding stores it that way in `embedding.padding_idx`).

    forward(tokens): tokens is a [B, T] integer tensor of ids in [0, vocab_size), B >= 1
    and T >= 1 (an empty batch is outside the contract: torch's attention cannot reshape it),
    where the padding id marks padding wherever it stands (after the real tokens, before
    them or between them). Returns logits [B, num_classes] in the parameters' dtype, on
    their device: head(masked mean over the non-padding positions of encode(encoder,
    embeddings, mask)), in training and in eval mode; in either mode with the graph, where
    grad mode is on (the caller's: an encoder in eval mode is no reason for no_grad), so a
    loss sends gradients into every layer. Dropout is the encoder layer's own
    and nothing else's: no other layer is added. Each layer runs once per forward (one call of
    encode), not a second time to check or reuse its output.
    - Padding changes nothing: appending padding ids to a sequence, or whatever finite
      values the padding row of the embedding holds, leaves its logits unchanged.
    - A row of padding only pools to zeros, so its logits are `head.bias`.
    - The padding row gets no gradient.
    - The model is not modified (its parameters, the padding row included, stay as they
      are) and every submodule is run in the mode the caller left it, which forward leaves
      as it is: an encoder put in eval mode inside a model in training (frozen) stays so.
    - Raises ValueError if tokens is not 2-D (1-D, 0-D, 3-D and more all raise).

    Rules: no Python loops over the batch or the sequence.

    >>> model = TextClassifier(vocab_size=100, embed_dim=16, num_classes=3, padding_idx=0)
    >>> model(torch.tensor([[5, 17, 2, 0, 0], [8, 9, 10, 11, 12]])).shape
    torch.Size([2, 3])
    """

    def __init__(
        self,
        vocab_size: int,
        embed_dim: int,
        num_classes: int,
        padding_idx: int = 0,
        num_heads: int = 2,
        dropout: float = 0.0,
    ) -> None:
        # TODO: create self.embedding, self.encoder and self.head as described.
        raise NotImplementedError

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        # TODO: embed, build the mask from padding_idx, encode, pool with masked_mean, apply
        # the head.
        raise NotImplementedError
