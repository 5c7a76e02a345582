#!/usr/bin/env bash
# c102 (clamp reconstructs velocities): the 4096² flood built without FMA contraction
# (HYDROKERN_NVPTX_FMA=off), f32 and f64; ncu of one RK2 step's kernels on the 4096² dam break,
# main before (82f018d) beside this build; bench kp's kernel and step rows at 2048² (main and
# this build) and 4096² (this build, --no-runs); Thacker's
# GPU test against the CPU reference's new figures.
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export HYDROKERN_REQUIRE_GPU=1 PATH=$PATH:/usr/local/cuda/bin HYDROKERN_BIN=$S/hydrokern
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
for p in f32 f64; do
  r flood-4096-$p-fma-off 120 $S/hydrokern-fma-off --tuning off --precision $p flood --nx 4096 --output /tmp/ff-$p
done
SEC="--section SpeedOfLight --section LaunchStats --metrics smsp__inst_executed.sum"
for b in before now; do
  bin=$S/hydrokern; [ $b = before ] && bin=$S/hydrokern-before
  for p in f32 f64; do
    r ncu-$b-$p 90 ncu -k regex:kp_ --launch-skip 20 --launch-count 12 $SEC $bin --tuning off --precision $p dam-break --nx 4096 --t-end 0.02 --output /tmp/n-$b-$p
  done
done
r t-kp-thacker-gpu 150 $S/kp --include-ignored --nocapture --exact gpu::kp_gpu_thacker_converges
# main has no --no-runs; at 2048² bench kp runs no whole run.
r bench-kp-before 120 $S/hydrokern-before bench kp --sizes 2048 --reps 30 --json $OUT/r/bench-kp-before.json
r bench-kp-now 180 $S/hydrokern bench kp --sizes 2048,4096 --no-runs --reps 30 --json $OUT/r/bench-kp-now.json
cat $OUT/r/rc.txt
for f in $OUT/r/flood*.log; do echo "$(basename $f): $(grep -h '^done' $f | cut -c1-60) | $(grep -h 'held the model' $f | cut -c1-50)"; done
for f in $OUT/r/ncu-*.log; do echo "== $(basename $f)"; awk '/kp_flux_stream_clamp|kp_rk/{k=$1} /Duration/{if(k){print k, $NF; k=""}}' $f | sort | uniq -c | head; done
grep -h "RK2 step, streamed" $OUT/r/bench-kp-*.log | grep clamp | head -20
