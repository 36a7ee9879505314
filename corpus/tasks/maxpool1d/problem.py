import torch
import torch.nn as nn


class Model(nn.Module):
    """
    One-dimensional max pooling over the last axis of a (batch, channels, length) tensor.
    """

    def __init__(self, kernel_size: int, stride: int = None, padding: int = 0, dilation: int = 1,
                 return_indices: bool = False):
        """
        Args:
            kernel_size (int): number of taps in each window.
            stride (int, optional): step between window starts; None means kernel_size.
            padding (int, optional): implicit -inf padding on both ends. Defaults to 0.
            dilation (int, optional): distance between neighbouring taps. Defaults to 1.
            return_indices (bool, optional): also return argmax positions. Defaults to False.
        """
        super(Model, self).__init__()
        self.maxpool = nn.MaxPool1d(kernel_size=kernel_size, stride=stride, padding=padding,
                                    dilation=dilation, return_indices=return_indices)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): shape (batch_size, features, sequence_length).

        Returns:
            torch.Tensor: shape (batch_size, features, L_out) with
            L_out = (sequence_length + 2 * padding - dilation * (kernel_size - 1) - 1) // stride + 1.
        """
        return self.maxpool(x)


batch_size = 16
features = 64
sequence_length = 128

kernel_size = 4
stride = 2
padding = 2
dilation = 3


def get_inputs():
    x = torch.rand(batch_size, features, sequence_length)
    return [x]


def get_init_inputs():
    # return_indices keeps its default (False): the kaudit spec format has no boolean init input.
    return [kernel_size, stride, padding, dilation]
