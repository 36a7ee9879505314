import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Takes the minimum over one dimension and returns the values only (not the indices).
    """

    def __init__(self, dim: int):
        """
        Args:
            dim (int): index of the dimension the minimum is taken over.
        """
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): input tensor, here (batch_size, dim1, dim2).

        Returns:
            torch.Tensor: the smallest value along self.dim, that dimension removed
            (here (batch_size, dim2)).
        """
        return torch.min(x, dim=self.dim)[0]


batch_size = 16
dim1 = 256
dim2 = 256


def get_inputs():
    x = torch.rand(batch_size, dim1, dim2)
    return [x]


def get_init_inputs():
    return [1]  # the middle dimension
