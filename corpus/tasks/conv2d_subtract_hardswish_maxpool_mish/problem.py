import torch
import torch.nn as nn


class Model(nn.Module):
    """
    A 2D convolution (stride 1, no padding, with its own bias), minus a constant, HardSwish,
    non-overlapping max pooling (window = stride = pool_kernel_size, partial windows dropped), then
    Mish on the pooled values.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int,
                 subtract_value: float, pool_kernel_size: int):
        """
        Args:
            in_channels (int): channels of the input.
            out_channels (int): channels of the output.
            kernel_size (int): height and width of the (square) convolution filter.
            subtract_value (float): constant taken off every convolution output.
            pool_kernel_size (int): side of the square max-pooling window, also its stride.
        """
        super(Model, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.subtract_value = subtract_value
        self.pool = nn.MaxPool2d(pool_kernel_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): input of shape (batch_size, in_channels, height, width).

        Returns:
            torch.Tensor: mish(maxpool(hardswish(conv(x) - subtract_value))), shape (batch_size,
                out_channels, (height - kernel_size + 1) // p, (width - kernel_size + 1) // p)
                with p = pool_kernel_size.
        """
        x = self.conv(x)
        x = x - self.subtract_value
        x = torch.nn.functional.hardswish(x)
        x = self.pool(x)
        x = torch.nn.functional.mish(x)
        return x


batch_size = 128
in_channels = 3
out_channels = 16
height, width = 32, 32
kernel_size = 3
subtract_value = 0.5
pool_kernel_size = 2


def get_inputs():
    return [torch.rand(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, subtract_value, pool_kernel_size]
