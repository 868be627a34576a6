"""Wrong: sums all embeddings and divides by the number of real tokens, counting on the
padding row being zero instead of masking; a non-zero padding row leaks into the logits."""

from torch import nn

from solutions.q16_text_classifier import masked_mean  # the rest as in the reference


class TextClassifier(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_classes, padding_idx=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=padding_idx)
        self.head = nn.Linear(embed_dim, num_classes)

    def forward(self, tokens):
        if tokens.dim() != 2:
            raise ValueError("tokens must be [B, T]")
        count = (tokens != self.embedding.padding_idx).sum(1, keepdim=True).clamp(min=1)
        return self.head(self.embedding(tokens).sum(dim=1) / count)
