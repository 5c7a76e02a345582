#!/usr/bin/env bash
# c92 (films + no clamp pass at Δt = 0 + h⁴ by mul_rn + the mixed start exactly dry): the kp GPU
# suite but the shore lake (c94 runs it), the examples, restart and products GPU tests.
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export HYDROKERN_REQUIRE_GPU=1 PATH=$PATH:/usr/local/cuda/bin HYDROKERN_BIN=$S/hydrokern
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
r t-kp 400 $S/kp --include-ignored --nocapture --test-threads=2 --skip kp_gpu_shore_lake_stays_at_rest --skip output::png::tests::demo
r t-examples-gpu 120 $S/examples --include-ignored --nocapture gpu
r t-restart-gpu 120 $S/restart --include-ignored gpu
r t-products-gpu 120 $S/products --include-ignored gpu
cat $OUT/r/gpu.txt $OUT/r/rc.txt
grep -h "test result\|panicked\|FAILED\|failed:" $OUT/r/*.log | head -40
