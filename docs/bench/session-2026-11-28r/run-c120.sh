#!/usr/bin/env bash
# c120 (issue 14): the fused second stage with its inputs (Qⁿ, cell bed, B_hi, low parts,
# g·n²) loaded a row's work ahead of the update; the RK kernels in f32 capped at 48 registers
# and the plain f32 `clamp` streamed flux kernel at 72 (c119: the list-driven RK path and the
# second-stage code had raised them to 54 and 75, one block a multiprocessor fewer, and the
# stages ran 13–15% slower). Build A: fused `clamp` kernels capped f32 96, f64 128; build B: f32
# 80, f64 112. `bench kp` at 2048² and 4096², the 4096² flood to t = 4 s (no output), A and B;
# kp's GPU equivalence tests on build A's test binary.
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export PATH=$PATH:/usr/local/cuda/bin
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
r warm 120 $S/hydrokern-a --tuning off flood --nx 256 --output /tmp/w/warm
r warm-b 120 $S/hydrokern-b --tuning off flood --nx 256 --output /tmp/w/warmb
for b in a b; do
  r bench-$b 200 $S/hydrokern-$b bench kp --tuning off --sizes 2048,4096 --no-runs --reps 30
done
quiet="--set output.snapshots=[] --set output.gauges=[] --set output.formats=[] --set output.maxima=false"
for b in a b; do for p in f32 f64; do
  r flood-$b-$p 100 $S/hydrokern-$b --tuning off --precision $p flood --nx 4096 $quiet --output /dev/shm/f
  rm -rf /dev/shm/f
done; done
export HYDROKERN_REQUIRE_GPU=1
r t-kp-gpu 330 $S/kp --include-ignored --test-threads=4 gpu::kp_gpu_matches_cpu mixed_gpu::mixed_gpu_matches_cpu gpu::kp_gpu_clamp_drains_and_clamps_as_the_cpu gpu::kp_gpu_validation_cases gpu::kp_gpu_films_and_launches_past_t_stop
cat $OUT/r/rc.txt
grep -h "test result\|panicked\|FAILED\|failed" $OUT/r/t-*.log | head -20
for b in a b; do echo "== $b"; grep "clamp |\|kp rk" $OUT/r/bench-$b.log | grep "step\|kp rk" | grep -v "Manning\|SRK\|DS\|tile\|srk2" | awk -F'|' '{print $3,$4,$5,$6,$8}'; done
grep "copy" $OUT/r/bench-a.log | head -2
for f in $OUT/r/flood-*.log; do echo "$(basename $f): $(grep -h '^done' $f | cut -c1-70)"; done
