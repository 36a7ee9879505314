import torch
import torch.nn as nn


class Model(nn.Module):
    """
    A 2D convolution (stride 1, no padding, with its own bias), the result multiplied by a
    constant factor, then the smallest value across the output channels at every pixel, kept as a
    channel dimension of size 1.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, scale_factor: float):
        """
        Args:
            in_channels (int): channels of the input.
            out_channels (int): channels the convolution produces (the min runs over them).
            kernel_size (int): height and width of the (square) convolution filter.
            scale_factor (float): multiplier applied to the convolution's output before the min.
        """
        super(Model, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.scale_factor = scale_factor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): input of shape (batch_size, in_channels, height, width).

        Returns:
            torch.Tensor: min over channels of scale_factor * conv(x), shape
                (batch_size, 1, height - kernel_size + 1, width - kernel_size + 1).
        """
        x = self.conv(x)
        x = x * self.scale_factor
        # torch.min with a dim returns (values, indices); only the values are the output.
        x = torch.min(x, dim=1, keepdim=True)[0]
        return x


batch_size = 128
in_channels = 3
out_channels = 16
height, width = 32, 32
kernel_size = 3
scale_factor = 2.0


def get_inputs():
    return [torch.rand(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, scale_factor]
