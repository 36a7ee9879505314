import torch
import torch.nn as nn


class Model(nn.Module):
    """
    GEMM (nn.Linear), multiplication by a constant, Hardtanh clamp, then exact (erf) GELU.
    """

    def __init__(self, in_features: int, out_features: int, scaling_factor: float,
                 hardtanh_min: float, hardtanh_max: float):
        """
        Args:
            in_features (int): size of each input row.
            out_features (int): size of each output row.
            scaling_factor (float): multiplier applied to the linear output.
            hardtanh_min (float): lower clamp bound.
            hardtanh_max (float): upper clamp bound.
        """
        super(Model, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.scaling_factor = scaling_factor
        self.hardtanh = nn.Hardtanh(min_val=hardtanh_min, max_val=hardtanh_max)
        self.gelu = nn.GELU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): input of shape (batch_size, in_features).

        Returns:
            torch.Tensor: gelu(clamp((x W^T + b) * scaling_factor, hardtanh_min, hardtanh_max)),
                shape (batch_size, out_features).
        """
        x = self.gemm(x)
        x = x * self.scaling_factor
        x = self.hardtanh(x)
        x = self.gelu(x)
        return x


batch_size = 128
in_features = 1024
out_features = 512
scaling_factor = 0.5
# KernelBench writes the bounds as ints; floats here, as task.json has them (TorchScript's
# nn.Hardtanh takes float bounds).
hardtanh_min = -2.0
hardtanh_max = 2.0


def get_inputs():
    return [torch.rand(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, scaling_factor, hardtanh_min, hardtanh_max]
