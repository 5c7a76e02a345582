#!/usr/bin/env bash
# c128 (issue 14): main at 06c4304 (`bollermann`'s second stage apart by default in f64; no w
# low parts in mixed precision; bench kp's tuned-launch row). With HYDROKERN_REQUIRE_GPU=1:
# kp's GPU suite (the mixed cases with it), products, restart and the examples' GPU norms;
# memcheck on the flux kernels' and the films' tests; racecheck on the films' test. Then the
# 4096² flood to t = 4 s without output in mixed precision, and in f64 with `bollermann`
# (its second stage now apart).
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export PATH=$PATH:/usr/local/cuda/bin HYDROKERN_BIN=$S/hydrokern
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
export HYDROKERN_REQUIRE_GPU=1
r t-kp-gpu 420 $S/kp --include-ignored --test-threads=4 gpu --skip thacker_converges_to_400
r t-products-gpu 120 $S/products --include-ignored gpu
r t-restart-gpu 120 $S/restart --include-ignored gpu
r t-examples-gpu 60 $S/examples --include-ignored gpu
r memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 1 $S/kp --include-ignored --exact gpu::kp_flux_kernels_match_cpu gpu::kp_gpu_films_and_launches_past_t_stop
r racecheck 150 compute-sanitizer --tool racecheck --error-exitcode 1 $S/kp --include-ignored --exact gpu::kp_gpu_films_and_launches_past_t_stop
quiet="--set output.snapshots=[] --set output.gauges=[] --set output.formats=[] --set output.maxima=false"
r flood-mixed 60 $S/hydrokern --tuning off --precision mixed flood --nx 4096 $quiet --output /dev/shm/f; rm -rf /dev/shm/f
r flood-f64-bollermann 60 $S/hydrokern --tuning off --precision f64 flood --nx 4096 --set numerics.wet_dry=bollermann $quiet --output /dev/shm/f; rm -rf /dev/shm/f
cat $OUT/r/rc.txt
grep -h "test result\|panicked\|ERROR SUMMARY\|RACECHECK SUMMARY" $OUT/r/t-*.log $OUT/r/*check*.log
for f in $OUT/r/flood-*.log; do echo "$(basename $f): $(grep -h '^done\|^  GPU\|rror' $f | cut -c1-110)"; done
