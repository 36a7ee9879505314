import torch
import torch.nn as nn


class Model(nn.Module):
    """
    A 2D convolution with a square 3x3 kernel, padding 1, a bias and stride `stride`
    (2 in this problem's sizes), so the output is about half the input's height and width.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int = 3, stride: int = 2):
        """
        Args:
            in_channels (int): channel count C_in of the input.
            out_channels (int): channel count C_out of the result (one filter each).
            kernel_size (int): side of the square kernel (3); the padding is kernel_size // 2.
            stride (int): step of the kernel along both height and width.
        """
        super(Model, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride,
                              padding=kernel_size // 2, bias=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): shape (batch_size, in_channels, height, width).

        Returns:
            torch.Tensor: shape (batch_size, out_channels, (height - 1) // stride + 1,
            (width - 1) // stride + 1).
        """
        return self.conv(x)


batch_size = 16
in_channels = 3
out_channels = 64
kernel_size = 3
stride = 2
height = 256
width = 256


def get_inputs():
    x = torch.rand(batch_size, in_channels, height, width)
    return [x]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, stride]
