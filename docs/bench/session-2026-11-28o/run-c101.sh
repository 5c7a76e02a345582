#!/usr/bin/env bash
# c101 (clamp reconstructs velocities, not momenta): the kp GPU suite, the examples', restart's
# and products' GPU tests; memcheck on the flux kernels' tests, racecheck on the tile and split
# flux kernels' (shared memory); the 4096² flood as shipped (f32, f64): issue 16 item 3's step
# counts.
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export HYDROKERN_REQUIRE_GPU=1 PATH=$PATH:/usr/local/cuda/bin HYDROKERN_BIN=$S/hydrokern
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
for p in f32 f64; do
  r flood-4096-$p 120 $S/hydrokern --tuning off --precision $p flood --nx 4096 --output /tmp/fl-$p
done
r memcheck-flux 120 compute-sanitizer --tool memcheck --error-exitcode 1 $S/kp --include-ignored --exact gpu::kp_flux_kernels_match_cpu gpu::kp_gpu_films_and_launches_past_t_stop
r racecheck-flux 150 compute-sanitizer --tool racecheck --error-exitcode 1 $S/kp --include-ignored --exact gpu::kp_flux_kernels_match_cpu schemes::gpu_split_schemes_discard_as_the_cpu
r t-examples-gpu 90 $S/examples --include-ignored --nocapture gpu
r t-restart-gpu 60 $S/restart --include-ignored gpu
r t-products-gpu 60 $S/products --include-ignored gpu
r t-kp-gpu 270 $S/kp --include-ignored --test-threads=4 gpu --skip thacker_converges_to_400 --skip kp_gpu_shore_lake_stays_at_rest
cat $OUT/r/rc.txt
grep -h "test result\|panicked\|ERROR SUMMARY\|RACECHECK SUMMARY" $OUT/r/t-*.log $OUT/r/*check*.log | head -20
for f in $OUT/r/flood*.log; do echo "$(basename $f): $(grep -h '^done' $f | cut -c1-60) | $(grep -h 'held the model' $f | cut -c1-50)"; done
