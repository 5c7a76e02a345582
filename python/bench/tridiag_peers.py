"""hk.tridiag.solve on NumPy arrays against its peers: SciPy's banded solver looped over the
batch and, where CuPy is installed, cuSPARSE's gtsv2StridedBatch (on device arrays and NumPy to
NumPy), and hk.tridiag.solve on the same CuPy arrays. Medians of a few calls after a warm-up;
diagonally dominant f64 systems.

    python python/bench/tridiag_peers.py [--n 4096] [--batch 4096] [--backend gpu]
"""

import argparse
import time

import numpy as np
import scipy.linalg

import hydrokern as hk

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--n", type=int, default=4096)
parser.add_argument("--batch", type=int, default=4096)
parser.add_argument("--backend", default="gpu")
args = parser.parse_args()
B, N = args.batch, args.n


def median(f, reps):
    f()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


rng = np.random.default_rng(0)
a, c = rng.uniform(-1, 1, (B, N)), rng.uniform(-1, 1, (B, N))
b, d = np.abs(a) + np.abs(c) + 1.0, rng.uniform(-1, 1, (B, N))
s = hk.tridiag.solve(a, b, c, d, backend=args.backend)
print(f"hk.tridiag.solve {args.backend} {B}×{N} f64: {s.algorithm} on the {s.backend}, backward error {s.backward_error:.2e}")
t_hk = median(lambda: hk.tridiag.solve(a, b, c, d, backend=args.backend), 5)
print(f"  with the backward error: {t_hk * 1e3:.1f} ms")
t_nb = median(lambda: hk.tridiag.solve(a, b, c, d, backend=args.backend, backward_error=False), 5)
print(f"  without it: {t_nb * 1e3:.1f} ms")
for alg in ["thomas", "twisted", "partition", "lu", "spike"]:
    try:
        t = median(lambda: hk.tridiag.solve(a, b, c, d, algorithm=alg, backend=args.backend, backward_error=False), 3)
        print(f"  {alg}: {t * 1e3:.1f} ms")
    except hk.CaseError as e:
        print(f"  {alg}: {e}")


def scipy_loop():
    ab, x = np.zeros((3, N)), np.empty_like(d)
    for k in range(B):
        ab[0, 1:], ab[1], ab[2, :-1] = c[k, :-1], b[k], a[k, 1:]
        x[k] = scipy.linalg.solve_banded((1, 1), ab, d[k])
    return x


print(f"  max |x − SciPy's| = {np.abs(scipy_loop() - s.x).max():.2e}")
t_sp = median(scipy_loop, 3)
print(f"scipy.linalg.solve_banded over {B} systems: {t_sp * 1e3:.1f} ms ({t_sp / t_hk:.1f}× hk's call)")
try:
    import cupy as cp
    from cupy_backends.cuda.libs import cusparse
except ImportError:
    print("CuPy: not installed")
    raise SystemExit(0)
handle = cp.cuda.device.get_cusparse_handle()


def gtsv(dl, dm, du, x):
    size = cusparse.dgtsv2StridedBatch_bufferSizeExt(handle, N, dl.data.ptr, dm.data.ptr, du.data.ptr, x.data.ptr, B, N)
    buf = cp.empty(size, dtype=cp.int8)
    cusparse.dgtsv2StridedBatch(handle, N, dl.data.ptr, dm.data.ptr, du.data.ptr, x.data.ptr, B, N, buf.data.ptr)
    cp.cuda.Device().synchronize()
    return x


da, db, dc, dd = (cp.asarray(v) for v in (a, b, c, d))
da[:, 0], dc[:, -1] = 0, 0
print(f"  max |x_CuPy − x_hk| = {float(cp.abs(gtsv(da, db, dc, dd.copy()) - cp.asarray(s.x)).max()):.2e}")
t_dev = median(lambda: gtsv(da, db, dc, dd.copy()), 10)


def from_numpy():
    a_, b_, c_, d_ = (cp.asarray(v) for v in (a, b, c, d))
    a_[:, 0], c_[:, -1] = 0, 0
    return cp.asnumpy(gtsv(a_, b_, c_, d_))


t_np = median(from_numpy, 5)
print(f"CuPy gtsv2StridedBatch: {t_dev * 1e3:.2f} ms on device arrays, {t_np * 1e3:.1f} ms NumPy to NumPy")


def hk_device(backward_error):
    s = hk.tridiag.solve(da, db, dc, dd, backend="gpu", backward_error=backward_error)
    cp.cuda.Device().synchronize()
    return s


sd = hk_device(False)
print(f"  max |x_hk(device) − x_hk(NumPy)| = {float(cp.abs(cp.from_dlpack(sd.x) - cp.asarray(s.x)).max()):.2e}")
t_hd = median(lambda: hk_device(False), 10)
t_hde = median(lambda: hk_device(True), 3)
print(
    f"hk.tridiag.solve on CuPy arrays ({sd.algorithm}): {t_hd * 1e3:.2f} ms "
    f"({t_hd / t_dev:.2f}× CuPy's on device arrays); {t_hde * 1e3:.1f} ms with the backward error (on the host)"
)
