import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Averages the input over one dimension; that dimension is dropped from the result.
    """

    def __init__(self, dim: int):
        """
        Args:
            dim (int): index of the dimension to average over.
        """
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): any tensor; here (batch_size, dim1, dim2).

        Returns:
            torch.Tensor: the mean along self.dim, with that dimension removed
            (here (batch_size, dim2)).
        """
        return torch.mean(x, dim=self.dim)


batch_size = 16
dim1 = 256
dim2 = 256


def get_inputs():
    x = torch.rand(batch_size, dim1, dim2)
    return [x]


def get_init_inputs():
    return [1]
