import torch
import torch.nn as nn


class Model(nn.Module):
    """
    KL(targets || predictions) for two batches of probability rows, summed over the elements
    and divided by the batch size (reduction='batchmean').
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """
        Args:
            predictions (torch.Tensor): probability rows of shape (batch_size, *input_shape).
            targets (torch.Tensor): probability rows of the same shape.

        Returns:
            torch.Tensor: 0-dim tensor, sum(targets * (log(targets) - log(predictions))) / batch_size.
        """
        return torch.nn.functional.kl_div(torch.log(predictions), targets, reduction='batchmean')


batch_size = 128
input_shape = (4096,)
dim = 1


def get_inputs():
    return [torch.rand(batch_size, *input_shape).softmax(dim=-1), torch.rand(batch_size, *input_shape).softmax(dim=-1)]


def get_init_inputs():
    return []
