#!/usr/bin/env bash
# c112 (issue 15): the pictures' colour ranges and cell beds worked out once a run and their
# passes in parallel: the 4096² flood as shipped (4 snapshots with pictures, gauges, maps,
# animation), f32 and f64, against c111's build (`before/`); the examples' GPU norms.
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export HYDROKERN_REQUIRE_GPU=1 HYDROKERN_BIN=$S/hydrokern
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
r t-examples 120 $S/examples --include-ignored gpu
for b in after before; do
  B=$S/hydrokern; [ $b = before ] && B=$S/before/hydrokern
  for p in f32 f64; do
    r shipped-$p-$b 150 $B --tuning off --precision $p flood --nx 4096 --output /tmp/w/shipped
    rm -rf /tmp/w/shipped
  done
done
grep -h "test result" $OUT/r/t-*.log
cat $OUT/r/rc.txt
for f in $OUT/r/*-f*.log; do echo "$(basename $f): $(grep -h '^done' $f | cut -c1-50) | $(grep -h 'held the model' $f | cut -c3-300)"; done
