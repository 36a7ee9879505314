import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Multiplies the elements along one dimension together; that dimension is dropped.
    """

    def __init__(self, dim: int):
        """
        Args:
            dim (int): index of the dimension whose elements are multiplied.
        """
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): input tensor, here (batch_size, dim1, dim2).

        Returns:
            torch.Tensor: the product along self.dim, with that dimension removed
            (here (batch_size, dim2)).
        """
        return torch.prod(x, dim=self.dim)


batch_size = 16
dim1 = 256
dim2 = 256
reduction_dim = 1


def get_inputs():
    x = torch.rand(batch_size, dim1, dim2)
    return [x]


def get_init_inputs():
    return [reduction_dim]
