"""Wrong: creates nn.Embedding without padding_idx; the mask hides padding from the mean,
but the padding row is a random vector that an unmasked use would train and leak."""

from torch import nn

from solutions.q16_text_classifier import masked_mean  # the rest as in the reference


class TextClassifier(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_classes, padding_idx=0):
        super().__init__()
        self.padding_idx = padding_idx
        self.embedding = nn.Embedding(vocab_size, embed_dim)
        self.head = nn.Linear(embed_dim, num_classes)

    def forward(self, tokens):
        if tokens.dim() != 2:
            raise ValueError("tokens must be [B, T]")
        return self.head(masked_mean(self.embedding(tokens), tokens != self.padding_idx))
