import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Cross-entropy of unnormalised class scores (logits) against integer labels, averaged over
    the batch.
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """
        Args:
            predictions (torch.Tensor): logits of shape (batch_size, num_classes).
            targets (torch.Tensor): int64 class indices of shape (batch_size,), in [0, num_classes).

        Returns:
            torch.Tensor: 0-dim tensor, the mean cross-entropy over the batch.
        """
        return torch.nn.functional.cross_entropy(predictions, targets)


batch_size = 4096
num_classes = 10
input_shape = (num_classes,)  # one logit per class
dim = 1


def get_inputs():
    return [torch.rand(batch_size, *input_shape), torch.randint(0, num_classes, (batch_size,))]


def get_init_inputs():
    return []
