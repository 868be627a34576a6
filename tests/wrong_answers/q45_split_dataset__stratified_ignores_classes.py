"""Wrong: the "stratified" split is a plain random split; class ratios drift."""

from solutions.q45_split_dataset import split_dataset, split_sizes  # the rest as in the reference


def stratified_split(dataset, labels, fractions, seed):
    if labels.dim() != 1 or len(labels) != len(dataset):
        raise ValueError("labels must be 1-D with one entry per item")
    return split_dataset(dataset, fractions, seed)
