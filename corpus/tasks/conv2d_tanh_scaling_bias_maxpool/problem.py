import torch
import torch.nn as nn


class Model(nn.Module):
    """
    A 2D convolution (stride 1, no padding, with its own bias), tanh, multiplication by a constant,
    the addition of a learned per-channel bias broadcast over the pixels, then non-overlapping max
    pooling (window = stride = pool_kernel_size, no padding, partial windows dropped).
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int,
                 scaling_factor: float, bias_shape, pool_kernel_size: int):
        """
        Args:
            in_channels (int): channels of the input.
            out_channels (int): channels of the output.
            kernel_size (int): height and width of the (square) convolution filter.
            scaling_factor (float): multiplier applied after the tanh.
            bias_shape (tuple or int): shape of the added bias, (out_channels, 1, 1) in KernelBench;
                an integer n stands for (n, 1, 1) (kaudit's init inputs are numbers).
            pool_kernel_size (int): side of the square max-pooling window, also its stride.
        """
        super(Model, self).__init__()
        if isinstance(bias_shape, int):
            bias_shape = (bias_shape, 1, 1)
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.scaling_factor = scaling_factor
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.max_pool = nn.MaxPool2d(pool_kernel_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): input of shape (batch_size, in_channels, height, width).

        Returns:
            torch.Tensor: maxpool(tanh(conv(x)) * scaling_factor + bias), shape (batch_size,
                out_channels, (height - kernel_size + 1) // p, (width - kernel_size + 1) // p)
                with p = pool_kernel_size.
        """
        x = self.conv(x)
        x = torch.tanh(x)
        x = x * self.scaling_factor
        x = x + self.bias
        x = self.max_pool(x)
        return x


batch_size = 128
in_channels = 3
out_channels = 16
height, width = 32, 32
kernel_size = 3
scaling_factor = 2.0
bias_shape = (out_channels, 1, 1)
pool_kernel_size = 2


def get_inputs():
    return [torch.rand(batch_size, in_channels, height, width)]


def get_init_inputs():
    # KernelBench passes the tuple bias_shape; task.json passes out_channels in its place.
    return [in_channels, out_channels, kernel_size, scaling_factor, bias_shape, pool_kernel_size]
