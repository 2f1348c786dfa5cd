"""prec's PyTorch frontend: an nn.Module, a loss, a precision policy in
FSDP2's words, a mesh and an optimizer become a sharded training step
(`step.mlir`) and its initial state (`init.safetensors`) for prec-run.

`python -m prec_torch --help` (docs/PyTorch.md) is the command line; the
functions here are its parts.
"""
from .errors import FrontendError
from .export import (ParametersAsArguments, export_loss, name_arguments,
                     parameter_names)
from .state import load_state_dict, read_safetensors, write_safetensors

__all__ = [
    "FrontendError", "ParametersAsArguments", "export_loss", "name_arguments",
    "parameter_names", "load_state_dict", "read_safetensors", "write_safetensors",
]
