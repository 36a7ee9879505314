import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Linear layer, the maximum of each row (kept as a column), that column minus its own mean
    over dim 1, then exact (erf) GELU.

    With max_dim = 1 the max leaves a [batch_size, 1] tensor, so the mean over dim 1 averages a
    single value and the subtraction gives exactly 0 for every finite row: the output is a
    column of zeros (GELU(0) = 0), whatever the GEMM computed. KernelBench's problem is written
    this way; it is kept as it is.
    """

    def __init__(self, in_features: int, out_features: int, max_dim: int):
        """
        Args:
            in_features (int): length of each input row.
            out_features (int): length of each linear output row.
            max_dim (int): dimension the max is taken over (1: over the output features).
        """
        super(Model, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.max_dim = max_dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): input of shape (batch_size, in_features).

        Returns:
            torch.Tensor: gelu(m - mean(m, dim=1)) where m = max(x W^T + b, dim=max_dim,
                keepdim=True); shape (batch_size, 1) for max_dim = 1.
        """
        x = self.gemm(x)
        x = torch.max(x, dim=self.max_dim, keepdim=True).values
        x = x - x.mean(dim=1, keepdim=True)
        x = torch.nn.functional.gelu(x)
        return x


batch_size = 128
in_features = 512
out_features = 1024
max_dim = 1


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, max_dim]
