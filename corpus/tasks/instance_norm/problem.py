import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Instance Normalization of a 4-D activation: every (sample, channel) plane is normalised
    with its own mean and (biased) variance over the spatial positions.
    """

    def __init__(self, num_features: int):
        """
        Args:
            num_features (int): Channel count C of the input (InstanceNorm2d's num_features).
        """
        super(Model, self).__init__()
        # Defaults: eps = 1e-5, affine = False, track_running_stats = False, so the statistics
        # always come from the input itself, in eval mode too.
        self.inorm = nn.InstanceNorm2d(num_features=num_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): Activations of shape (batch_size, num_features, height, width).

        Returns:
            torch.Tensor: (x - mean_hw) / sqrt(var_hw + eps) per plane, same shape as x.
        """
        return self.inorm(x)


batch_size = 16
features = 64
dim1 = 256
dim2 = 256


def get_inputs():
    x = torch.rand(batch_size, features, dim1, dim2)
    return [x]


def get_init_inputs():
    return [features]
