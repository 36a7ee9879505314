import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Inclusive prefix sum along one dimension: out[..., i] = x[..., 0] + ... + x[..., i].
    """

    def __init__(self, dim: int):
        """
        Args:
            dim (int): the dimension the running sum walks along.
        """
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): shape (batch_size, *input_shape).

        Returns:
            torch.Tensor: same shape as x, the running sums along self.dim.
        """
        return torch.cumsum(x, dim=self.dim)


batch_size = 128
input_shape = (4000,)
dim = 1


def get_inputs():
    x = torch.rand(batch_size, *input_shape)
    return [x]


def get_init_inputs():
    return [dim]
