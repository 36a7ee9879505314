import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Layer Normalization over the last dimension of a float16 tensor, with float16 affine
    parameters (weight and bias).
    """

    def __init__(self, normalized_dim: int):
        """
        Args:
            normalized_dim (int): size of the normalised (last) dimension.
        """
        super(Model, self).__init__()
        self.normalized_dim = normalized_dim
        self.eps = 1e-5
        self.ln = nn.LayerNorm(normalized_dim, eps=1e-5)
        # Non-trivial, seeded affine parameters (the defaults 1 and 0 would hide a kernel that
        # ignores them), then stored in half precision like the activations.
        with torch.no_grad():
            self.ln.weight.uniform_(0.5, 1.5)
            self.ln.bias.uniform_(-0.5, 0.5)
        self.ln.half()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): float16 tensor of shape (batch_size, normalized_dim).

        Returns:
            torch.Tensor: (x - mean) / sqrt(var + eps) * weight + bias over the last dimension,
            same shape and dtype as x.
        """
        # Half tensors are normalised in float32 (statistics included); any other floating dtype
        # (the float64 ground truth) is used as is. Either way the result is rounded once to
        # float16, as a checker running this Model on half inputs gets it. The half parameters
        # are widened to the working dtype, which is exact.
        work = x.float() if x.dtype == torch.float16 else x
        y = F.layer_norm(work, [self.normalized_dim], self.ln.weight.to(work.dtype),
                         self.ln.bias.to(work.dtype), self.eps)
        return y.to(torch.float16)


batch_size = 16
normalized_dim = 64 * 256 * 256  # KernelBench normalises (64, 256, 256) trailing elements


def get_inputs():
    x = torch.rand(batch_size, normalized_dim).half()
    return [x]


def get_init_inputs():
    return [normalized_dim]
