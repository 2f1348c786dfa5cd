# -*- Python -*-
import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config

config.name = "PREC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".c", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.prec_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
# A variable a CHECK line captures does not outlive its CHECK-LABEL block
# (captures named with a leading `$` stay global).
config.environment["FILECHECK_OPTS"] = "-enable-var-scope"

config.substitutions.append(("%shlibext", config.llvm_shlib_ext))
config.substitutions.append(("%prec_lib", os.path.join(config.prec_obj_root, "lib")))
config.substitutions.append(("%prec_src", config.prec_src_root))
config.substitutions.append(("%prec_build", config.prec_obj_root))

prec_tools_dir = os.path.join(config.prec_obj_root, "bin")
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
tools = ["prec-opt", "prec-lsp-server", "prec-capi-test", "mlir-opt"]
# prec-run is built with the runtime (PREC_BUILD_RUNTIME).
if os.path.exists(os.path.join(prec_tools_dir, "prec-run")):
    config.available_features.add("prec-run")
    tools.append("prec-run")
    tools.append("prec-capi-run-test")
    tools.append("prec-runner-test")
llvm_config.add_tool_substitutions(tools, [prec_tools_dir, config.llvm_tools_dir])

# A build with sanitizers (scripts/check-sanitize.sh) runs every tool several
# times slower (ASan's checks, LeakSanitizer at exit): the fuzzer's limit
# per input (a hang above it) grows with it, from 30 s to 150 s.
if config.llvm_use_sanitizer:
    config.available_features.add("sanitizer")

# %sanitizer_preload PROGRAM: a program prec does not build that loads the
# sanitized runtime or plugin (a Python checker through ctypes, mlir-runner,
# mlir-opt) needs ASan's runtime loaded before anything else; its own
# allocations are not checked for leaks. Empty in other builds.
sanitizer_preload = ""
if config.llvm_use_sanitizer:
    libasan = subprocess.run(
        [getattr(config, "cxx_compiler", "") or "c++", "-print-file-name=libasan.so"],
        capture_output=True, text=True).stdout.strip()
    sanitizer_preload = "env LD_PRELOAD=%s ASAN_OPTIONS=%s:detect_leaks=0 " % (
        libasan, os.environ.get("ASAN_OPTIONS", ""))
config.substitutions.append(("%sanitizer_preload", sanitizer_preload))
config.substitutions.append(
    ("%fuzz_timeout", "150" if config.llvm_use_sanitizer else "30"))

# precrt-gpu-probe is built with the runtime too; where it finds a CUDA GPU,
# the tests that need one (REQUIRES: cuda-gpu) run.
gpu_probe = os.path.join(prec_tools_dir, "precrt-gpu-probe")
if os.path.exists(gpu_probe):
    config.available_features.add("precrt-gpu-probe")
    config.substitutions.append(("%precrt_gpu_probe", gpu_probe))
    try:
        probe = subprocess.run([gpu_probe], capture_output=True, timeout=120)
        if probe.returncode == 0:
            config.available_features.add("cuda-gpu")
    except subprocess.TimeoutExpired:
        lit_config.warning("precrt-gpu-probe did not answer; no cuda-gpu feature")

# prec-lower-to-cuda's cubin and fatbin formats run the CUDA toolkit's ptxas,
# found on PATH or under CUDA_HOME / CUDA_ROOT / CUDA_PATH.
for variable in ("CUDA_HOME", "CUDA_ROOT", "CUDA_PATH"):
    if variable in os.environ:
        config.environment[variable] = os.environ[variable]
if shutil.which("ptxas") or any(
        os.path.exists(os.path.join(os.environ.get(v, ""), "bin", "ptxas"))
        for v in ("CUDA_HOME", "CUDA_ROOT", "CUDA_PATH") if v in os.environ):
    config.available_features.add("ptxas")

# The runtime's doubles of libcuda.so.1, libnccl.so.2 and libcublasLt (built with its unit
# tests): they count devices and fail like the real ones, and run the kernels
# of prec-lower-to-cuda-emulation on the host (test/Integration/GPUEmulation).
fakes_dir = os.path.join(config.prec_obj_root, "runtime", "test")
fake_cuda = os.path.join(fakes_dir, "libprecrt_fake_cuda_driver.so")
fake_nccl = os.path.join(fakes_dir, "libprecrt_fake_nccl.so")
fake_cublaslt = os.path.join(fakes_dir, "libprecrt_fake_cublaslt.so")
if all(os.path.exists(fake) for fake in (fake_cuda, fake_nccl, fake_cublaslt)):
    config.available_features.add("precrt-gpu-fakes")
    config.substitutions.append(("%precrt_fake_cuda_driver", fake_cuda))
    config.substitutions.append(("%precrt_fake_nccl", fake_nccl))
    config.substitutions.append(("%precrt_fake_cublaslt", fake_cublaslt))

# The runtime library, for programs run by upstream's mlir-runner.
config.substitutions.append(("%precrt_lib", os.path.join(config.prec_obj_root, "runtime")))
config.substitutions.append(("%mlir_lib", os.path.join(config.llvm_tools_dir, "..", "lib")))
if os.path.exists(os.path.join(config.llvm_tools_dir, "mlir-runner")):
    config.available_features.add("mlir-runner")

# %mpirun N ...: N processes under mpirun. OpenMPI needs leave to run as root
# and to start more processes than cores, and in containers must not use the
# cross-memory attach of its shared-memory transport.
mpirun = shutil.which("mpirun")
if mpirun:
    config.available_features.add("mpi")
    version = subprocess.run([mpirun, "--version"], capture_output=True, text=True).stdout
    if "Open MPI" in version or "OpenRTE" in version:
        mpirun = ("env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                  "OMPI_MCA_btl_vader_single_copy_mechanism=none %s --oversubscribe" % mpirun)
    # In a sanitized build lit's programs run with ASan's fast unwinder
    # (scripts/check-sanitize.sh), with which Open MPI's allocations kept
    # until exit cannot be suppressed by library: processes under mpirun
    # run without leak checking (ASan's and UBSan's other checks stay on).
    if config.llvm_use_sanitizer and "ASAN_OPTIONS" in os.environ:
        mpirun = "env ASAN_OPTIONS=%s:detect_leaks=0 %s" % (
            os.environ["ASAN_OPTIONS"], mpirun)
    config.substitutions.append(("%mpirun", mpirun + " -np"))

    # %emulated_cluster: scripts/emulated-cluster.sh, which runs a command
    # with mpirun set up to launch across hosts emulated by network
    # namespaces (docs/Runtime.md, "An emulated cluster"). It needs root and
    # `ip netns`; where it cannot create a namespace, the tests that use it
    # (REQUIRES: emulated-cluster) are unsupported, and lit says why.
    cluster = os.path.join(config.prec_src_root, "scripts", "emulated-cluster.sh")
    config.substitutions.append(("%emulated_cluster", cluster))
    probe = subprocess.run([cluster, "--check"], capture_output=True, text=True)
    if probe.returncode == 0:
        config.available_features.add("emulated-cluster")
    else:
        lit_config.note("no emulated-cluster feature, the tests of several "
                        "hosts are unsupported: " + probe.stderr.strip())

# The CPUs numerics tests compile for: the host's, and baseline x86-64, so
# that a result never depends on the host's instruction set
# (docs/Runtime.md, "The same numbers on every host").
config.substitutions.append(("%numerics_cpus", "host x86-64"))

# The PyTorch frontend's tests (test/Torch, REQUIRES: torch) run in the
# virtual environment `make check-torch` creates (scripts/setup-torch-venv.sh:
# torch, torch-mlir, safetensors, ml_dtypes), or in PREC_TORCH_PYTHON's.
torch_python = os.environ.get("PREC_TORCH_PYTHON") or os.path.join(
    config.prec_obj_root, "venv-torch", "bin", "python")
if os.path.exists(torch_python):
    try:
        probe = subprocess.run(
            [torch_python, "-c", "import torch, torch_mlir, safetensors, ml_dtypes"],
            capture_output=True, timeout=300)
        if probe.returncode == 0:
            config.available_features.add("torch")
    except subprocess.TimeoutExpired:
        lit_config.warning("%s did not import torch; no torch feature" % torch_python)
config.substitutions.append(("%torch_python", torch_python))
config.substitutions.append(
    ("%prec_torch", "env PYTHONPATH=%s %s -m prec_torch" % (
        os.path.join(config.prec_src_root, "python"), torch_python)))
