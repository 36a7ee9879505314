import torch
import torch.nn as nn


class Model(nn.Module):
    """
    LayerNorm of every row over its last dimension, followed by the elementwise affine step
    (weight, bias).
    """

    def __init__(self, normalized_dim: int):
        """
        Args:
            normalized_dim (int): Size of the last dimension (the normalized one).
        """
        super(Model, self).__init__()
        self.ln = nn.LayerNorm(normalized_dim, eps=1e-5)
        # nn.LayerNorm starts with weight = 1 and bias = 0, which would hide any misuse of the
        # affine parameters; give them deterministic non-trivial values (seeded by the caller).
        with torch.no_grad():
            self.ln.weight.uniform_(0.5, 1.5)
            self.ln.bias.uniform_(-0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): shape (batch_size, normalized_dim).

        Returns:
            torch.Tensor: (x - mean) / sqrt(var + eps) * weight + bias per row, with the biased
            variance and eps = 1e-5; same shape as x.
        """
        return self.ln(x)


batch_size = 16
normalized_dim = 64 * 256 * 256  # KernelBench normalizes (64, 256, 256) trailing elements


def get_inputs():
    x = torch.rand(batch_size, normalized_dim)
    return [x]


def get_init_inputs():
    return [normalized_dim]
