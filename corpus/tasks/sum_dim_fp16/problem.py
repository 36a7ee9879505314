import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Sums a float16 tensor over one dimension, keeping that dimension with size 1; the result is
    float16.
    """

    def __init__(self, dim: int):
        """
        Args:
            dim (int): the dimension that is summed away.
        """
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Sums over self.dim.

        Args:
            x (torch.Tensor): float16 tensor of shape (batch_size, dim1, dim2).

        Returns:
            torch.Tensor: float16 tensor of shape (batch_size, 1, dim2) for dim = 1.
        """
        # torch.sum of a float16 tensor accumulates in float32 and rounds once to float16, so the
        # cast is a no-op there; a wider reference run (float32, float64) is rounded once to
        # float16 the same way, sums beyond 65504 becoming inf.
        return torch.sum(x, dim=self.dim, keepdim=True).to(torch.float16)


batch_size = 16
dim1 = 256
dim2 = 256
reduce_dim = 1


def get_inputs():
    x = torch.rand(batch_size, dim1, dim2).half()
    return [x]


def get_init_inputs():
    return [reduce_dim]
