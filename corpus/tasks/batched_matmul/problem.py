import torch
import torch.nn as nn


class Model(nn.Module):
    """
    A batch of independent matrix products, C[b] = A[b] @ B[b] for every b (torch.bmm).
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        """
        Args:
            A (torch.Tensor): left factors, shape (batch_size, m, k).
            B (torch.Tensor): right factors, shape (batch_size, k, n).

        Returns:
            torch.Tensor: the products, shape (batch_size, m, n).
        """
        return torch.bmm(A, B)


batch_size = 128
m = 128
k = 256
n = 512


def get_inputs():
    A = torch.rand(batch_size, m, k)
    B = torch.rand(batch_size, k, n)
    return [A, B]


def get_init_inputs():
    return []  # the model has no constructor arguments
