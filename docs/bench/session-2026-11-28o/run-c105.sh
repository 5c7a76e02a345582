#!/usr/bin/env bash
# c105 (after the review: a thin cell's velocity slopes set to 0 in `reconstruct` instead of a
# second return path; the same arithmetic): the 4096² flood f32 and f64 (steps must stay
# 11 108), memcheck on the flux kernels' tests, the examples' GPU norms, the kp GPU suite.
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export HYDROKERN_REQUIRE_GPU=1 PATH=$PATH:/usr/local/cuda/bin HYDROKERN_BIN=$S/hydrokern
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
for p in f32 f64; do
  r flood-4096-$p 90 $S/hydrokern --tuning off --precision $p flood --nx 4096 --output /tmp/fl-$p
done
r memcheck-flux 90 compute-sanitizer --tool memcheck --error-exitcode 1 $S/kp --include-ignored --exact gpu::kp_flux_kernels_match_cpu gpu::kp_gpu_films_and_launches_past_t_stop
r racecheck-flux 120 compute-sanitizer --tool racecheck --error-exitcode 1 $S/kp --include-ignored --exact gpu::kp_flux_kernels_match_cpu
r t-examples-gpu 60 $S/examples --include-ignored --nocapture gpu
r t-kp-gpu 250 $S/kp --include-ignored --test-threads=4 gpu --skip thacker_converges_to_400 --skip kp_gpu_shore_lake_stays_at_rest
cat $OUT/r/rc.txt
grep -h "test result\|panicked\|ERROR SUMMARY\|RACECHECK SUMMARY" $OUT/r/t-*.log $OUT/r/*check*.log | head -20
for f in $OUT/r/flood*.log; do echo "$(basename $f): $(grep -h '^done' $f | cut -c1-60) | $(grep -h 'held the model' $f | cut -c1-50)"; done
