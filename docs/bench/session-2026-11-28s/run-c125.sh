#!/usr/bin/env bash
# c125 (issue 14): the build to commit: v2 of c123 (row loads used a row's work after they are
# issued, corner pairs) with the `kp07` and `bollermann` f64 streamed flux kernels capped at 128
# registers (plain and early exit; `kp07`'s had gone from 128 to 136, four blocks to three, and
# 16% slower in c123). `bench kp` at 2048² and 4096²; then, with HYDROKERN_REQUIRE_GPU=1, kp's
# GPU suite and memcheck on the flux kernels' test (every scheme's streamed kernels).
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export PATH=$PATH:/usr/local/cuda/bin HYDROKERN_BIN=$S/hydrokern
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
r bench 150 $S/hydrokern bench kp --tuning off --sizes 2048,4096 --no-runs --reps 30
export HYDROKERN_REQUIRE_GPU=1
r t-kp-gpu 400 $S/kp --include-ignored --test-threads=4 gpu --skip thacker_converges_to_400
r memcheck 100 compute-sanitizer --tool memcheck --error-exitcode 1 $S/kp --include-ignored --exact gpu::kp_flux_kernels_match_cpu
cat $OUT/r/rc.txt
grep -h "test result\|panicked\|ERROR SUMMARY" $OUT/r/t-*.log $OUT/r/memcheck.log
grep "copy" $OUT/r/bench.log | head -1
grep "kp flux\|kp step" $OUT/r/bench.log | grep -v "Manning\|SRK\|DS\|tile\|srk2\|2×\|8×\|4×16\|4×64\|4×128" | awk -F'|' '{print $3,$4,$5,$6,$8}'
