# prec quick start:
#   make demo    install what is missing, build, run the example FSDP step
#   make check   install what is missing, build, run every test suite
#   make check-gpu   the tests that need a GPU and the gemm against torch.matmul
#                    (nothing runs without a GPU; exits 0)
#   make check-torch the PyTorch frontend's tests, side by side with FSDP2
#                    (creates build/venv-torch: about 5.7 GB)
#   make check-sanitize  the whole suite under ASan and UBSan
#   make check-sanitize-runtime  the runtime's suites under ASan and UBSan
# Both are idempotent: a second run only rebuilds what changed.

BUILD_DIR ?= build
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)
MLIR_DIR ?= /usr/lib/llvm-22/lib/cmake/mlir
PREC_OPT := $(BUILD_DIR)/bin/prec-opt
PREC_RUN := $(BUILD_DIR)/bin/prec-run

# The demo: eight FSDP steps of examples/fsdp_step.mlir on 4 ranks.
DEMO_ARGS ?= --steps 8 --scalar lr=0.02

.PHONY: all deps configure build demo check check-gpu check-torch \
        check-sanitize check-sanitize-runtime clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/build.ninja: | deps
	cmake -S . -B $(BUILD_DIR) -G Ninja \
	  -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DLLVM_ENABLE_ASSERTIONS=ON \
	  -DMLIR_DIR=$(MLIR_DIR) \
	  -DCMAKE_C_COMPILER_LAUNCHER=ccache \
	  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	$(PREC_RUN) $(DEMO_ARGS) examples/fsdp_step.mlir

check: build
	cmake --build $(BUILD_DIR) -j $(JOBS) --target check-prec

# The PyTorch frontend's tests (test/Torch, REQUIRES: torch) in a virtual
# environment under the build directory, created on the first run and
# reused (docs/Testing.md); `make check` runs them too once it exists.
TORCH_VENV ?= $(BUILD_DIR)/venv-torch
LIT ?= /usr/lib/llvm-22/bin/lit
check-torch: build
	scripts/setup-torch-venv.sh $(TORCH_VENV)
	PREC_TORCH_PYTHON=$(abspath $(TORCH_VENV))/bin/python $(LIT) -sv $(BUILD_DIR)/test/Torch

# Every test that needs a GPU, in one call; says so and succeeds without one.
check-gpu: build
	scripts/check-gpu.sh $(BUILD_DIR)

# The whole suite (lit, gtest, the mpirun tests) built with AddressSanitizer
# and UndefinedBehaviorSanitizer in a build directory of its own.
SANITIZE_BUILD_DIR ?= build-sanitize
check-sanitize: deps
	scripts/check-sanitize.sh $(SANITIZE_BUILD_DIR)

# The part CI runs: the runtime alone, built with both sanitizers, and its
# suites (gtest, the mpirun tests); a few minutes.
SANITIZE_RUNTIME_BUILD_DIR ?= build-sanitize-runtime
check-sanitize-runtime: deps
	scripts/check-sanitize.sh --runtime $(SANITIZE_RUNTIME_BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR)

# Benchmarks (never part of check); docs/performance.md records their results.
.PHONY: bench-numerics bench-compile

bench-numerics: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target prec-opt prec_bench_reduction_error
	/usr/bin/python3 bench/numerics/reduction_error_report.py \
	  --bench $(BUILD_DIR)/bin/prec_bench_reduction_error --prec-opt $(PREC_OPT) \
	  --plot docs/images/reduction-error.png

# Steps of 1k, 2k and 4k layers, and a small GPT's step with its generated
# backward through prec-run (lowering and JIT); results in
# docs/performance.md.
COMPILE_BENCH_LAYERS ?= 1024 2048 4096

bench-compile: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target prec-opt prec-run
	python3 bench/compile/time_lower_to_cpu.py --prec-opt $(PREC_OPT) --passes \
	  --layers $(COMPILE_BENCH_LAYERS)
	python3 bench/compile/time_jit.py --prec-opt $(PREC_OPT) \
	  --prec-run $(PREC_RUN)

# The generated pack kernel against memcpy; compiled reduce-scatters on 4
# local ranks against the runtime's.
.PHONY: bench-e2e

bench-e2e: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target prec_bench_e2e
	$(BUILD_DIR)/bin/prec_bench_e2e

# fp8 wires: the error of dynamic, delayed and MX block scaling on weights
# with outliers (table and plot), and fp8 against bf16 weight gathers on 4
# ranks under mpirun; docs/performance.md records both.
.PHONY: bench-fp8

bench-fp8: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target prec-run prec_bench_e2e
	$(BUILD_DIR)/bin/prec_bench_e2e --mode fp8-pack
	$(BUILD_DIR)/bin/prec_bench_e2e --mode fp8-amax
	/usr/bin/python3 bench/numerics/fp8_scaling_error.py --prec-run $(PREC_RUN) \
	  --plot docs/images/fp8-scaling-error.png
	python3 bench/e2e/fp8_gather_bench.py --prec-run $(PREC_RUN)

# Upstream's convert-shard-to-mpi against convert-shard-to-prec on the same
# partitioned program, 4 processes under mpirun: error and time per step;
# docs/performance.md records it.
.PHONY: bench-shard

bench-shard: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target prec-opt prec-run
	bench/shard/run.sh $(BUILD_DIR) 100
