import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Exponential linear unit (ELU), elementwise, with a configurable alpha.
    """

    def __init__(self, alpha: float = 1.0):
        """
        Args:
            alpha (float, optional): scale of the negative branch; the output tends to -alpha
                as x goes to -inf. Defaults to 1.0.
        """
        super(Model, self).__init__()
        self.alpha = alpha

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): any shape, here (batch_size, dim).

        Returns:
            torch.Tensor: x > 0 ? x : alpha * (exp(x) - 1), same shape as input.
        """
        return F.elu(x, alpha=self.alpha)


batch_size = 16
dim = 16384


def get_inputs():
    x = torch.rand(batch_size, dim)
    return [x]


def get_init_inputs():
    return [1.0]  # alpha
