import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Group Normalization: the channels are split into num_groups contiguous groups and each
    (sample, group) slice is normalised with its own statistics, then scaled and shifted per
    channel by the affine parameters.
    """

    def __init__(self, num_features: int, num_groups: int):
        """
        Args:
            num_features (int): Channel count C (a multiple of num_groups).
            num_groups (int): Number of channel groups G.
        """
        super(Model, self).__init__()
        self.gn = nn.GroupNorm(num_groups=num_groups, num_channels=num_features)
        # nn.GroupNorm starts from weight = 1 and bias = 0, under which a kernel that ignores or
        # mis-indexes the affine parameters still looks right; draw them instead (the caller
        # seeds the generator, so they are deterministic).
        with torch.no_grad():
            self.gn.weight.uniform_(0.5, 1.5)
            self.gn.bias.uniform_(-0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): Activations of shape (batch_size, num_features, *).

        Returns:
            torch.Tensor: gamma[c] * (x - mean_g) / sqrt(var_g + eps) + beta[c], same shape as x.
        """
        return self.gn(x)


batch_size = 16
features = 64
num_groups = 8
dim1 = 256
dim2 = 256


def get_inputs():
    x = torch.rand(batch_size, features, dim1, dim2)
    return [x]


def get_init_inputs():
    return [features, num_groups]
