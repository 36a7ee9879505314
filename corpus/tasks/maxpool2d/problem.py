import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Two-dimensional max pooling, without padding, over the last two axes of a (batch, channels,
    height, width) tensor.
    """

    def __init__(self, kernel_size: int, stride: int):
        """
        Args:
            kernel_size (int): side of the square window.
            stride (int): step between window origins, in both directions.
        """
        super(Model, self).__init__()
        self.maxpool = nn.MaxPool2d(kernel_size=kernel_size, stride=stride)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): shape (batch_size, channels, height, width).

        Returns:
            torch.Tensor: shape (batch_size, channels, (height - kernel_size) // stride + 1,
            (width - kernel_size) // stride + 1).
        """
        return self.maxpool(x)


batch_size = 16
channels = 32
height = 128
width = 128
kernel_size = 2
stride = 2


def get_inputs():
    x = torch.rand(batch_size, channels, height, width)
    return [x]


def get_init_inputs():
    return [kernel_size, stride]
