import torch
import torch.nn as nn


class Model(nn.Module):
    """
    2D convolution with a square 3x3 kernel, stride 1, padding 1 and a bias; the result has the
    input's height and width.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int = 3):
        """
        Args:
            in_channels (int): channel count C_in of the input.
            out_channels (int): channel count C_out of the result (one filter each).
            kernel_size (int): side of the square kernel (3); the padding is kernel_size // 2.
        """
        super(Model, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=1,
                              padding=kernel_size // 2, bias=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): shape (batch_size, in_channels, height, width).

        Returns:
            torch.Tensor: shape (batch_size, out_channels, height, width).
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
