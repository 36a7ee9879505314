import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Batch Normalization in inference mode: every channel of a [batch, C, H, W] tensor is
    normalised with the layer's running mean and running variance, then scaled and shifted by
    the affine parameters.
    """

    def __init__(self, num_features: int):
        """
        Args:
            num_features (int): Number of channels C.
        """
        super(Model, self).__init__()
        self.bn = nn.BatchNorm2d(num_features=num_features)
        # A fresh BatchNorm2d has weight 1, bias 0, running_mean 0 and running_var 1, under
        # which a kernel that ignores (or mis-indexes) any of them still matches; draw them
        # instead (the caller seeds the generator, so they are deterministic).
        with torch.no_grad():
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.5, 0.5)
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 2.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): Input of shape (batch_size, num_features, height, width).

        Returns:
            torch.Tensor: weight[c] * (x - running_mean[c]) / sqrt(running_var[c] + eps)
                + bias[c], same shape as x.
        """
        # Inference mode pinned with the functional call: the running statistics are used and
        # never updated, whatever mode the module is in.
        return F.batch_norm(x, self.bn.running_mean, self.bn.running_var, self.bn.weight,
                            self.bn.bias, training=False, momentum=0.0, eps=self.bn.eps)


batch_size = 16
features = 64
dim1 = 256
dim2 = 256


def get_inputs():
    x = torch.rand(batch_size, features, dim1, dim2)
    return [x]


def get_init_inputs():
    return [features]
