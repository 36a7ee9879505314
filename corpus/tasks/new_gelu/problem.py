import math

import torch
import torch.nn as nn


class Model(nn.Module):
    """
    GELU in its tanh approximation, as minGPT's NewGELU and the original GPT/BERT code write it:
    0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x):
        """
        Args:
            x (torch.Tensor): input of any shape, here (batch_size, dim).

        Returns:
            torch.Tensor: the tanh-approximated GELU of x, same shape as x.
        """
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))
        return 0.5 * x * (1.0 + torch.tanh(inner))


batch_size = 2000
dim = 2000


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []  # nothing to configure
