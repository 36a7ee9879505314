import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Rectified linear unit, elementwise: max(x, 0).
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): any shape, here (batch_size, dim).

        Returns:
            torch.Tensor: max(x, 0), same shape as x.
        """
        return torch.relu(x)


batch_size = 16
dim = 16384


def get_inputs():
    x = torch.rand(batch_size, dim)
    return [x]


def get_init_inputs():
    return []  # nothing to configure
