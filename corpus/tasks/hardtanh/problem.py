import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    HardTanh, elementwise: every value is clipped into [-1, 1].
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): any shape, here (batch_size, dim).

        Returns:
            torch.Tensor: x clamped to [-1, 1], same shape as input.
        """
        return F.hardtanh(x, min_val=-1., max_val=1.)


batch_size = 16
dim = 16384


def get_inputs():
    x = torch.rand(batch_size, dim)
    return [x]


def get_init_inputs():
    return []  # nothing to configure
