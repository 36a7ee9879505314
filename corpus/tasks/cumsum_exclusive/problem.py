import torch
import torch.nn as nn


class Model(nn.Module):
    """
    "Exclusive" cumulative sum, built by prepending a zero slice along dim and then scanning.

    Note what the slicing does: the trailing `[:-1]` drops the last entry of dimension 0 (the
    batch), not of `dim`. For a 2-D input of shape [B, D] scanned along dim 1 the result is
    therefore [B - 1, D + 1]: row r is 0, x[r, 0], x[r, 0] + x[r, 1], ..., sum(x[r, :]), and the
    input's last row does not appear. This model keeps that behaviour as it is.

    Parameters:
        dim (int): the dimension to scan along.
    """

    def __init__(self, dim):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x):
        leading_zero = torch.zeros_like(x.select(self.dim, 0).unsqueeze(self.dim))
        padded = torch.cat((leading_zero, x), dim=self.dim)[:-1]
        return torch.cumsum(padded, dim=self.dim)


batch_size = 128
input_shape = (4000,)
dim = 1


def get_inputs():
    x = torch.rand(batch_size, *input_shape)
    return [x]


def get_init_inputs():
    return [dim]
