import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Two-dimensional average pooling over the last two axes of a (batch, channels, height,
    width) tensor.
    """

    def __init__(self, kernel_size: int, stride: int = None, padding: int = 0):
        """
        Args:
            kernel_size (int): side of the square window.
            stride (int, optional): step between window origins; None means kernel_size.
            padding (int, optional): zeros added on every border; they count towards each
                window's mean (count_include_pad=True, the default). Defaults to 0.
        """
        super(Model, self).__init__()
        self.avg_pool = nn.AvgPool2d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): shape (batch_size, channels, height, width).

        Returns:
            torch.Tensor: shape (batch_size, channels, H_out, W_out) with
            H_out = (height + 2 * padding - kernel_size) // stride + 1, W_out likewise.
        """
        return self.avg_pool(x)


batch_size = 16
channels = 64
height = 256
width = 256
kernel_size = 3
stride = 2
padding = 1


def get_inputs():
    x = torch.rand(batch_size, channels, height, width)
    return [x]


def get_init_inputs():
    return [kernel_size, stride, padding]
