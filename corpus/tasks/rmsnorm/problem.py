import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Root-mean-square normalisation over dim 1 (the features), with no learned scale or shift.
    """

    def __init__(self, num_features: int, eps: float = 1e-5):
        """
        Args:
            num_features (int): size of dim 1, over which the mean square is taken.
            eps (float, optional): added to the mean square before the square root. Defaults
                to 1e-5.
        """
        super(Model, self).__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): shape (batch_size, num_features, *).

        Returns:
            torch.Tensor: x / sqrt(mean(x^2 over dim 1) + eps), same shape as x.
        """
        # root mean square over dim 1, kept as a size-1 dim so it broadcasts
        rms = torch.sqrt(torch.mean(x ** 2, dim=1, keepdim=True) + self.eps)

        # every element divided by the RMS of its feature vector
        return x / rms


batch_size = 16
features = 64
dim1 = 256
dim2 = 256
eps = 1e-5


def get_inputs():
    x = torch.rand(batch_size, features, dim1, dim2)
    return [x]


def get_init_inputs():
    return [features, eps]
