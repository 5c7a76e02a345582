#!/usr/bin/env bash
# c130 (issue 14): the Euler stage's friction damping 1/(1 + Δt·C_f) skipped where C_f = 0 (it
# is 1 exactly there; before, every cell paid an IEEE division, the fused second stage included).
# Expected before measuring: the fused stage about 1% faster in f32 and 1–2% in f64, the RK
# kernels (memory-bound) unchanged, the same steps. `bench kp --tuning off` at 2048² and 4096²
# for main (hydrokern-main, 06c4304) and this build (hydrokern); the 4096² flood without output
# for this build, f32 and f64 (11 106 steps expected); then, for this build, with
# HYDROKERN_REQUIRE_GPU=1: kp's GPU suite and the examples' GPU norms, memcheck on the flux
# kernels' and the films' tests.
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export PATH=$PATH:/usr/local/cuda/bin HYDROKERN_BIN=$S/hydrokern
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
r bench-main 150 $S/hydrokern-main bench kp --tuning off --sizes 2048,4096 --no-runs --reps 30
r bench-v1 150 $S/hydrokern bench kp --tuning off --sizes 2048,4096 --no-runs --reps 30
quiet="--set output.snapshots=[] --set output.gauges=[] --set output.formats=[] --set output.maxima=false"
for p in f32 f64; do
  r flood-v1-$p 60 $S/hydrokern --tuning off --precision $p flood --nx 4096 $quiet --output /dev/shm/f; rm -rf /dev/shm/f
done
export HYDROKERN_REQUIRE_GPU=1
r t-kp-gpu 400 $S/kp --include-ignored --test-threads=4 gpu --skip thacker_converges_to_400
r t-examples-gpu 60 $S/examples --include-ignored gpu
r memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 1 $S/kp --include-ignored --exact gpu::kp_flux_kernels_match_cpu gpu::kp_gpu_films_and_launches_past_t_stop
cat $OUT/r/rc.txt
grep -h "test result\|panicked\|ERROR SUMMARY" $OUT/r/t-*.log $OUT/r/memcheck.log
grep "copy" $OUT/r/bench-v1.log | head -1
for b in main v1; do echo "== $b"; grep "kp step\|kp rk\|kp flux" $OUT/r/bench-$b.log | grep "clamp |\|kp rk" | grep -v "SRK\|DS\|tile\|srk2\|early\|2×\|8×\|4×16\|4×64\|4×128\|tuned" | awk -F'|' '{print $3,$4,$5,$6}'; done
for f in $OUT/r/flood-*.log; do echo "$(basename $f): $(grep -h '^done' $f | cut -c1-70)"; done
