import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Position of the smallest element along one dimension (torch.argmin); ties resolve to the
    lowest index.
    """

    def __init__(self, dim: int):
        """
        Args:
            dim (int): axis searched for its minimum; it is absent from the result.
        """
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): float tensor, here (batch_size, dim1).

        Returns:
            torch.Tensor: int64 tensor of shape (batch_size,), the first index of the row minimum.
        """
        return torch.argmin(x, dim=self.dim)


batch_size = 4096
dim1 = 256


def get_inputs():
    x = torch.rand(batch_size, dim1)
    return [x]


def get_init_inputs():
    return [1]
