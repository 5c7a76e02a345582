#!/usr/bin/env bash
# c96: the examples' norms on the GPU with kp's examples in mixed precision too (gauges and maps
# off on the GPU, which records them in f32 and f64 only).
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
export HYDROKERN_REQUIRE_GPU=1 HYDROKERN_BIN=$S/hydrokern
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/r/gpu.txt
timeout 150 $S/examples --include-ignored --nocapture gpu > $OUT/r/t-examples-gpu.log 2>&1; echo "rc $?" >> $OUT/r/gpu.txt
cat $OUT/r/gpu.txt
grep -E "GPU\)|test result|panicked" $OUT/r/t-examples-gpu.log
