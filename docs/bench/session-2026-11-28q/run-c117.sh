#!/usr/bin/env bash
# c117 (issue 14): the register caps as committed (f64 `clamp` streamed flux, full and early
# exit, at 128; f32 early exit at 64): kp's GPU suite, memcheck and racecheck on the flux
# kernels' test, the examples' GPU norms; `bench kp` at 2048² and 4096² (both precisions, tuning
# off); the 4096² flood to t = 4 s without output, f32 and f64.
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export PATH=$PATH:/usr/local/cuda/bin HYDROKERN_BIN=$S/hydrokern
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
r warm 120 $S/hydrokern --tuning off flood --nx 256 --output /tmp/w/warm
r bench 200 $S/hydrokern bench kp --tuning off --sizes 2048,4096 --no-runs --reps 30
quiet="--set output.snapshots=[] --set output.gauges=[] --set output.formats=[] --set output.maxima=false"
for p in f32 f64; do
  r flood-$p 100 $S/hydrokern --tuning off --precision $p flood --nx 4096 $quiet --output /dev/shm/f
  rm -rf /dev/shm/f
done
export HYDROKERN_REQUIRE_GPU=1
r t-examples-gpu 60 $S/examples --include-ignored gpu
r memcheck-flux 90 compute-sanitizer --tool memcheck --error-exitcode 1 $S/kp --include-ignored --exact gpu::kp_flux_kernels_match_cpu gpu::kp_gpu_films_and_launches_past_t_stop
r racecheck-flux 120 compute-sanitizer --tool racecheck --error-exitcode 1 $S/kp --include-ignored --exact gpu::kp_flux_kernels_match_cpu
r t-kp-gpu 300 $S/kp --include-ignored --test-threads=4 gpu --skip thacker_converges_to_400
cat $OUT/r/rc.txt
grep -h "test result\|panicked\|ERROR SUMMARY\|RACECHECK SUMMARY" $OUT/r/t-*.log $OUT/r/*check*.log
grep "clamp |" $OUT/r/bench.log | grep "stream 4×32" | grep -v "Manning\|SRK" | awk -F'|' '{print $3,$4,$5,$6,$8}'
grep "copy" $OUT/r/bench.log | head -2
for f in $OUT/r/flood-*.log; do echo "$(basename $f): $(grep -h '^done' $f | cut -c1-60)"; done
