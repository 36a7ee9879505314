import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Applies LeakyReLU elementwise: x where x >= 0, negative_slope * x elsewhere.
    """

    def __init__(self, negative_slope: float = 0.01):
        """
        Args:
            negative_slope (float, optional): factor applied to negative inputs (default 0.01).
        """
        super(Model, self).__init__()
        self.negative_slope = negative_slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): input of any shape, here (batch_size, dim).

        Returns:
            torch.Tensor: LeakyReLU of x with the module's slope, same shape as x.
        """
        return torch.nn.functional.leaky_relu(x, negative_slope=self.negative_slope)


batch_size = 16
dim = 16384


def get_inputs():
    x = torch.rand(batch_size, dim)
    return [x]


def get_init_inputs():
    return []  # the slope keeps its default of 0.01
