import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Product of two lower-triangular square matrices, keeping the lower triangle: C = tril(A @ B).
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A, B):
        """
        Multiplies two lower-triangular matrices.

        Args:
            A (torch.Tensor): lower-triangular matrix, shape (M, M).
            B (torch.Tensor): lower-triangular matrix, shape (M, M).

        Returns:
            torch.Tensor: tril(A @ B), shape (M, M).
        """
        return torch.tril(torch.matmul(A, B))


M = 4096


def get_inputs():
    A = torch.tril(torch.rand(M, M))
    B = torch.tril(torch.rand(M, M))
    return [A, B]


def get_init_inputs():
    return []  # the model has no constructor arguments
