import torch
import torch.nn as nn


class Model(nn.Module):
    """
    GELU in its exact erf form (nn.GELU()'s default), elementwise.
    """

    def __init__(self):
        super(Model, self).__init__()
        self.gelu = nn.GELU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): any shape, here (batch_size, dim).

        Returns:
            torch.Tensor: 0.5 * x * (1 + erf(x / sqrt(2))), same shape as input.
        """
        return self.gelu(x)


batch_size = 16
dim = 16384


def get_inputs():
    x = torch.rand(batch_size, dim)
    return [x]


def get_init_inputs():
    return []  # nothing to configure
