"""Wrong: refuses labels shorter than the dataset only, and cuts longer ones to fit."""

from solutions.q45_split_dataset import split_dataset, split_sizes
from solutions.q45_split_dataset import stratified_split as _reference

__all__ = ["split_dataset", "split_sizes", "stratified_split"]


def stratified_split(dataset, labels, fractions, seed):
    if labels.dim() != 1 or len(labels) < len(dataset):
        raise ValueError(f"labels must be 1-D with {len(dataset)} entries")
    return _reference(dataset, labels[: len(dataset)], fractions, seed)
