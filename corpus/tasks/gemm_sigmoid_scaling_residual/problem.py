import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Linear layer followed by a gated residual: the sigmoid of the linear output, scaled by a
    constant, is added back onto the linear output itself.
    """

    def __init__(self, input_size: int, hidden_size: int, scaling_factor: float):
        """
        Args:
            input_size (int): length of each input row.
            hidden_size (int): length of each output row.
            scaling_factor (float): multiplier of the sigmoid branch.
        """
        super(Model, self).__init__()
        self.gemm = nn.Linear(input_size, hidden_size)
        self.scaling_factor = scaling_factor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): input of shape (batch_size, input_size).

        Returns:
            torch.Tensor: sigmoid(z) * scaling_factor + z with z = x W^T + b,
                shape (batch_size, hidden_size).
        """
        x = self.gemm(x)
        # The residual is the same tensor object as the linear output (no copy is needed: the
        # ops below are out of place).
        original_x = x
        x = torch.sigmoid(x)
        x = x * self.scaling_factor
        x = x + original_x
        return x


batch_size = 128
input_size = 1024
hidden_size = 512
scaling_factor = 2.0


def get_inputs():
    return [torch.rand(batch_size, input_size)]


def get_init_inputs():
    return [input_size, hidden_size, scaling_factor]
