"""Error of prec's tanh (prec-approximate-math) on every f32 where it matters.

Runs one prec program with prec-run per binade [2^e, 2^(e+1)), e = -13 to 4,
on all 2^23 f32 values of the binade, and compares each result with tanh in
float64: the most ulp (of f32, at the exact value) per binade and overall.
Below 2^-13 the approximation returns x, within an ulp of tanh(x) (x^3 / 3
is below half an ulp there); from 7.9988 on it returns 1 (the clamp); tanh
is odd and so is every step of the approximation, so negative inputs give
the negated results. docs/Prec.md ("Math functions") quotes the result;
test/Integration/CPU/tanh.mlir checks a sample against the same bound.

  python bench/numerics/tanh_error.py [--prec-run build/bin/prec-run]

Needs NumPy (build/venv-torch has it). About a minute.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COUNT = 1 << 23
PROGRAM = """#id = affine_map<(d0) -> (d0)>
func.func @tanh(%%x: tensor<%(n)dxf32>) -> tensor<%(n)dxf32> {
  %%e = tensor.empty() : tensor<%(n)dxf32>
  %%t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%%x : tensor<%(n)dxf32>) outs(%%e : tensor<%(n)dxf32>) {
  ^bb0(%%a: f32, %%o: f32):
    %%y = math.tanh %%a : f32
    linalg.yield %%y : f32
  } -> tensor<%(n)dxf32>
  return %%t : tensor<%(n)dxf32>
}
""" % {"n": COUNT}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--prec-run", default=os.path.join(ROOT, "build/bin/prec-run"))
    options = parser.parse_args()
    worst = (0.0, 0.0)
    with tempfile.TemporaryDirectory() as work:
        program = os.path.join(work, "tanh.mlir")
        with open(program, "w") as out:
            out.write(PROGRAM)
        for exponent in range(-13, 5):
            start = np.float32(2.0 ** exponent).view(np.uint32)
            x = (start + np.arange(COUNT, dtype=np.uint32)).view(np.float32)
            x.tofile(os.path.join(work, "x.bin"))
            subprocess.run([options.prec_run, program, "--ranks", "1", "--print", "none",
                            "--arg", "0=" + os.path.join(work, "x.bin"),
                            "--output-dir", os.path.join(work, "out")],
                           check=True, stderr=subprocess.DEVNULL)
            y = np.fromfile(os.path.join(work, "out", "rank0_result0.bin"), dtype=np.float32)
            exact = np.tanh(x.astype(np.float64))
            ulp = np.ldexp(1.0, np.frexp(exact)[1] - 24)
            error = np.abs(y.astype(np.float64) - exact) / ulp
            at = int(np.argmax(error))
            print("[2^%d, 2^%d): at most %.3f ulp (x = %.9g)" % (exponent, exponent + 1, error[at], x[at]))
            worst = max(worst, (float(error[at]), float(x[at])))
    print("every f32 from 2^-13 to 2^5: at most %.3f ulp (x = %.9g)" % worst)


if __name__ == "__main__":
    sys.exit(main())
