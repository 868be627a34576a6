"""Wrong: the classifier pools with a float32 mask of its own instead of masked_mean, so
in a bfloat16 model the pooled vectors are float32 and the head refuses them."""

from torch import nn

from solutions.q16_text_classifier import masked_mean


class TextClassifier(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_classes, padding_idx=0):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim, padding_idx=padding_idx)
        self.head = nn.Linear(embed_dim, num_classes)

    def forward(self, tokens):
        if tokens.dim() != 2:
            raise ValueError(f"tokens must be [B, T], got shape {tuple(tokens.shape)}")
        keep = (tokens != self.embedding.padding_idx).unsqueeze(-1).float()
        pooled = (self.embedding(tokens) * keep).sum(dim=1) / keep.sum(dim=1).clamp(min=1)
        return self.head(pooled)
