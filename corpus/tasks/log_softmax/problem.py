import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Log-softmax along dim 1 (the default) of a (batch, dim) tensor.
    """

    def __init__(self, dim: int = 1):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): shape (batch_size, dim).

        Returns:
            torch.Tensor: x - logsumexp(x) along self.dim (dim 1 here), same shape as x.
        """
        return torch.log_softmax(x, dim=self.dim)


batch_size = 16
dim = 16384


def get_inputs():
    x = torch.rand(batch_size, dim)
    return [x]


def get_init_inputs():
    return []  # nothing to configure
