import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Largest value along one dimension (the values of torch.max, not the indices); that
    dimension is removed.
    """

    def __init__(self, dim: int):
        """
        Args:
            dim (int): index of the dimension the maximum is taken over.
        """
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): any shape, here (batch_size, dim1, dim2).

        Returns:
            torch.Tensor: the maximum along self.dim, here of shape (batch_size, dim2).
        """
        return torch.max(x, dim=self.dim)[0]


batch_size = 16
dim1 = 256
dim2 = 256


def get_inputs():
    x = torch.rand(batch_size, dim1, dim2)
    return [x]


def get_init_inputs():
    return [1]
