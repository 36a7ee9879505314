import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Product of a diagonal matrix, given by its diagonal, with a dense matrix: C = diag(A) @ B.
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A, B):
        """
        Builds the diagonal matrix from A and multiplies it into B.

        Args:
            A (torch.Tensor): the diagonal entries, shape (N,).
            B (torch.Tensor): dense matrix, shape (N, M).

        Returns:
            torch.Tensor: C of shape (N, M); row i of B scaled by A[i].
        """
        return torch.diag(A) @ B


M = 4096
N = 4096


def get_inputs():
    A = torch.rand(N)
    B = torch.rand(N, M)
    return [A, B]


def get_init_inputs():
    return []  # the model has no constructor arguments
