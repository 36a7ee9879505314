import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Running product along one dimension: out[..., i] is the product of x[..., 0..i].

    Parameters:
        dim (int): the dimension the running product walks along.
    """

    def __init__(self, dim):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): input of shape (batch_size, *input_shape).

        Returns:
            torch.Tensor: same shape as x, the inclusive cumulative product along self.dim.
        """
        return torch.cumprod(x, dim=self.dim)


batch_size = 128
input_shape = (4000,)
dim = 1


def get_inputs():
    x = torch.rand(batch_size, *input_shape)
    return [x]


def get_init_inputs():
    return [dim]
