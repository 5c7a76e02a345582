#!/usr/bin/env bash
# c88 (main 887b921: films desingularized in clamp's pass): the kp GPU tests c87 left out (shore
# lake), the examples' norms on the GPU, the GPU restart, memcheck and racecheck on the clamp and
# split passes.
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export HYDROKERN_REQUIRE_GPU=1 PATH=$PATH:/usr/local/cuda/bin HYDROKERN_BIN=$S/hydrokern
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
r t-kp-shore-gpu 200 $S/kp --include-ignored --nocapture kp_gpu_shore_lake_stays_at_rest
r t-examples-gpu 120 $S/examples --include-ignored gpu
r t-restart-gpu 100 $S/restart --include-ignored gpu
export PROPTEST_CASES=3
r memcheck-clamp 120 compute-sanitizer --tool memcheck --error-exitcode 1 $S/kp --include-ignored --exact gpu::kp_gpu_clamp_drains_and_clamps_as_the_cpu
r racecheck-split 120 compute-sanitizer --tool racecheck --error-exitcode 1 $S/kp --include-ignored --exact schemes::gpu_split_schemes_discard_as_the_cpu
