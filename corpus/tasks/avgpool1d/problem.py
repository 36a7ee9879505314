import torch
import torch.nn as nn


class Model(nn.Module):
    """
    One-dimensional average pooling over the last axis of a (batch, channels, length) tensor.
    """

    def __init__(self, kernel_size: int, stride: int = 1, padding: int = 0):
        """
        Args:
            kernel_size (int): window length.
            stride (int, optional): step between window starts. Defaults to 1.
            padding (int, optional): zeros added on both ends. Defaults to 0.
        """
        super(Model, self).__init__()
        self.avg_pool = nn.AvgPool1d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): shape (batch_size, in_channels, input_length).

        Returns:
            torch.Tensor: shape (batch_size, in_channels, L_out) with
            L_out = (input_length + 2 * padding - kernel_size) // stride + 1; padded zeros count
            towards each window's mean (count_include_pad=True, the default).
        """
        return self.avg_pool(x)


batch_size = 16
in_channels = 32
input_length = 128
kernel_size = 4
stride = 2
padding = 1


def get_inputs():
    x = torch.rand(batch_size, in_channels, input_length)
    return [x]


def get_init_inputs():
    return [kernel_size, stride, padding]
