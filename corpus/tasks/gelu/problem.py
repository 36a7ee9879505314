import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Simple model that performs a GELU activation (exact erf form, nn.GELU() default).
    """

    def __init__(self):
        super(Model, self).__init__()
        self.gelu = nn.GELU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Applies GELU activation to the input tensor.

        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, dim).

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
    return []  # No special initialization inputs needed
