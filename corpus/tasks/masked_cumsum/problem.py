import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Cumulative sum that only accumulates the elements whose mask entry is True.

    Parameters:
        dim (int): the dimension to scan along.
    """

    def __init__(self, dim):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x, mask):
        """
        Args:
            x (torch.Tensor): values, shape (batch_size, *input_shape).
            mask (torch.Tensor): bool tensor shaped like x; False entries contribute zero.

        Returns:
            torch.Tensor: same shape as x, cumsum(x * mask) along self.dim.
        """
        return torch.cumsum(x * mask, dim=self.dim)


batch_size = 128
input_shape = (4000,)
dim = 1


def get_inputs():
    x = torch.rand(batch_size, *input_shape)
    mask = torch.randint(0, 2, x.shape).bool()  # each entry kept with probability 1/2
    return [x, mask]


def get_init_inputs():
    return [dim]
