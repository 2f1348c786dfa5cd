"""A module and its loss through torch-mlir as `@loss(params..., inputs...)`.

The parameters become the function's leading arguments (in
`named_parameters()` order, tied ones once, under the first name PyTorch
gives them) because the module is called through
`torch.func.functional_call`; otherwise torch-mlir would make them
`dense_resource` constants. Each argument gets `prec.name` (the parameter's
name, then the input's) and float inputs `prec.no_grad`, which is what
prec-fully-shard needs to know the parameters. Buffers stay constants.
"""
import contextlib
import os
import re
import sys
import tempfile

import torch
import torch.nn as nn

from .errors import FrontendError


def parameter_names(model):
    """The names of `model`'s parameters, tied ones once (the first name)."""
    return [name for name, _ in model.named_parameters()]


class ParametersAsArguments(nn.Module):
    """`model` with its parameters as the leading arguments; with `loss`,
    the result is `loss(model(*inputs), *extra)` where `extra` are the
    trailing `num_extra` arguments (the targets)."""

    def __init__(self, model, loss=None, num_extra=0):
        super().__init__()
        self.model = model
        self.names = parameter_names(model)
        self.loss = loss
        self.num_extra = num_extra

    def forward(self, *args):
        params = dict(zip(self.names, args[: len(self.names)]))
        rest = args[len(self.names):]
        if self.loss is None:
            return torch.func.functional_call(self.model, params, rest)
        inputs, extra = rest[: len(rest) - self.num_extra], rest[len(rest) - self.num_extra:]
        return self.loss(torch.func.functional_call(self.model, params, inputs), *extra)


def name_arguments(text, names, no_grad, func="loss"):
    """`text` with `prec.name` (and `prec.no_grad` where `no_grad[i]`) on the
    i-th argument of `@func`: torch-mlir numbers them `%argI`."""
    start = text.index("func.func @%s(" % func)
    end = text.index(") ->", start)

    def attributes(match):
        i = int(match.group(1))
        extra = ", prec.no_grad" if no_grad[i] else ""
        return '%s {prec.name = "%s"%s}' % (match.group(0), names[i], extra)

    # `%argI: tensor<...>`, then the attributes, then any `loc(...)`.
    signature = re.sub(r"%arg(\d+): tensor<[^>]*>", attributes, text[start:end])
    return text[:start] + signature + text[end:]


def _first_line(error):
    text = str(error).strip() or type(error).__name__
    lines = [line for line in text.splitlines() if line.strip()]
    return "%s: %s" % (type(error).__name__, lines[0] if lines else text)


@contextlib.contextmanager
def _stderr_to(path):
    """Sends what torch and MLIR print to the process's stderr (graph dumps,
    warnings, diagnostics) to `path` instead (or discards it)."""
    sys.stderr.flush()
    saved = os.dup(2)
    target = open(path, "w") if path else tempfile.TemporaryFile("w")
    os.dup2(target.fileno(), 2)
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        target.close()


def _export_failure(error, log_path):
    """What the user changes when torch.export or torch-mlir fails."""
    text = str(error)
    if log_path and os.path.exists(log_path):
        text += "\n" + open(log_path, errors="replace").read()
    where = " (torch's messages: %s)" % log_path if log_path else ""
    lowering = re.search(r'name = "torch\.(aten\.[\w.]+)"', text)
    if lowering:
        return ("torch-mlir cannot lower %s to linalg, so prec cannot compile this module; "
                "compute that part of forward with other ops%s" % (lowering.group(1), where))
    if "data-dependent" in text or "GuardOnDataDependent" in type(error).__name__:
        return ("torch.export cannot trace the module: %s; forward must not branch on a "
                "tensor's value (Python `if` on a tensor, .item(), .tolist()): use torch.where "
                "or move the decision out of forward%s" % (_first_line(error), where))
    return ("torch-mlir cannot export the module: %s; prec needs a forward that torch.export "
            "can trace and torch-mlir lowers to linalg on tensors%s" % (_first_line(error), where))


# torch-mlir's ops outside linalg (sort, cumsum, scatter, ...), which prec
# does not compile: the op, and the PyTorch ops that become it.
TM_TENSOR = {"sort": "torch.sort, torch.topk, torch.median", "scan": "torch.cumsum",
             "scatter": "index_put, scatter", "attention": "scaled_dot_product_attention"}


def export_loss(model, inputs, input_names, loss=None, num_extra=0, debug_info=False,
                log_path=None):
    """The text of `@loss(params..., inputs...) -> tensor<>` in linalg on
    tensors, arguments named; `inputs` includes the `num_extra` targets that
    `loss` takes after the module's output. With `debug_info`, ops keep the
    Python source lines they come from (loc(...)), so that prec-opt's
    diagnostics name the line of forward; torch's own messages go to
    `log_path` (or are dropped)."""
    try:
        from torch_mlir import fx
    except ImportError as error:
        raise FrontendError(
            "cannot import torch_mlir (%s): install PyPI's torch-mlir into this "
            "Python environment (make check-torch makes one under build/venv-torch)"
            % error)
    model.eval()
    wrapped = ParametersAsArguments(model, loss, num_extra)
    params = [p.detach() for p in model.parameters()]
    with torch.no_grad():
        try:
            result = wrapped(*params, *inputs)
        except Exception as error:
            raise FrontendError(
                "the module fails on the example inputs before export: %s; give "
                "inputs of the shapes and dtypes its forward expects (--input "
                "NAME=SHAPE:DTYPE, or return them from the factory)" % _first_line(error))
    if not isinstance(result, torch.Tensor) or result.dim() != 0 or not result.is_floating_point():
        what = ("a tensor of shape %s" % list(result.shape)
                if isinstance(result, torch.Tensor) else type(result).__name__)
        raise FrontendError(
            "the loss must be a float scalar, got %s: with --loss module, forward "
            "must return the loss; otherwise choose --loss cross_entropy or mse" % what)
    try:
        with _stderr_to(log_path):
            module = fx.export_and_import(wrapped, *params, *inputs,
                                          output_type="linalg-on-tensors", func_name="loss")
    except Exception as error:
        raise FrontendError(_export_failure(error, log_path))
    text = module.operation.get_asm(enable_debug_info=True) if debug_info else str(module)
    found = re.search(r"\btm_tensor\.(\w+)", text)
    if found:
        raise FrontendError(
            "torch-mlir exported an op outside linalg, tm_tensor.%s (from %s), which prec "
            "cannot compile or differentiate; compute that part of forward with other ops"
            % (found.group(1), TM_TENSOR.get(found.group(1), "a PyTorch op")))
    names = wrapped.names + list(input_names)
    no_grad = [False] * len(params) + [x.is_floating_point() for x in inputs]
    return name_arguments(text, names, no_grad)
