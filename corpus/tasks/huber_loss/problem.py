import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Smooth L1 (Huber) loss with beta = 1, averaged over all elements: for d = predictions -
    targets, each element contributes 0.5 * d^2 where |d| < 1 and |d| - 0.5 elsewhere.
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """
        Args:
            predictions (torch.Tensor): shape (batch_size, *input_shape).
            targets (torch.Tensor): same shape as predictions.

        Returns:
            torch.Tensor: 0-dim tensor, mean smooth L1 loss with beta = 1.0.
        """
        return torch.nn.functional.smooth_l1_loss(predictions, targets)


batch_size = 128
input_shape = (4096,)
dim = 1


def get_inputs():
    return [torch.rand(batch_size, *input_shape), torch.rand(batch_size, *input_shape)]


def get_init_inputs():
    return []
