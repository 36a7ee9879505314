import torch
import torch.nn as nn


class Model(nn.Module):
    """
    nn.Linear (x W^T + b) followed by ReLU.
    """

    def __init__(self, in_features: int, out_features: int):
        super(Model, self).__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): shape (batch_size, in_features).

        Returns:
            torch.Tensor: relu(x @ W^T + b), shape (batch_size, out_features).
        """
        x = self.linear(x)
        x = torch.relu(x)
        return x


batch_size = 128
in_features = 1024
out_features = 512


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
