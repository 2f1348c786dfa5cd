"""python -m prec_torch: a PyTorch module to a prec training step.

See docs/PyTorch.md. Every failure the user can fix is a FrontendError,
printed as one `prec_torch: error: ...` message without a traceback.
"""
import argparse
import copy
import importlib
import importlib.util
import inspect
import os
import re
import shlex
import shutil
import subprocess
import sys

from .errors import FrontendError

# name -> (MLIR type, torch dtype name)
FLOATS = {
    "f64": ("f64", "float64"), "float64": ("f64", "float64"),
    "f32": ("f32", "float32"), "float32": ("f32", "float32"),
    "f16": ("f16", "float16"), "float16": ("f16", "float16"),
    "bf16": ("bf16", "bfloat16"), "bfloat16": ("bf16", "bfloat16"),
    "f8E4M3FN": ("f8E4M3FN", "float8_e4m3fn"), "float8_e4m3fn": ("f8E4M3FN", "float8_e4m3fn"),
    "f8E5M2": ("f8E5M2", "float8_e5m2"), "float8_e5m2": ("f8E5M2", "float8_e5m2"),
}
INPUT_DTYPES = {"i64": "int64", "int64": "int64", "i32": "int32", "int32": "int32",
                "bool": "bool", "i1": "bool"}
INPUT_DTYPES.update({k: v[1] for k, v in FLOATS.items()})
TOKEN_DTYPES = ("u8", "u16", "u32", "i32", "i64")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def float_dtype(text, option):
    if text not in FLOATS:
        raise FrontendError("%s=%s is not a float dtype; use one of %s"
                            % (option, text, ", ".join(sorted(set(v[0] for v in FLOATS.values())))))
    return FLOATS[text]


def parse_mesh(text, ranks):
    if not re.fullmatch(r"[1-9][0-9]*(x[1-9][0-9]*)?", text or ""):
        raise FrontendError(
            "--mesh %s: expected N (FSDP over N ranks) or RxN (HSDP: R replicas of "
            "N-way sharding), e.g. --mesh 4 or --mesh 2x2" % text)
    extents = [int(e) for e in text.split("x")]
    size = 1
    for e in extents:
        size *= e
    if ranks is not None and ranks != size:
        hsdp = [("%dx%d" % (ranks // n, n)) for n in range(2, ranks) if ranks % n == 0]
        raise FrontendError(
            "--mesh %s has %d rank(s) but --ranks is %d: give --mesh %d%s, or --ranks %d"
            % (text, size, ranks, ranks,
               (" (or an HSDP mesh " + " / ".join(hsdp) + ")") if hsdp else "", size))
    return extents, size


def parse_factory_kwargs(text):
    kwargs = {}
    for item in filter(None, (text or "").split(",")):
        if "=" not in item:
            raise FrontendError("--factory-kwargs: expected KEY=VALUE, got '%s'" % item)
        key, value = item.split("=", 1)
        for convert in (int, float):
            try:
                value = convert(value)
                break
            except ValueError:
                pass
        kwargs[key.strip()] = value
    return kwargs


def load_factory(spec):
    """`path/to/file.py:factory` or `package.module:factory` (or a module
    name whose `model` attribute is the factory)."""
    target, _, attribute = spec.rpartition(":")
    if not target:
        target, attribute = spec, "model"
    if target.endswith(".py"):
        if not os.path.exists(target):
            raise FrontendError("%s: no such file; give MODEL as path/to/file.py:factory "
                                "or package.module:factory" % target)
        name = "prec_torch_user_" + re.sub(r"\W", "_", os.path.basename(target)[:-3])
        module_spec = importlib.util.spec_from_file_location(name, target)
        module = importlib.util.module_from_spec(module_spec)
        sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
        try:
            module_spec.loader.exec_module(module)
        except Exception as error:
            raise FrontendError("%s fails to import: %s: %s" % (target, type(error).__name__, error))
    else:
        try:
            module = importlib.import_module(target)
        except Exception as error:
            raise FrontendError("cannot import %s: %s: %s" % (target, type(error).__name__, error))
    if not hasattr(module, attribute):
        callables = [n for n, v in vars(module).items()
                     if callable(v) and not n.startswith("_") and getattr(v, "__module__", "") == module.__name__]
        raise FrontendError("%s has no %s; it defines %s" % (target, attribute, ", ".join(callables) or "nothing callable"))
    return getattr(module, attribute)


def parse_input(text, torch):
    match = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_.]*)=([0-9]+(?:x[0-9]+)*):(\w+)", text)
    if not match or match.group(3) not in INPUT_DTYPES:
        raise FrontendError("--input %s: expected NAME=SHAPE:DTYPE such as idx=2x64:i64 or "
                            "x=8x16:f32 (dtypes %s)" % (text, ", ".join(sorted(INPUT_DTYPES))))
    shape = [int(e) for e in match.group(2).split("x")]
    return match.group(1), shape, getattr(torch, INPUT_DTYPES[match.group(3)])


def build_parser():
    parser = argparse.ArgumentParser(
        prog="python -m prec_torch",
        description="Export a PyTorch module through torch-mlir and make it a sharded "
                    "training step for prec-run (docs/PyTorch.md).")
    parser.add_argument("model", metavar="MODEL",
                        help="path/to/file.py:factory or package.module:factory; the factory "
                             "returns an nn.Module or (module, example_inputs)")
    parser.add_argument("--factory-kwargs", default="", metavar="K=V,...",
                        help="keyword arguments of the factory (numbers or strings)")
    parser.add_argument("--input", action="append", default=[], metavar="NAME=SHAPE:DTYPE",
                        help="an example input of forward, per rank (idx=2x64:i64); repeat in "
                             "forward's order; not needed when the factory returns inputs")
    parser.add_argument("--loss", choices=["module", "cross_entropy", "mse"], default="module",
                        help="module: forward returns the loss; cross_entropy: forward returns "
                             "logits [..., V] and a `targets` input of token ids is added; mse: "
                             "forward returns y and a `target` input of y's shape is added")
    parser.add_argument("--param-dtype", help="FSDP2's param_dtype: the module computes in it "
                        "(exported in it) and parameters are gathered in it; fp8 gathers only")
    parser.add_argument("--reduce-dtype", help="FSDP2's reduce_dtype: gradients are reduced in it")
    parser.add_argument("--param-dtypes", action="append", default=[], metavar="SELECTOR=DTYPE",
                        help="the gather dtype of chosen parameters (glob over names, or rank:N), "
                             "e.g. 'h.*.fc.weight=f8E4M3FN'")
    parser.add_argument("--reduce-dtypes", action="append", default=[], metavar="SELECTOR=DTYPE")
    parser.add_argument("--master-dtype", help="dtype of the shards and optimizer state (default: "
                        "the module's own, f32 for a module in f32 with param_dtype bf16)")
    parser.add_argument("--mesh", required=True, help="N (FSDP) or RxN (HSDP)")
    parser.add_argument("--ranks", type=int, help="the ranks you will run; checked against --mesh")
    parser.add_argument("--hosts", type=int, default=1, metavar="H",
                        help="the hosts the ranks are on (consecutive ranks share a host): "
                             "--mesh N becomes the grid H x N/H whose axis 0 crosses hosts, and "
                             "collectives over both run in two levels; with --mesh RxN, H = R")
    parser.add_argument("--inter-host-reduce-dtype", metavar="DT",
                        help="the dtype the gradients' partial sums cross hosts in (e.g. bf16 "
                             "for f32 gradients, or f8E4M3FN with a scale per rank's partial "
                             "sums); needs --hosts > 1 and --mesh N")
    parser.add_argument("--optimizer", choices=["sgd", "adamw"], default="adamw")
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--weight-decay", type=float,
                        help="default: 0 for sgd, 0.01 for adamw (PyTorch's)")
    parser.add_argument("--betas", default="0.9,0.999", metavar="B1,B2")
    parser.add_argument("--eps", type=float, default=1e-8)
    parser.add_argument("--no-reshard-after-forward", action="store_true",
                        help="FSDP2's reshard_after_forward=False")
    parser.add_argument("--token-range", type=int, help="token ids lie in [0, V) (default: the "
                        "logits' width with cross_entropy, else the first nn.Embedding's rows)")
    parser.add_argument("--tokens", metavar="PATH[:DTYPE]",
                        help="a token stream (utils/byte-tokens.py, u16 by default) to train on: "
                             "the printed command reads inputs from it and targets from it "
                             "shifted by one token (written next to the step)")
    parser.add_argument("--seed", type=int, default=0, help="torch.manual_seed before the factory")
    parser.add_argument("--steps", type=int, default=100, help="steps in the printed command")
    parser.add_argument("--out", default="prec-out", help="output directory")
    parser.add_argument("--prec-opt", help="prec-opt to run (default: build/bin/prec-opt of this "
                        "checkout, else PATH's)")
    parser.add_argument("--prec-run", help="prec-run in the printed command (default: as prec-opt)")
    return parser


def find_tool(name, given):
    if given:
        if not os.path.exists(given):
            raise FrontendError("--%s %s: no such file" % (name, given))
        return given
    built = os.path.join(REPO, "build", "bin", name)
    if os.path.exists(built):
        return built
    found = shutil.which(name)
    if not found:
        raise FrontendError("cannot find %s: build it (cmake --build build --target %s) or pass "
                            "--%s PATH" % (name, name, name))
    return found


def pass_options(options, mesh, export_dtype, master):
    fields = ["mesh=%s" % mesh]
    if options.hosts != 1:
        fields.append("hosts=%d" % options.hosts)
    if options.inter_host_reduce_dtype:
        fields.append("inter-host-reduce-dtype=%s" % float_dtype(
            options.inter_host_reduce_dtype, "--inter-host-reduce-dtype")[0])
    if options.param_dtype:
        fields.append("param-dtype=%s" % float_dtype(options.param_dtype, "--param-dtype")[0])
    if options.reduce_dtype:
        fields.append("reduce-dtype=%s" % float_dtype(options.reduce_dtype, "--reduce-dtype")[0])
    for option, values in (("param-dtypes", options.param_dtypes),
                           ("reduce-dtypes", options.reduce_dtypes)):
        entries = []
        for value in values:
            for entry in filter(None, value.split(",")):
                selector, _, dtype = entry.rpartition("=")
                if not selector:
                    raise FrontendError("--%s %s: expected SELECTOR=DTYPE such as "
                                        "'h.*.fc.weight=f8E4M3FN'" % (option, entry))
                entries.append("%s=%s" % (selector, float_dtype(dtype, "--" + option)[0]))
        if entries:
            fields.append("%s=%s" % (option, ",".join(entries)))
    if master:
        fields.append("master-dtype=%s" % master)
    betas = options.betas.split(",")
    if len(betas) != 2:
        raise FrontendError("--betas %s: expected B1,B2 such as 0.9,0.95" % options.betas)
    fields += ["optimizer=%s" % options.optimizer, "lr=%r" % options.lr]
    if options.weight_decay is not None:
        fields.append("weight-decay=%r" % options.weight_decay)
    if options.optimizer == "adamw":
        fields += ["beta1=%s" % float(betas[0]), "beta2=%s" % float(betas[1]),
                   "eps=%r" % options.eps]
    fields.append("reshard-after-forward=%s" % ("false" if options.no_reshard_after_forward else "true"))
    if options.token_range:
        fields.append("token-range=%d" % options.token_range)
    return " ".join(fields)


# prec-opt's messages, and what the user changes for each.
ADVICE = [
    ("names no parameter", "change the selector of --param-dtypes/--reduce-dtypes to a glob "
                           "over the parameter names listed (or rank:N)"),
    ("is neither a glob", "write selectors as globs over parameter names (h.*.attn.*) or rank:N"),
    ("no parameter", "the module has no trainable float parameter as an argument"),
    ("has no gradient rule", "prec cannot differentiate that op (the line is forward's): "
                             "compute that part of forward with differentiable ops "
                             "(docs/PyTorch.md), or on an input outside the module"),
]


def run_prec_opt(prec_opt, source, target, pipeline):
    command = [prec_opt, source, "-o", target, "--prec-from-torch=%s" % pipeline]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode == 0:
        return
    message = result.stderr.strip()
    errors = [line.replace("<unknown>:0: ", "") for line in message.splitlines()
              if ": error: " in line or line.startswith("error: ")] or message.splitlines()[:1]
    advice = [text for key, text in ADVICE if key in message]
    raise FrontendError(
        "prec-opt could not make the step:\n  %s\n%s(command: %s; the export is %s)"
        % ("\n  ".join(errors[:4]),
           ("  " + advice[0] + "\n") if advice else "",
           " ".join(shlex.quote(c) for c in command), source))


def make_loss(kind, torch):
    import torch.nn.functional as F

    def wide(x):
        return x.to(torch.promote_types(x.dtype, torch.float32))

    if kind == "cross_entropy":
        def loss(logits, targets):
            return F.cross_entropy(wide(logits).reshape(-1, logits.shape[-1]), targets.reshape(-1))
        return loss, "targets"
    if kind == "mse":
        def loss(y, target):
            return F.mse_loss(wide(y), wide(target))
        return loss, "target"
    return None, None


def warn_training_mode(model, torch):
    """Says on stderr which submodules compute differently in training mode:
    prec trains the module as exported, in eval mode (docs/PyTorch.md,
    "Limits")."""
    nn = torch.nn
    found = []
    for name, module in model.named_modules():
        differs = (isinstance(module, nn.modules.batchnorm._BatchNorm)
                   or (isinstance(module, nn.modules.instancenorm._InstanceNorm)
                       and module.track_running_stats)
                   or (isinstance(module, nn.modules.dropout._DropoutNd) and module.p > 0)
                   or (isinstance(module, (nn.MultiheadAttention, nn.RNNBase))
                       and module.dropout > 0))
        if differs:
            found.append("%s (%s)" % (name or "the module", type(module).__name__))
    if found:
        print("prec_torch: warning: %s compute%s differently in training mode; prec trains the "
              "module in eval mode (running statistics fixed, no dropout), so its training "
              "differs from PyTorch's in train(): docs/PyTorch.md, \"Limits\""
              % (", ".join(found[:4]) + (", ..." if len(found) > 4 else ""),
                 "s" if len(found) == 1 else ""), file=sys.stderr)


def write_token_streams(spec, out, ids_name, targets_name):
    path, _, dtype = spec.partition(":")
    dtype = dtype or "u16"
    if dtype not in TOKEN_DTYPES:
        raise FrontendError("--tokens %s: dtype %s is not one of %s" % (spec, dtype, ", ".join(TOKEN_DTYPES)))
    try:
        data = open(path, "rb").read()
    except OSError as error:
        raise FrontendError("--tokens: cannot read %s: %s" % (path, error.strerror))
    width = {"u8": 1, "u16": 2, "u32": 4, "i32": 4, "i64": 8}[dtype]
    if len(data) < 2 * width or len(data) % width:
        raise FrontendError("--tokens %s: %d bytes are not a stream of at least two %s tokens"
                            % (path, len(data), dtype))
    shifted = os.path.join(out, "targets." + dtype)
    with open(shifted, "wb") as f:
        f.write(data[width:] + data[:width])
    return ["--data", "%s:%s=%s" % (ids_name, dtype, path),
            "--data", "%s:%s=%s" % (targets_name, dtype, shifted)]


def frontend(options):
    extents, size = parse_mesh(options.mesh, options.ranks)
    mesh = "x".join(str(e) for e in extents)
    if options.hosts < 1:
        raise FrontendError("--hosts %d: expected a positive number of hosts" % options.hosts)
    if options.inter_host_reduce_dtype:
        float_dtype(options.inter_host_reduce_dtype, "--inter-host-reduce-dtype")
    if options.master_dtype:
        float_dtype(options.master_dtype, "--master-dtype")
    if options.param_dtype:
        float_dtype(options.param_dtype, "--param-dtype")
    try:
        import torch
    except ImportError as error:
        raise FrontendError("cannot import torch (%s): run in an environment with PyPI's torch "
                            "and torch-mlir (make check-torch makes build/venv-torch)" % error)
    from .export import export_loss, kept_buffers, trained_parameters
    from .state import tied_aliases, write_safetensors

    factory = load_factory(options.model)
    torch.manual_seed(options.seed)
    try:
        made = factory(**parse_factory_kwargs(options.factory_kwargs))
    except FrontendError:
        raise
    except Exception as error:
        raise FrontendError("the factory %s failed: %s: %s" % (options.model, type(error).__name__, error))
    inputs = None
    if isinstance(made, tuple):
        if len(made) != 2:
            raise FrontendError("the factory returned a tuple of %d; expected a module or "
                                "(module, example_inputs)" % len(made))
        made, inputs = made
        inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    if not isinstance(made, torch.nn.Module):
        raise FrontendError("the factory returned %s, not an nn.Module" % type(made).__name__)
    model = made
    warn_training_mode(model, torch)
    params = list(model.parameters())
    if not params:
        raise FrontendError("the module has no parameters: nothing to train")
    float_params = [p for p in params if p.is_floating_point()]
    own = float_params[0].dtype
    forward_names = [n for n, p in inspect.signature(model.forward).parameters.items()
                     if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if inputs is None:
        if not options.input:
            raise FrontendError("no example inputs: pass --input NAME=SHAPE:DTYPE for each of "
                                "forward's inputs (%s), or return (module, inputs) from the factory"
                                % ", ".join(forward_names))
        described = [parse_input(text, torch) for text in options.input]
        input_names = [name for name, _, _ in described]
        embeddings = [m.num_embeddings for m in model.modules() if isinstance(m, torch.nn.Embedding)]
        example_range = options.token_range or (embeddings[0] if embeddings else 2)
        generator = torch.Generator().manual_seed(options.seed)
        inputs = []
        for _, shape, dtype in described:
            if dtype.is_floating_point:
                inputs.append(torch.randn(shape, generator=generator).to(dtype))
            else:
                high = 2 if dtype == torch.bool else example_range
                inputs.append(torch.randint(0, high, shape, generator=generator).to(dtype))
    else:
        input_names = forward_names[:len(inputs)]
        if len(input_names) < len(inputs):
            input_names += ["input%d" % i for i in range(len(input_names), len(inputs))]

    export_dtype = own
    master = options.master_dtype and FLOATS[options.master_dtype][0]
    if options.param_dtype:
        mlir_name, torch_name = FLOATS[options.param_dtype]
        if not mlir_name.startswith("f8"):
            export_dtype = getattr(torch, torch_name)
            if master is None and export_dtype != own:
                master = {v[1]: v[0] for v in FLOATS.values()}[str(own).replace("torch.", "")]
    master_torch = getattr(torch, FLOATS[master][1]) if master else own

    # FSDP2's param_dtype: parameters and float inputs cast, buffers as they are.
    exported = copy.deepcopy(model)
    if export_dtype != own:
        for p in exported.parameters():
            if p.is_floating_point():
                p.data = p.data.to(export_dtype)
        inputs = [x.to(export_dtype) if x.is_floating_point() else x for x in inputs]

    loss, extra_name = make_loss(options.loss, torch)
    num_extra = 0
    token_range = options.token_range
    if loss is not None:
        # In eval mode, as exported: a forward in training mode would move
        # BatchNorm's running statistics, which the step holds as constants.
        exported.eval()
        with kept_buffers(exported), torch.no_grad():
            try:
                output = exported(*inputs)
            except Exception as error:
                raise FrontendError("the module fails on the example inputs: %s: %s; give "
                                    "inputs of the shapes and dtypes its forward expects"
                                    % (type(error).__name__, str(error).splitlines()[0]))
        if not isinstance(output, torch.Tensor):
            raise FrontendError("--loss %s needs forward to return one tensor, got %s"
                                % (options.loss, type(output).__name__))
        if options.loss == "cross_entropy":
            if output.dim() < 2 or not output.is_floating_point():
                raise FrontendError("--loss cross_entropy needs forward to return float logits "
                                    "[..., V], got shape %s" % list(output.shape))
            token_range = token_range or output.shape[-1]
            generator = torch.Generator().manual_seed(options.seed + 1)
            inputs.append(torch.randint(0, output.shape[-1], tuple(output.shape[:-1]),
                                        generator=generator))
        else:
            inputs.append(torch.randn(output.shape).to(output.dtype))
        input_names.append(extra_name)
        num_extra = 1
    elif token_range is None:
        embeddings = [m.num_embeddings for m in model.modules() if isinstance(m, torch.nn.Embedding)]
        if embeddings and any(not x.is_floating_point() and x.dtype != torch.bool for x in inputs):
            token_range = embeddings[0]
    options.token_range = token_range
    if len(set(input_names)) != len(input_names):
        raise FrontendError("input names %s are not distinct" % ", ".join(input_names))

    # The initial state: the trained parameters as the module holds them, in
    # the master dtype, under the names @loss gives them (tied ones once).
    # Frozen and unused ones are constants of the step, as buffers are.
    trained, frozen, unused = trained_parameters(exported, inputs, loss, num_extra)
    if not trained:
        raise FrontendError(
            "no parameter is trained: %s%s%s; unfreeze a parameter that forward uses"
            % ("frozen (requires_grad=False): %s" % ", ".join(frozen) if frozen else "",
               "; " if frozen and unused else "",
               "no gradient reaches (forward does not use them): %s" % ", ".join(unused)
               if unused else ""))
    own_params = dict(model.named_parameters())
    state = {name: own_params[name].detach().to(master_torch).clone() for name in trained}

    os.makedirs(options.out, exist_ok=True)
    text = export_loss(exported, inputs, input_names, loss, num_extra, debug_info=True,
                       log_path=os.path.join(options.out, "export.log"), names=trained)
    loss_path = os.path.join(options.out, "loss.mlir")
    with open(loss_path, "w") as f:
        f.write("// Exported by python -m prec_torch from %s.\n" % options.model)
        f.write(text)
    step_path = os.path.join(options.out, "step.mlir")
    pipeline = pass_options(options, mesh, export_dtype, master)
    prec_opt = find_tool("prec-opt", options.prec_opt)
    run_prec_opt(prec_opt, loss_path, step_path, pipeline)
    init_path = os.path.join(options.out, "init.safetensors")
    write_safetensors(init_path, state)

    prec_run = options.prec_run or os.path.join(os.path.dirname(prec_opt), "prec-run")
    command = [prec_run, step_path, "--ranks", str(size), "--steps", str(options.steps),
               "--load", init_path, "--save", os.path.join(options.out, "final.safetensors")]
    if options.tokens:
        ints = [n for n, x in zip(input_names, inputs) if not x.is_floating_point()]
        if len(ints) != 2:
            raise FrontendError("--tokens needs exactly two integer inputs (ids, targets); the "
                                "inputs are %s" % ", ".join(input_names))
        command += write_token_streams(options.tokens, options.out, ints[0], ints[1])
    aliases = [alias for alias, name in tied_aliases(model).items() if name in state]
    counted = "%d parameters" % len(state)
    if frozen or unused:
        kinds = ([", ".join(frozen) + " (requires_grad=False)"] if frozen else []) + \
                ([", ".join(unused) + " (unused by forward)"] if unused else [])
        counted += " trained, %d frozen: %s" % (len(frozen) + len(unused), "; ".join(kinds))
    if aliases:
        counted += "; tied: " + ", ".join(aliases)
    print("prec_torch: %s -> %s (%s, mesh %s, %s)"
          % (options.model, step_path, counted, mesh, pipeline))
    print("prec_torch: initial state %s" % init_path)
    print("prec_torch: train with:")
    print(" ".join(shlex.quote(c) for c in command))
    return 0


def main(argv=None):
    options = build_parser().parse_args(argv)
    try:
        return frontend(options)
    except FrontendError as error:
        print("prec_torch: error: %s" % error, file=sys.stderr)
        return 1
