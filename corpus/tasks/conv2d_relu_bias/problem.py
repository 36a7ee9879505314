import torch
import torch.nn as nn


class Model(nn.Module):
    """
    A 2D convolution (stride 1, no padding, with its own bias), then ReLU, then the addition of a
    learned per-channel bias of shape (out_channels, 1, 1) broadcast over the spatial dims.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, bias_shape=None):
        """
        Args:
            in_channels (int): channels of the input.
            out_channels (int): channels of the output.
            kernel_size (int): height and width of the (square) convolution filter.
            bias_shape (tuple, optional): shape of the added bias; (out_channels, 1, 1) when
                omitted (kaudit's init inputs are numbers, so the tuple is not passed).
        """
        super(Model, self).__init__()
        if bias_shape is None:
            bias_shape = (out_channels, 1, 1)
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): input of shape (batch_size, in_channels, height, width).

        Returns:
            torch.Tensor: relu(conv(x)) + bias, shape
                (batch_size, out_channels, height - kernel_size + 1, width - kernel_size + 1).
        """
        x = self.conv(x)
        x = torch.relu(x)
        x = x + self.bias
        return x


batch_size = 128
in_channels = 3
out_channels = 16
height, width = 32, 32
kernel_size = 3
bias_shape = (out_channels, 1, 1)


def get_inputs():
    return [torch.rand(batch_size, in_channels, height, width)]


def get_init_inputs():
    # KernelBench passes bias_shape as a fourth argument; it is the default here.
    return [in_channels, out_channels, kernel_size]
