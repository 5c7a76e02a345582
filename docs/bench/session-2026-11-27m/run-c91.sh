#!/usr/bin/env bash
# c91 (films in clamp's pass re-done on main 791debe, no pass in a stage of Δt = 0): the new GPU
# test of the flood's films and of launches past t_stop, the examples' norms on the GPU, a
# throw-away diagnosis of the mixed failure (tests/kp/diag.rs, not committed), the mixed proptest
# (its failing inputs), the 4096² flood as shipped in f32 and f64 (tuning off).
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export HYDROKERN_REQUIRE_GPU=1 PATH=$PATH:/usr/local/cuda/bin HYDROKERN_BIN=$S/hydrokern
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
r t-films 120 $S/kp --include-ignored --nocapture --exact gpu::kp_gpu_films_and_launches_past_t_stop
r t-examples-gpu 150 $S/examples --include-ignored gpu
r diag-mixed 120 $S/kp --ignored --nocapture --exact diag::diag_mixed
r t-mixed-matches 150 $S/kp --include-ignored --exact mixed_gpu::mixed_gpu_matches_cpu
for p in f32 f64; do
  r flood-4096-$p 150 $S/hydrokern --tuning off --precision $p flood --nx 4096 --output /tmp/fl-$p
done
cat $OUT/r/rc.txt
grep -h "GPU flood\|test result\|panicked\|steps\|run took\|model" $OUT/r/*.log | head -60
