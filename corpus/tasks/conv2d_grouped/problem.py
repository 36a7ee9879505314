import torch
import torch.nn as nn


class Model(nn.Module):
    """
    A grouped 2D convolution: the input channels and the output channels are split into `groups`
    contiguous groups and each output group convolves only its own input group. The kernel is
    3 x 5 (height x width) with padding (1, 2), so the output keeps the input's spatial size;
    stride 1, with bias.
    """

    def __init__(self, in_channels: int, out_channels: int, groups: int):
        """
        Args:
            in_channels (int): channel count C_in of the input, a multiple of groups.
            out_channels (int): channel count C_out of the result, a multiple of groups.
            groups (int): Number of channel groups G.
        """
        super(Model, self).__init__()
        self.conv2d = nn.Conv2d(in_channels, out_channels, (3, 5), stride=1, padding=(1, 2),
                                groups=groups, bias=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): shape (batch_size, in_channels, height, width).

        Returns:
            torch.Tensor: shape (batch_size, out_channels, height, width).
        """
        return self.conv2d(x)


# Sizes and groups of KernelBench level1/75 (grouped transposed 2D convolution), v0 and current.
batch_size = 16
in_channels = 32
out_channels = 64
height = 128
width = 256
groups = 4


def get_inputs():
    x = torch.rand(batch_size, in_channels, height, width)
    return [x]


def get_init_inputs():
    return [in_channels, out_channels, groups]
