import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Transposed 2D convolution (the gradient-of-convolution, or "deconvolution", operator) with
    a square kernel.

    Args:
        in_channels (int): channel count C_in of the input.
        out_channels (int): channel count C_out of the result.
        kernel_size (int): side of the square kernel.
        stride (int, optional): spacing of the input pixels in the output grid. Defaults to 1.
        padding (int, optional): number of rows and columns cut from each border of the full
            result. Defaults to 0.
        output_padding (int, optional): extra rows and columns appended at the bottom and
            right of the result. Defaults to 0.
        groups (int, optional): channel groups G (C_in and C_out multiples of G). Defaults to 1.
        bias (bool, optional): whether a per-output-channel bias is added. Defaults to False.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 padding: int = 0, output_padding: int = 0, groups: int = 1, bias: bool = False):
        super(Model, self).__init__()
        self.conv_transpose2d = nn.ConvTranspose2d(in_channels, out_channels, kernel_size,
                                                   stride=stride, padding=padding,
                                                   output_padding=output_padding, groups=groups,
                                                   bias=bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): shape (batch_size, in_channels, height, width).

        Returns:
            torch.Tensor: shape (batch_size, out_channels, height_out, width_out), with
                height_out = (height - 1) * stride - 2 * padding + kernel_size + output_padding
                and width_out likewise.
        """
        return self.conv_transpose2d(x)


# KernelBench level1/57 (v0 sizes); stride 1, padding 0, output_padding 0, no bias.
batch_size = 16
in_channels = 32
out_channels = 64
kernel_size = 3
width = 128
height = 128


def get_inputs():
    x = torch.rand(batch_size, in_channels, height, width)
    return [x]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]  # stride, padding, output_padding: defaults
