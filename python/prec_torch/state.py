"""Checkpoints in safetensors without the safetensors package, and tied
parameters restored on load."""
import json
import struct

import torch

from .errors import FrontendError

DTYPES = {
    torch.float64: "F64", torch.float32: "F32", torch.float16: "F16",
    torch.bfloat16: "BF16", torch.float8_e4m3fn: "F8_E4M3", torch.float8_e5m2: "F8_E5M2",
    torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8",
    torch.uint8: "U8", torch.bool: "BOOL",
}
FROM_NAME = {name: dtype for dtype, name in DTYPES.items()}


def write_safetensors(path, tensors):
    """Writes `tensors` (name -> tensor) as safetensors.torch.save_file does."""
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        tensor = tensors[name].detach().cpu().contiguous()
        if tensor.dtype not in DTYPES:
            raise FrontendError("cannot write %s: dtype %s has no safetensors name"
                                % (name, tensor.dtype))
        data = tensor.reshape(-1).view(torch.uint8).numpy().tobytes()
        header[name] = {"dtype": DTYPES[tensor.dtype], "shape": list(tensor.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as out:
        out.write(struct.pack("<Q", len(text)))
        out.write(text)
        for data in blobs:
            out.write(data)


def read_safetensors(path):
    """name -> tensor of a safetensors file."""
    with open(path, "rb") as f:
        raw = f.read()
    (size,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + size])
    header.pop("__metadata__", None)
    base = 8 + size
    tensors = {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        data = bytearray(raw[base + begin:base + end])
        dtype = FROM_NAME[entry["dtype"]]
        flat = torch.frombuffer(data, dtype=torch.uint8) if data else torch.empty(0, dtype=torch.uint8)
        tensors[name] = flat.view(dtype).reshape(entry["shape"])
    return tensors


def tied_aliases(model):
    """alias -> the name the checkpoint holds it under, for parameters that
    share one tensor (a tied lm_head): `named_parameters()` gives each once."""
    first, aliases = {}, {}
    for name, param in model.named_parameters(remove_duplicate=False):
        if id(param) in first:
            aliases[name] = first[id(param)]
        else:
            first[id(param)] = name
    return aliases


def load_state_dict(model, path, strict=True):
    """Loads a checkpoint prec wrote (init.safetensors, prec-run --save) into
    `model`: every parameter by its name, each tied alias from the tensor it
    shares, in the model's dtypes; optimizer state (`exp_avg.*`,
    `exp_avg_sq.*`, `step`) is returned, not loaded. A parameter the
    checkpoint lacks keeps the module's value if the module has it frozen
    (requires_grad=False: the step held it constant), or with
    `strict=False` (for those forward does not use, which the step held
    constant too); otherwise it is an error, as is a wrong shape."""
    tensors = read_safetensors(path)
    aliases = tied_aliases(model)
    state = model.state_dict()
    wanted = {}
    for name, value in state.items():
        source = aliases.get(name, name)
        if source in tensors:
            wanted[name] = tensors[source]
    missing = [name for name, p in model.named_parameters()
               if name not in wanted and p.requires_grad]
    if missing and strict:
        raise FrontendError("%s lacks parameter(s) %s (pass strict=False to keep the module's "
                            "own values of parameters the step held constant)"
                            % (path, ", ".join(missing)))
    for name, value in wanted.items():
        if tuple(value.shape) != tuple(state[name].shape):
            raise FrontendError("%s: %s has shape %s, the model %s"
                                % (path, name, list(value.shape), list(state[name].shape)))
        wanted[name] = value.to(state[name].dtype)
    model.load_state_dict(wanted, strict=False)
    return {k: v for k, v in tensors.items() if k.startswith(("exp_avg.", "exp_avg_sq.")) or k == "step"}
