import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    A 2D convolution (stride 1, no padding, with its own bias), the activation
    x * tanh(softplus(x)) (Mish, written out), then BatchNorm2d as a freshly built module computes
    it in training mode: every channel is normalised with the mean and the biased variance of
    that channel over the whole batch and all pixels, then scaled and shifted by the affine
    parameters.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int,
                 eps: float = 1e-5, momentum: float = 0.1):
        """
        Args:
            in_channels (int): channels of the input.
            out_channels (int): channels of the output (BatchNorm's features).
            kernel_size (int): height and width of the (square) convolution filter.
            eps (float): added to the batch variance before the square root.
            momentum (float): running-statistics momentum (the running statistics never reach
                the output of a training-mode forward).
        """
        super(Model, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bn = nn.BatchNorm2d(out_channels, eps=eps, momentum=momentum)
        # BatchNorm starts at weight 1, bias 0, where a kernel that drops or mis-indexes the
        # affine step still matches; draw them instead (the caller seeds the generator).
        with torch.no_grad():
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): input of shape (batch_size, in_channels, height, width).

        Returns:
            torch.Tensor: batchnorm(a) with a = c * tanh(softplus(c)), c = conv(x), shape
                (batch_size, out_channels, height - kernel_size + 1, width - kernel_size + 1).
        """
        x = self.conv(x)
        x = torch.multiply(torch.tanh(F.softplus(x)), x)
        # KernelBench runs the module in its default training mode, so BatchNorm uses the batch's
        # statistics. kaudit exports the reference after eval(), which would switch self.bn to
        # its running statistics; the functional call pins training-mode normalisation. Passing
        # no running buffers leaves them untouched (they do not affect this output).
        x = F.batch_norm(x, None, None, self.bn.weight, self.bn.bias, True, 0.0, self.bn.eps)
        return x


batch_size = 128
in_channels = 3
out_channels = 16
height, width = 32, 32
kernel_size = 3


def get_inputs():
    return [torch.rand(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size]
