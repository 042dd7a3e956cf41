"""Faster layers for the torch trainer's policy (speed machinery: ``train/ppo.py`` calls
:func:`use_fast_layers` once and its loop is unchanged).

Two layers of ``agents.networks.SeatPolicy`` cost more on the CPU than their arithmetic:

- the shared first layer, as a dense matmul about a third of the trainer's CPU, though a
  seat observation is mostly zeros (Common Cause's: ~75 of 1,202 entries).
  :class:`SparseInputLinear` computes it on the non-zeros only (the C loops of
  ``sparse_kernels.pyx``), its weight stored transposed in memory so that each non-zero
  reads one contiguous row of it;
- tanh, which torch computes one float at a time on the CPU (numpy's vectorised tanh is
  about 7x faster): :class:`NumpyTanh`.

Both keep the parameters, their names and the state dict as they are (the weight is saved
row-major, as the plain layer's; :func:`keep_state_layout` lays a resumed run's Adam moments
out as the weight is), and give the same outputs and gradients up to float rounding
(``tests/train/test_fast_layers.py``). Where the
kernels are not built (no compiler, or ``COMMONCAUSE_PURE_PYTHON``) the dense first layer
stays. Evaluation, play and the shipped policies never use these layers: they load
checkpoints into ``SeatPolicy``'s own.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch.autograd.function import once_differentiable

from commoncause.agents.networks import SeatPolicy
from commoncause.envs.core.builds import fresh


def _kernels():
    """The compiled kernels, or None where they are not built, run pure Python, or are
    older than ``sparse_kernels.pyx`` (a warning): the dense layer runs then."""
    try:
        from . import sparse_kernels
    except ImportError:
        return None
    source = Path(__file__).with_name("sparse_kernels.pyx")
    return sparse_kernels if fresh(sparse_kernels.__file__, [source]) else None


sparse_kernels = _kernels()


def _numpy_ready(x: torch.Tensor) -> bool:
    """Whether ``x`` can be handed to numpy as it is: float32, contiguous, on the CPU."""
    return x.dtype == torch.float32 and x.device.type == "cpu" and x.is_contiguous()


class _SparseInputMatmul(torch.autograd.Function):
    """``x @ weight.T + bias`` from ``x``'s non-zeros; the gradients of weight and bias."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor):
        out = torch.empty(x.shape[0], weight.shape[0], dtype=torch.float32)
        ctx.pairs = sparse_kernels.forward(x.numpy(), weight.detach().t().numpy(),
                                           bias.detach().numpy(), out.numpy())  # fmt: skip
        ctx.inputs = weight.shape[1]
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_out: torch.Tensor):
        grad_t = torch.zeros(ctx.inputs, grad_out.shape[1], dtype=torch.float32)
        sparse_kernels.weight_grad(*ctx.pairs, grad_out.contiguous().numpy(), grad_t.numpy())
        return None, grad_t.t(), grad_out.sum(dim=0)


class SparseInputLinear(torch.nn.Linear):
    """``nn.Linear`` computed on the input's non-zeros (2-d float32 rows on the CPU that
    need no gradient themselves, the weight stored transposed: :func:`use_fast_layers`
    makes it so); any other input takes the dense ``F.linear``."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weight = self.weight.t()  # (inputs, outputs), as the kernels read it
        ready = x.dim() == 2 and _numpy_ready(x) and _numpy_ready(weight)
        if x.requires_grad or not ready or not _numpy_ready(self.bias):
            return F.linear(x, self.weight, self.bias)
        return _SparseInputMatmul.apply(x, self.weight, self.bias)

    def _save_to_state_dict(self, destination, prefix, keep_vars) -> None:
        """The weight saved as the plain layer's is, row-major (the same checkpoint files)."""
        super()._save_to_state_dict(destination, prefix, keep_vars)
        if not keep_vars:
            destination[prefix + "weight"] = destination[prefix + "weight"].contiguous()


class _NumpyTanh(torch.autograd.Function):
    """tanh by numpy; the gradient as torch's own tanh computes it, from the output."""

    @staticmethod
    def forward(ctx, x: torch.Tensor) -> torch.Tensor:
        y = torch.from_numpy(np.tanh(x.detach().numpy()))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_out: torch.Tensor) -> torch.Tensor:
        (y,) = ctx.saved_tensors
        return torch.ops.aten.tanh_backward(grad_out, y)


class NumpyTanh(torch.nn.Tanh):
    """``nn.Tanh`` by numpy where the input is a float32 CPU tensor numpy can read."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _NumpyTanh.apply(x) if x.dim() > 0 and _numpy_ready(x) else torch.tanh(x)


def use_fast_layers(policy: SeatPolicy, critic: torch.nn.Module | None = None) -> None:
    """Swap the layers of ``policy`` (and of a centralised ``critic``) for the faster ones
    holding the same values, before an optimizer is made on their parameters: every
    ``nn.Tanh`` for a :class:`NumpyTanh`, and the policy's first layer for a
    :class:`SparseInputLinear` where the kernels are built."""
    for module in (policy, critic):
        for parent in module.modules() if module is not None else ():
            for name, child in parent.named_children():
                if type(child) is torch.nn.Tanh:
                    setattr(parent, name, NumpyTanh())
    if sparse_kernels is None:
        return
    layers = policy.features_extractor.net
    dense = layers[0]
    sparse = torch.nn.utils.skip_init(SparseInputLinear, dense.in_features, dense.out_features)
    # the same values, laid out (inputs, outputs) in memory: weight.t() is contiguous
    sparse.weight = torch.nn.Parameter(dense.weight.detach().t().contiguous().t())
    sparse.bias = torch.nn.Parameter(dense.bias.detach().clone())
    layers[0] = sparse


def keep_state_layout(optimizer: torch.optim.Optimizer) -> None:
    """Make ``optimizer.load_state_dict`` lay each state tensor (Adam's moments) out in
    memory as its parameter is: a checkpoint written with the other layout of the first
    layer's weight (before these layers, or where the kernels were not built) would
    otherwise resume with its moments in the wrong order, as fused Adam reads raw memory."""

    def relay(optimizer: torch.optim.Optimizer) -> None:
        for param, state in optimizer.state.items():
            for key, value in state.items():
                same_shape = torch.is_tensor(value) and value.shape == param.shape
                if same_shape and value.stride() != param.stride():
                    state[key] = torch.empty_like(param).copy_(value)

    optimizer.register_load_state_dict_post_hook(relay)
