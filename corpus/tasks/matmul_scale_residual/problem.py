import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Linear layer whose output is scaled and then added back to an unscaled copy of itself:
    y = linear(x); out = y * scaling_factor + y.

    Args:
        in_features (int): size of each input row.
        out_features (int): size of each output row.
        scaling_factor (float): multiplier applied to the linear output before the residual add.
    """

    def __init__(self, in_features: int, out_features: int, scaling_factor: float):
        super(Model, self).__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.scaling_factor = scaling_factor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): input of shape (batch_size, in_features).

        Returns:
            torch.Tensor: (x W^T + b) * scaling_factor + (x W^T + b), shape (batch_size, out_features).
        """
        x = self.matmul(x)
        # The residual is a detached copy taken before scaling; in the forward pass it is just
        # the linear output again.
        residual = x.clone().detach()
        x = x * self.scaling_factor
        x = x + residual
        return x


batch_size = 128
in_features = 64
out_features = 128
scaling_factor = 0.5


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, scaling_factor]
