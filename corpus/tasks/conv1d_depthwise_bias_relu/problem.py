import torch
import torch.nn as nn


class Model(nn.Module):
    """
    A depthwise 1D convolution (one filter per channel, groups = channels, stride 1,
    padding kernel_size // 2, with bias) followed by ReLU.
    """

    def __init__(self, channels: int, kernel_size: int):
        """
        Args:
            channels (int): Number of channels C of the input, also of the output.
            kernel_size (int): Length K of each channel's filter; padding is K // 2 on both sides,
                so the output keeps the input's length for odd K and is one longer for even K.
        """
        super(Model, self).__init__()
        self.conv1d = nn.Conv1d(channels, channels, kernel_size, stride=1,
                                padding=kernel_size // 2, groups=channels, bias=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): shape (batch_size, channels, length).

        Returns:
            torch.Tensor: relu(depthwise_conv1d(x) + bias), shape (batch_size, channels,
                length + 2 * (kernel_size // 2) - kernel_size + 1).
        """
        return torch.relu(self.conv1d(x))


# Sizes of KernelBench level1/67_conv_standard_1D (v0), with channels = its in_channels.
batch_size = 16
channels = 3
kernel_size = 3
length = 512


def get_inputs():
    x = torch.rand(batch_size, channels, length)
    return [x]


def get_init_inputs():
    return [channels, kernel_size]
