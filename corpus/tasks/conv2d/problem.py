import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Performs a standard 2D convolution with a square 3x3 kernel, stride 1, padding 1 and a bias,
    so the output keeps the input's spatial size.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int = 3):
        """
        Args:
            in_channels (int): Number of channels in the input tensor.
            out_channels (int): Number of channels produced by the convolution.
            kernel_size (int): Size of the square convolution kernel (3).
        """
        super(Model, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=1,
                              padding=kernel_size // 2, bias=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Performs the 2D convolution.

        Args:
            x (torch.Tensor): Input tensor of shape (batch_size, in_channels, height, width).

        Returns:
            torch.Tensor: Output tensor of shape (batch_size, out_channels, height, width).
        """
        return self.conv(x)


batch_size = 16
in_channels = 3
out_channels = 64
kernel_size = 3
height = 256
width = 256


def get_inputs():
    x = torch.rand(batch_size, in_channels, height, width)
    return [x]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
