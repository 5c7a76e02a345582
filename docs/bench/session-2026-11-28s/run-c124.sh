#!/usr/bin/env bash
# c124 (issue 14): v2 of c123 (row loads a row's work ahead, corner pairs) beside v3 (v2 with
# the plain f32 `clamp` streamed flux kernel capped at 64 registers, which it now reaches
# without spills: eight blocks of 4 warps a multiprocessor instead of seven): `bench kp` at
# 2048² and 4096². Then, for v3, with HYDROKERN_REQUIRE_GPU=1: kp's GPU suite, products,
# restart and the examples' GPU norms; memcheck on the flux kernels' and the films' tests;
# racecheck on the films' test.
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export PATH=$PATH:/usr/local/cuda/bin HYDROKERN_BIN=$S/hydrokern
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
r bench-v2 150 $S/hydrokern-v2 bench kp --tuning off --sizes 2048,4096 --no-runs --reps 30
r bench-v3 150 $S/hydrokern bench kp --tuning off --sizes 2048,4096 --no-runs --reps 30
export HYDROKERN_REQUIRE_GPU=1
r t-kp-gpu 420 $S/kp --include-ignored --test-threads=4 gpu --skip thacker_converges_to_400
r t-products-gpu 120 $S/products --include-ignored gpu
r t-restart-gpu 120 $S/restart --include-ignored gpu
r t-examples-gpu 60 $S/examples --include-ignored gpu
r memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 1 $S/kp --include-ignored --exact gpu::kp_flux_kernels_match_cpu gpu::kp_gpu_films_and_launches_past_t_stop
r racecheck 150 compute-sanitizer --tool racecheck --error-exitcode 1 $S/kp --include-ignored --exact gpu::kp_gpu_films_and_launches_past_t_stop
cat $OUT/r/rc.txt
grep -h "test result\|panicked\|ERROR SUMMARY\|RACECHECK SUMMARY" $OUT/r/t-*.log $OUT/r/*check*.log
grep "copy" $OUT/r/bench-v3.log | head -1
for b in v2 v3; do echo "== $b"; grep "clamp |\|kp rk" $OUT/r/bench-$b.log | grep "step\|kp rk\|kp flux" | grep -v "Manning\|SRK\|DS\|tile\|srk2\|early\|2×\|8×\|4×16\|4×64\|4×128" | awk -F'|' '{print $3,$4,$5,$6,$8}'; done
