#!/usr/bin/env bash
# c103 (clamp reconstructs velocities): the 2048² flood as shipped and built without FMA
# contraction, f32 and f64 (issue 16 item 3 at the second size); bench kp at 1024² (the balance
# rows: f32 plain and compensated, f64, mixed); the shore lake's GPU test.
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export HYDROKERN_REQUIRE_GPU=1 PATH=$PATH:/usr/local/cuda/bin HYDROKERN_BIN=$S/hydrokern
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
for p in f32 f64; do
  r flood-2048-$p 60 $S/hydrokern --tuning off --precision $p flood --nx 2048 --output /tmp/f2-$p
  r flood-2048-$p-fma-off 60 $S/hydrokern-fma-off --tuning off --precision $p flood --nx 2048 --output /tmp/g2-$p
done
r bench-kp-1024 150 $S/hydrokern bench kp --sizes 1024 --json $OUT/r/bench-kp-1024.json
r t-kp-shore-gpu 200 $S/kp --include-ignored --nocapture --exact gpu::kp_gpu_shore_lake_stays_at_rest
cat $OUT/r/rc.txt
grep -h "test result\|panicked" $OUT/r/t-*.log
for f in $OUT/r/flood*.log; do echo "$(basename $f): $(grep -h '^done' $f | cut -c1-60) | $(grep -h 'held the model' $f | cut -c1-50)"; done
grep -h "balance" $OUT/r/bench-kp-1024.log | head
