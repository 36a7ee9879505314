import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Right-to-left (suffix) cumulative sum along one dimension, computed as flip, scan, flip.

    Parameters:
        dim (int): the dimension to scan along.
    """

    def __init__(self, dim: int):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Suffix sums along dim: out[..., i] = sum of x[..., i:].

        Args:
            x (torch.Tensor): shape (batch_size, *input_shape).

        Returns:
            torch.Tensor: same shape as x.
        """
        return torch.cumsum(x.flip(self.dim), dim=self.dim).flip(self.dim)


batch_size = 128
input_shape = (4000,)
dim = 1


def get_inputs():
    x = torch.rand(batch_size, *input_shape)
    return [x]


def get_init_inputs():
    return [dim]
