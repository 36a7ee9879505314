import torch
import torch.nn as nn


class Model(nn.Module):
    """
    A matrix times a column vector: C = A @ B with B stored as a (K, 1) matrix.
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        """
        Args:
            A (torch.Tensor): matrix, shape (M, K).
            B (torch.Tensor): column vector, shape (K, 1).

        Returns:
            torch.Tensor: column vector A @ B, shape (M, 1).
        """
        return torch.matmul(A, B)


M = 256
K = 131072


def get_inputs():
    A = torch.rand(M, K)
    B = torch.rand(K, 1)
    return [A, B]


def get_init_inputs():
    return []  # the model has no constructor arguments
