"""prec's PyTorch frontend: an nn.Module, a loss, a precision policy in
FSDP2's words, a mesh and an optimizer become a sharded training step
(`step.mlir`) and its initial state (`init.safetensors`) for prec-run.

`python -m prec_torch --help` (docs/PyTorch.md) is the command line; the
functions here are its parts.
"""
from .errors import FrontendError

# The parts that need torch load when first used, so that the command line
# can say that torch is missing instead of failing on import.
_LAZY = {
    "ParametersAsArguments": "export", "export_loss": "export", "name_arguments": "export",
    "parameter_names": "export", "load_state_dict": "state", "read_safetensors": "state",
    "write_safetensors": "state",
}


def __getattr__(name):
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module("." + _LAZY[name], __name__), name)
    raise AttributeError("module 'prec_torch' has no attribute %r" % name)

__all__ = [
    "FrontendError", "ParametersAsArguments", "export_loss", "name_arguments",
    "parameter_names", "load_state_dict", "read_safetensors", "write_safetensors",
]
