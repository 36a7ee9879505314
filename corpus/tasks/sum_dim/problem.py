import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Sum over one dimension, which stays in the result with size 1.
    """

    def __init__(self, dim: int):
        """
        Args:
            dim (int): index of the dimension that is summed.
        """
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): any shape, here (batch_size, dim1, dim2).

        Returns:
            torch.Tensor: the sums, shape (batch_size, 1, dim2) for dim = 1.
        """
        return torch.sum(x, dim=self.dim, keepdim=True)


batch_size = 16
dim1 = 256
dim2 = 256
reduce_dim = 1


def get_inputs():
    x = torch.rand(batch_size, dim1, dim2)
    return [x]


def get_init_inputs():
    return [reduce_dim]
