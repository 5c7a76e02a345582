#!/usr/bin/env bash
# c95: `hydrokern tune --only kp` on this GPU, then the 4096² flood as shipped with that tuning
# and `--scheme auto` (issue 14's "tuning, scheme choice and early exit"), f32 and f64.
S=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
r tune-kp 280 $S/hydrokern tune --only kp --output /tmp/tune
cp ~/.cache/hydrokern/tuning.json $OUT/r/ 2>/dev/null
for p in f32 f64; do
  r flood-4096-$p-tuned 120 $S/hydrokern --precision $p flood --nx 4096 --scheme auto --output /tmp/ft-$p
done
cat $OUT/r/gpu.txt $OUT/r/rc.txt
grep -h "rk2 step\|x-line\|scheme\|took\|total" $OUT/r/tune-kp.log | tail -12
grep -h "^done\|held\|scheme\|tuning" $OUT/r/flood*.log
