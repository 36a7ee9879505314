import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Softmax along dim 1 of a (batch, features) tensor: every row becomes a probability
    distribution.
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): shape (batch_size, num_features).

        Returns:
            torch.Tensor: exp(x) / sum(exp(x)) along dim 1, same shape as x.
        """
        return torch.softmax(x, dim=1)


batch_size = 16
dim = 16384


def get_inputs():
    x = torch.rand(batch_size, dim)
    return [x]


def get_init_inputs():
    return []  # nothing to configure
