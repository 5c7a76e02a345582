#!/usr/bin/env bash
# c121 (issue 14): the build to commit: RK2's second stage in the streamed flux kernel without
# early exit (its inputs loaded a row ahead; `clamp`'s f32 fused kernel capped at 96 registers,
# f64 at 128), the RK kernels' inputs loaded first (f32 capped at 48), the plain f32 `clamp`
# streamed flux kernel capped at 72. Main (1721656) beside it: the 4096² flood to t = 4 s without
# output, f32 and f64, alternating; `bench kp` at 2048² and 4096² for this build (its step rows
# time the second stage fused and apart). Then with HYDROKERN_REQUIRE_GPU=1: kp's GPU suite,
# products, restart and the examples' GPU norms; memcheck on the flux kernels' and the films'
# tests; racecheck on the films' test (the RK kernel on the drain list: shared memory).
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export PATH=$PATH:/usr/local/cuda/bin HYDROKERN_BIN=$S/hydrokern
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
r warm 120 $S/hydrokern --tuning off flood --nx 256 --output /tmp/w/warm
r warm-main 120 $S/hydrokern-main --tuning off flood --nx 256 --output /tmp/w/warmm
quiet="--set output.snapshots=[] --set output.gauges=[] --set output.formats=[] --set output.maxima=false"
for p in f32 f64; do for b in main new; do
  bin=$S/hydrokern; [ $b = main ] && bin=$S/hydrokern-main
  r flood-$b-$p 100 $bin --tuning off --precision $p flood --nx 4096 $quiet --output /dev/shm/f
  rm -rf /dev/shm/f
done; done
r bench 200 $S/hydrokern bench kp --tuning off --sizes 2048,4096 --no-runs --reps 30
export HYDROKERN_REQUIRE_GPU=1
r t-kp-gpu 420 $S/kp --include-ignored --test-threads=4 gpu --skip thacker_converges_to_400
r t-products-gpu 120 $S/products --include-ignored gpu
r t-restart-gpu 120 $S/restart --include-ignored gpu
r t-examples-gpu 60 $S/examples --include-ignored gpu
r memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 1 $S/kp --include-ignored --exact gpu::kp_flux_kernels_match_cpu gpu::kp_gpu_films_and_launches_past_t_stop
r racecheck 150 compute-sanitizer --tool racecheck --error-exitcode 1 $S/kp --include-ignored --exact gpu::kp_gpu_films_and_launches_past_t_stop
cat $OUT/r/rc.txt
grep -h "test result\|panicked\|ERROR SUMMARY\|RACECHECK SUMMARY" $OUT/r/t-*.log $OUT/r/*check*.log
grep "clamp |\|kp rk" $OUT/r/bench.log | grep "step\|kp rk" | grep -v "Manning\|SRK\|DS\|tile\|srk2" | awk -F'|' '{print $3,$4,$5,$6,$8}'
grep "copy" $OUT/r/bench.log | head -2
for f in $OUT/r/flood-*.log; do echo "$(basename $f): $(grep -h '^done' $f | cut -c1-70)"; done
