import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Triplet margin loss for metric learning: pulls each anchor towards its positive and pushes
    it away from its negative until the two distances differ by at least the margin.

    Parameters:
        margin (float): required gap between the anchor-negative and anchor-positive distances.
    """

    def __init__(self, margin=1.0):
        super(Model, self).__init__()
        self.loss_fn = torch.nn.TripletMarginLoss(margin=margin)

    def forward(self, anchor, positive, negative):
        """
        Args:
            anchor, positive, negative (torch.Tensor): shape (batch_size, *input_shape) each.

        Returns:
            torch.Tensor: 0-dim tensor, mean over rows of max(0, margin + d(a, p) - d(a, n)),
            d the Euclidean distance of pairwise_distance (eps = 1e-6 added to the difference).
        """
        return self.loss_fn(anchor, positive, negative)


batch_size = 128
input_shape = (4096,)
dim = 1


def get_inputs():
    return [torch.rand(batch_size, *input_shape), torch.rand(batch_size, *input_shape),
            torch.rand(batch_size, *input_shape)]


def get_init_inputs():
    return [1.0]  # the margin
