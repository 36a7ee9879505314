import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Exact (erf) GELU applied elementwise to a float16 tensor.
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): float16 tensor of shape (batch_size, dim).

        Returns:
            torch.Tensor: 0.5 * x * (1 + erf(x / sqrt(2))), same shape and dtype as x.
        """
        # Evaluated in float32 on half inputs (a float32 or float64 reference run keeps its own
        # precision) and rounded once to float16, as half-precision CUDA kernels do.
        work = x.float() if x.dtype == torch.float16 else x
        return torch.nn.functional.gelu(work).to(torch.float16)


batch_size = 16
dim = 16384


def get_inputs():
    x = torch.rand(batch_size, dim).half()
    return [x]


def get_init_inputs():
    return []  # the module has no constructor arguments
