"""The torch trainer's first layer on the observation's non-zero entries only (speed
machinery: ``train/ppo.py`` calls :func:`use_sparse_input` once and its loop is unchanged).

A seat observation is mostly zeros (Common Cause's: ~75 of 1,202 entries), so the shared
first layer's forward and its weight's gradient, about a third of the torch trainer's CPU as
dense matmuls, cost a fraction of that when they read only the non-zeros
(``sparse_kernels.pyx``). :class:`SparseInputLinear` is that layer: an ``nn.Linear`` with the
same parameters, names and state dict, its weight stored transposed in memory (each non-zero
input then reads one contiguous row of it) and the same outputs and gradients up to float
rounding (``tests/train/test_sparse_input.py``). Where the kernels are not built (no
compiler, or ``COMMONCAUSE_PURE_PYTHON``) nothing is swapped and the dense layer runs.
Evaluation, play and the shipped policies never use it: they load checkpoints into
``SeatPolicy``'s dense layer.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

try:
    from . import sparse_kernels
except ImportError:  # not built, or pure Python: the dense layer runs
    sparse_kernels = None


class _SparseInputMatmul(torch.autograd.Function):
    """``x @ weight.T + bias`` from ``x``'s non-zeros; the gradients of weight and bias."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor):
        out = torch.empty(x.shape[0], weight.shape[0])
        ctx.pairs = sparse_kernels.forward(x.numpy(), weight.detach().t().numpy(),
                                           bias.detach().numpy(), out.numpy())  # fmt: skip
        ctx.inputs = weight.shape[1]
        return out

    @staticmethod
    def backward(ctx, grad_out: torch.Tensor):
        grad_t = torch.zeros(ctx.inputs, grad_out.shape[1])  # (inputs, outputs)
        sparse_kernels.weight_grad(*ctx.pairs, grad_out.contiguous().numpy(), grad_t.numpy())
        return None, grad_t.t(), grad_out.sum(dim=0)


class SparseInputLinear(torch.nn.Linear):
    """``nn.Linear`` computed on the input's non-zeros (float32 rows on the CPU that need no
    gradient themselves, the weight stored transposed: :func:`use_sparse_input` makes it so);
    any other input takes the dense ``F.linear``."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if (
            x.requires_grad
            or x.dtype != torch.float32
            or x.device.type != "cpu"
            or x.dim() != 2
            or not x.is_contiguous()
            or not self.weight.t().is_contiguous()
        ):
            return F.linear(x, self.weight, self.bias)
        return _SparseInputMatmul.apply(x, self.weight, self.bias)


def use_sparse_input(policy: torch.nn.Module) -> bool:
    """Swap ``policy``'s first layer (a ``SeatPolicy``'s) for a :class:`SparseInputLinear`
    holding the same values, before an optimizer is made on its parameters. Returns whether
    it did (False: the kernels are not built)."""
    if sparse_kernels is None:
        return False
    layers = policy.features_extractor.net
    dense = layers[0]
    sparse = SparseInputLinear(dense.in_features, dense.out_features)
    # the same values, laid out (inputs, outputs) in memory: weight.t() is contiguous
    sparse.weight = torch.nn.Parameter(dense.weight.detach().t().contiguous().t())
    sparse.bias = torch.nn.Parameter(dense.bias.detach().clone())
    layers[0] = sparse
    return True
