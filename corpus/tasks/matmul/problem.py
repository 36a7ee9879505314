import torch
import torch.nn as nn


class Model(nn.Module):
    """
    One dense product of two square N x N matrices: C = A @ B.
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        """
        Args:
            A (torch.Tensor): left factor, shape (N, N).
            B (torch.Tensor): right factor, shape (N, N).

        Returns:
            torch.Tensor: C = A @ B, shape (N, N).
        """
        return torch.matmul(A, B)


N = 2048


def get_inputs():
    A = torch.rand(N, N)
    B = torch.rand(N, N)
    return [A, B]


def get_init_inputs():
    return []  # the model has no constructor arguments
