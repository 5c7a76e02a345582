#!/usr/bin/env bash
# c93: the 4096² flood as shipped (tuning off, output included), f32 and f64, this build and
# main before it (791debe, hydrokern-main) on the same GPU; bench kp at 1024² (the balance rows:
# mixed on Thacker's bowl after the exactly-dry start), the new build and main's; the 1024²
# flood on the GPU (its step counts against the CPU reference's, run on the build machine).
S=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
for p in f32 f64; do
  r flood-4096-$p 150 $S/hydrokern --tuning off --precision $p flood --nx 4096 --output /tmp/fl-$p
  r flood-4096-$p-main 200 $S/hydrokern-main --tuning off --precision $p flood --nx 4096 --output /tmp/flm-$p
  rm -rf /tmp/fl-$p /tmp/flm-$p
done
# 1024²: the step counts to set beside the CPU reference's (no multiply-add contraction) here.
for p in f32 f64; do
  r flood-1024-$p 100 $S/hydrokern --tuning off --backend gpu --precision $p flood --nx 1024 --output /tmp/f1-$p
done
r bench-kp-1024 150 $S/hydrokern bench kp --sizes 1024 --json $OUT/r/bench-kp-1024.json
r bench-kp-1024-main 150 $S/hydrokern-main bench kp --sizes 1024 --json $OUT/r/bench-kp-1024-main.json
cat $OUT/r/gpu.txt $OUT/r/rc.txt
grep -h "^done\|model\|held" $OUT/r/flood*.log
grep -h "balance\|rk2 step\|copy" $OUT/r/bench-kp-1024*.log | head -30
