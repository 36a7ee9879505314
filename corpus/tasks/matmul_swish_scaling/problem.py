import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Linear layer, then Swish (z * sigmoid(z)) and a constant scale.
    """

    def __init__(self, in_features: int, out_features: int, scaling_factor: float):
        """
        Args:
            in_features (int): length of each input row.
            out_features (int): length of each output row.
            scaling_factor (float): multiplier applied after the Swish.
        """
        super(Model, self).__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.scaling_factor = scaling_factor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): input of shape (batch_size, in_features).

        Returns:
            torch.Tensor: z * sigmoid(z) * scaling_factor with z = x W^T + b,
                shape (batch_size, out_features).
        """
        x = self.matmul(x)
        x = x * torch.sigmoid(x)  # Swish (SiLU), written out
        x = x * self.scaling_factor
        return x


batch_size = 128
in_features = 1024
out_features = 512
scaling_factor = 2.0


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, scaling_factor]
