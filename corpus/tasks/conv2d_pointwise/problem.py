import torch
import torch.nn as nn


class Model(nn.Module):
    """
    1x1 convolution in 2D: each output pixel is a linear map of the input channels at that same
    pixel (plus an optional per-channel bias).

    Args:
        in_channels (int): channel count C_in of the input.
        out_channels (int): channel count C_out of the result.
        bias (bool, optional): whether a per-output-channel bias is added. Defaults to False.
    """

    def __init__(self, in_channels: int, out_channels: int, bias: bool = False):
        super(Model, self).__init__()
        self.conv1d = nn.Conv2d(in_channels, out_channels, kernel_size=1, stride=1, padding=0,
                                bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): shape (batch_size, in_channels, height, width).

        Returns:
            torch.Tensor: shape (batch_size, out_channels, height, width).
        """
        return self.conv1d(x)


batch_size = 16
in_channels = 3
out_channels = 64
width = 256
height = 256


def get_inputs():
    x = torch.rand(batch_size, in_channels, height, width)
    return [x]


def get_init_inputs():
    return [in_channels, out_channels]
