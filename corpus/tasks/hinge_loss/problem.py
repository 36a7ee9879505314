import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Mean hinge loss of real-valued scores against binary labels.

    KernelBench feeds the labels as floats that are exactly +1 or -1. This corpus has no value
    domain for "+-1 floats", so the labels arrive as a boolean mask (True = +1, False = -1) and
    the sign is made here, inside forward; the loss formula itself is KernelBench's.
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """
        Args:
            predictions (torch.Tensor): float scores, shape (batch_size, *input_shape).
            targets (torch.Tensor): bool labels, shape (batch_size, 1): one label per row,
                broadcast over the row.

        Returns:
            torch.Tensor: 0-dim tensor, mean over all elements of max(0, 1 - y * predictions)
            with y = +1 where targets is True and -1 where it is False.
        """
        signs = targets.to(predictions.dtype) * 2 - 1
        return torch.mean(torch.clamp(1 - predictions * signs, min=0))


batch_size = 128
input_shape = (1,)
dim = 1


def get_inputs():
    return [torch.rand(batch_size, *input_shape), torch.randint(0, 2, (batch_size, 1)).bool()]


def get_init_inputs():
    return []
