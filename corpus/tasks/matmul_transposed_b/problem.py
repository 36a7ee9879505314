import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Matrix product against a transposed right operand: C = A @ B^T.
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        """
        Multiplies A by the transpose of B.

        Args:
            A (torch.Tensor): left operand, shape (M, K).
            B (torch.Tensor): right operand stored row-major as (N, K); its transpose is used.

        Returns:
            torch.Tensor: C of shape (M, N), C[m, n] = sum over k of A[m, k] * B[n, k].
        """
        return torch.matmul(A, B.T)


M = 1024
K = 4096
N = 2048


def get_inputs():
    A = torch.rand(M, K)
    B = torch.rand(N, K)
    return [A, B]


def get_init_inputs():
    return []  # the model has no constructor arguments
