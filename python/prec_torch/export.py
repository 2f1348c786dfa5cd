"""A module and its loss through torch-mlir as `@loss(params..., inputs...)`.

The trained parameters become the function's leading arguments (in
`named_parameters()` order, tied ones once, under the first name PyTorch
gives them) because the module is called through
`torch.func.functional_call`; the others stay in the module, so torch-mlir
makes them `dense_resource` constants, as it does buffers: the frozen ones
(`requires_grad=False`) and those no gradient reaches (forward does not use
them), which PyTorch's optimizers leave alone. Each argument gets
`prec.name` (the parameter's name, then the input's) and float inputs
`prec.no_grad`, which is what prec-fully-shard needs to know the parameters.
"""
import contextlib
import math
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
    """`model` with its parameters (those of `names`, by default all) as the
    leading arguments; with `loss`, the result is `loss(model(*inputs),
    *extra)` where `extra` are the trailing `num_extra` arguments (the
    targets)."""

    def __init__(self, model, loss=None, num_extra=0, names=None):
        super().__init__()
        self.model = model
        self.names = parameter_names(model) if names is None else list(names)
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


@contextlib.contextmanager
def kept_buffers(model):
    """Runs forward on `model` and puts its buffers back afterwards: a
    forward in training mode updates BatchNorm's running statistics, which
    the step would otherwise hold as constants."""
    saved = [(b, b.detach().clone()) for b in model.buffers()]
    try:
        yield
    finally:
        with torch.no_grad():
            for buffer, value in saved:
                buffer.copy_(value)


def _module_failure(error):
    return FrontendError(
        "the module fails on the example inputs before export: %s; give "
        "inputs of the shapes and dtypes its forward expects (--input "
        "NAME=SHAPE:DTYPE, or return them from the factory)" % _first_line(error))


def _check_loss(result):
    if not isinstance(result, torch.Tensor) or result.dim() != 0 or not result.is_floating_point():
        what = ("a tensor of shape %s" % list(result.shape)
                if isinstance(result, torch.Tensor) else type(result).__name__)
        raise FrontendError(
            "the loss must be a float scalar, got %s: with --loss module, forward "
            "must return the loss; otherwise choose --loss cross_entropy or mse" % what)


def trained_parameters(model, inputs, loss=None, num_extra=0):
    """(trained, frozen, unused): the names of `model`'s parameters (tied
    ones once) that the step trains, those with `requires_grad=False`, and
    those no gradient of the loss reaches (forward does not use them), as
    PyTorch's backward on the example inputs in eval mode finds them.
    PyTorch's optimizers skip a parameter whose grad is None, so the step
    holds both kinds constant, as it holds buffers."""
    model.eval()
    named = list(model.named_parameters())
    frozen = [name for name, p in named if not p.requires_grad]
    candidates = [name for name, p in named if p.requires_grad]
    wrapped = ParametersAsArguments(model, loss, num_extra, candidates)
    params = [p.detach().requires_grad_() for name, p in named if p.requires_grad]
    with kept_buffers(model), torch.enable_grad():
        try:
            result = wrapped(*params, *inputs)
        except Exception as error:
            raise _module_failure(error)
        _check_loss(result)
        grads = (torch.autograd.grad(result, params, allow_unused=True)
                 if result.requires_grad else [None] * len(params))
    trained = [name for name, g in zip(candidates, grads) if g is not None]
    unused = [name for name, g in zip(candidates, grads) if g is None]
    return trained, frozen, unused


# torch.export's training IR keeps .detach() as aten.detach (aten.alias
# also comes from y[...] and the like, which stop nothing).
STOPPERS = (torch.ops.aten.detach.default, torch.ops.aten.detach_.default)
TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__))
OWN_DIR = os.path.dirname(os.path.abspath(__file__))


def _user_line(stack_trace):
    """`file:line` of the innermost frame of `stack_trace` in the user's
    code (not torch's, not prec_torch's)."""
    found = None
    for path, line in re.findall(r'File "([^"]+)", line (\d+)', stack_trace or ""):
        where = os.path.abspath(path)
        if not where.startswith((TORCH_DIR + os.sep, OWN_DIR + os.sep)):
            found = "%s:%s" % (path, line)
    return found


def _region_line(graph_module, node):
    """`file:line` of the first op of the region `node` (a
    wrap_with_set_grad_enabled) runs."""
    submodule = getattr(graph_module, str(getattr(node.args[1], "target", "")), None)
    if isinstance(submodule, torch.fx.GraphModule):
        for inner in submodule.graph.nodes:
            found = _user_line(inner.meta.get("stack_trace"))
            if found:
                return found
    return _user_line(node.meta.get("stack_trace")) or "forward"


def check_stopped_gradients(program, names):
    """Refuses a forward that stops gradients (`.detach()`, `torch.no_grad()`,
    `set_grad_enabled(False)`) of a value that depends on a parameter of
    `names` (the leading inputs of `program`, a torch.export
    ExportedProgram) and reaches the loss: torch-mlir's export keeps no
    stop-gradient, so prec would differentiate through it. A value of inputs
    and buffers alone carries no gradient to stop."""
    graph = program.graph_module.graph
    inputs = [n for n in graph.nodes if n.op == "placeholder"
              and n.name in program.graph_signature.user_inputs]
    depends = {node: {name} for node, name in zip(inputs, names)}
    for node in graph.nodes:
        if node.op != "placeholder":
            found = set().union(*(depends.get(a, ()) for a in node.all_input_nodes))
            if found:
                depends[node] = found
    reaches, work = set(), [n for n in graph.nodes if n.op == "output"]
    while work:
        node = work.pop()
        if node not in reaches:
            reaches.add(node)
            work.extend(node.all_input_nodes)
    for node in graph.nodes:
        if node.op != "call_function" or node not in reaches:
            continue
        if node.target in STOPPERS:
            what = ".detach()"
            where = _user_line(node.meta.get("stack_trace")) or "forward"
            stopped = depends.get(node.args[0], set())
        elif (getattr(node.target, "__name__", "") == "wrap_with_set_grad_enabled"
              and node.args and node.args[0] is False):
            what = "torch.no_grad() (or set_grad_enabled(False))"
            where = _region_line(program.graph_module, node)
            stopped = set().union(*(depends.get(a, ()) for a in node.args[2:]
                                    if isinstance(a, torch.fx.Node)))
        else:
            continue
        if stopped:
            listed = [name for name in names if name in stopped]
            raise FrontendError(
                "%s: %s in forward stops the gradient of a value that depends on trained "
                "parameters (%s%s): prec cannot differentiate a module that stops gradients "
                "inside forward (the export keeps no stop-gradient, so the step would train on "
                "wrong gradients); compute that value outside forward and pass it as an input, "
                "freeze those parameters (requires_grad_(False)), or remove the %s"
                % (where, what, ", ".join(listed[:4]), ", ..." if len(listed) > 4 else "", what))


def check_exported_gradients(program, wrapped, params, inputs, names):
    """Refuses a module whose gradients are not those of the ops it
    exports: a custom torch.autograd.Function (the export keeps its forward
    only), a gradient hook, torch.inference_mode: prec would differentiate
    the exported ops. The parameters' gradients of the exported program and
    of the module itself, on the example inputs, must agree to rounding."""
    def gradients(function):
        leaves = [p.detach().clone().requires_grad_() for p in params]
        with torch.enable_grad():
            result = function(*leaves, *inputs)
            if not result.requires_grad:
                return [None] * len(leaves)
            return torch.autograd.grad(result, leaves, allow_unused=True)
    model = wrapped.model
    with kept_buffers(model):
        eager = gradients(wrapped)
        exported = gradients(program.module())
    for name, a, b in zip(names, eager, exported):
        a = torch.zeros(()) if a is None else a.double()
        b = torch.zeros(()) if b is None else b.double()
        scale = max(float(a.abs().max()), float(b.abs().max()))
        # Both run the same ops in the same dtype; a gradient a Function or
        # hook changes is off by a sizeable part of its magnitude.
        if float((a - b).abs().max()) > 1e-2 * scale:
            raise FrontendError(
                "the gradient of parameter %s is not the derivative of the ops forward "
                "exports (a custom torch.autograd.Function, a gradient hook or "
                "torch.inference_mode changes it): prec differentiates the exported ops, so "
                "the step would train on other gradients; write that part of forward with "
                "ordinary ops" % name)


LOCATION_ALIAS = re.compile(r"^(#loc\d*) = loc\((.*)\)$", re.M)
CALLSITE = re.compile(r"^callsite\((#loc\d*) at (#loc\d*)\)$")


def user_locations(text):
    """`text` (MLIR with its location aliases) with every call site whose
    callee is torch's code or prec_torch's own (an nn module's forward, the
    loss wrapper) replaced by its caller: prec-opt's diagnostics then name
    the line of the user's forward that calls the module, not
    torch/nn/modules/linear.py. Aliases are defined before they are used,
    so each is rewritten from the ones before it."""
    definitions = {}

    def innermost_file(rhs):
        match = CALLSITE.match(rhs)
        if match:
            return innermost_file(definitions.get(match.group(1), ""))
        match = re.match(r'^"([^"]+)":\d+:\d+$', rhs)
        return match.group(1) if match else None

    def rewrite(match):
        alias, rhs = match.group(1), match.group(2)
        call = CALLSITE.match(rhs)
        if call and call.group(2) in definitions:
            callee = innermost_file(definitions.get(call.group(1), ""))
            if callee and os.path.abspath(callee).startswith(
                    (TORCH_DIR + os.sep, OWN_DIR + os.sep)):
                rhs = definitions[call.group(2)]
        definitions[alias] = rhs
        return "%s = loc(%s)" % (alias, rhs)

    return LOCATION_ALIAS.sub(rewrite, text)


def _held(value):
    """`value`, through integers: prec differentiates no integer, so no
    gradient goes back through it (torch-mlir lowers no bit cast). Exact for
    |value| in [2^-37, 2^42) in any float dtype up to f32 (two int64 parts
    of 2^-20 and 2^-60); smaller values lose at most 2^-60, larger ones are
    passed through."""
    wide = value.double() * 2.0 ** 20
    high = wide.to(torch.int64)
    low = ((wide - high.double()) * 2.0 ** 40).to(torch.int64)
    held = high.double() * 2.0 ** -20 + low.double() * 2.0 ** -60
    return torch.where(wide.abs() < 2.0 ** 62, held, value.double()).to(value.dtype)


def _embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """aten.embedding with a padding_idx: PyTorch gives the padding row no
    gradient from the lookup; the lookup reads that row through `_held`, so
    prec gives it none either (another use, a tied lm_head, still does)."""
    if padding_idx is None or padding_idx < 0:
        return NotImplemented
    row = _held(weight[padding_idx:padding_idx + 1])
    padding = (torch.arange(weight.shape[0], device=weight.device) == padding_idx).unsqueeze(1)
    table = torch.where(padding, row, weight)
    return torch.ops.aten.embedding.default(table, indices, -1, scale_grad_by_freq, sparse)


def _gelu(x, approximate="none"):
    """GELU(approximate='tanh') as PyTorch's kernel computes it (in at least
    f32): torch-mlir's own decomposition rounds sqrt(2/pi) to 0.797724."""
    if approximate != "tanh":
        return NotImplemented
    wide = x.to(torch.promote_types(x.dtype, torch.float32))
    cube = wide * wide * wide
    inner = math.sqrt(2.0 / math.pi) * (wide + 0.044715 * cube)
    return (0.5 * wide * (1 + torch.tanh(inner))).to(x.dtype)


def decompositions():
    """torch-mlir's decomposition table with prec's: the padding row of an
    embedding and the tanh GELU."""
    from torch_mlir.extras.fx_decomp_util import get_decomposition_table
    table = dict(get_decomposition_table())
    table[torch.ops.aten.embedding.default] = _embedding
    table[torch.ops.aten.gelu.default] = _gelu
    return table


def export_loss(model, inputs, input_names, loss=None, num_extra=0, debug_info=False,
                log_path=None, names=None):
    """The text of `@loss(params..., inputs...) -> tensor<>` in linalg on
    tensors, arguments named; `inputs` includes the `num_extra` targets that
    `loss` takes after the module's output. The parameters are those of
    `names` (by default, `trained_parameters`'s trained ones); the others
    are constants. With `debug_info`, ops keep the Python source lines they
    come from (loc(...)), so that prec-opt's diagnostics name the line of
    forward; torch's own messages go to `log_path` (or are dropped)."""
    try:
        from torch_mlir import fx
    except ImportError as error:
        raise FrontendError(
            "cannot import torch_mlir (%s): install PyPI's torch-mlir into this "
            "Python environment (make check-torch makes one under build/venv-torch)"
            % error)
    model.eval()
    if names is None:
        names = trained_parameters(model, inputs, loss, num_extra)[0]
    wrapped = ParametersAsArguments(model, loss, num_extra, names)
    by_name = dict(model.named_parameters())
    params = [by_name[name].detach() for name in names]
    with kept_buffers(model), torch.no_grad():
        try:
            result = wrapped(*params, *inputs)
        except Exception as error:
            raise _module_failure(error)
    _check_loss(result)
    try:
        with kept_buffers(model), _stderr_to(log_path):
            program = torch.export.export(wrapped, tuple(params) + tuple(inputs), strict=False)
    except Exception as error:
        raise FrontendError(_export_failure(error, log_path))
    check_stopped_gradients(program, names)
    check_exported_gradients(program, wrapped, params, inputs, names)
    try:
        with _stderr_to(log_path):
            module = fx.export_and_import(program, output_type="linalg-on-tensors",
                                          func_name="loss", decomposition_table=decompositions())
    except Exception as error:
        raise FrontendError(_export_failure(error, log_path))
    text = (user_locations(module.operation.get_asm(enable_debug_info=True))
            if debug_info else str(module))
    found = re.search(r"\btm_tensor\.(\w+)", text)
    if found:
        raise FrontendError(
            "torch-mlir exported an op outside linalg, tm_tensor.%s (from %s), which prec "
            "cannot compile or differentiate; compute that part of forward with other ops"
            % (found.group(1), TM_TENSOR.get(found.group(1), "a PyTorch op")))
    all_names = list(names) + list(input_names)
    no_grad = [False] * len(params) + [x.is_floating_point() for x in inputs]
    return name_arguments(text, all_names, no_grad)
