#!/usr/bin/env bash
# c116 (issue 14, an experiment): register caps on the `clamp` streamed flux kernels (full and
# early exit), to fit more warps on a multiprocessor: main (f32 72/86 registers, f64 136/150),
# v1 (f32 64, f64 128), v2 (f32 56, f64 96; ptxas spills more). `bench kp` at 2048² and 4096²
# (flux kernels and RK2 steps, both precisions, tuning off), then the 4096² flood to t = 4 s
# without output (early exit) in f32 and f64 for each build.
S=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
for b in main v1 v2; do
  r warm-$b 120 $S/$b/hydrokern --tuning off flood --nx 256 --output /tmp/w/warm
done
for b in main v1 v2; do
  r bench-$b 200 $S/$b/hydrokern bench kp --tuning off --sizes 2048,4096 --no-runs --reps 30
done
quiet="--set output.snapshots=[] --set output.gauges=[] --set output.formats=[] --set output.maxima=false"
for p in f32 f64; do
  for b in main v1 v2; do
    r flood-$p-$b 100 $S/$b/hydrokern --tuning off --precision $p flood --nx 4096 $quiet --output /dev/shm/f
    rm -rf /dev/shm/f
  done
done
cat $OUT/r/rc.txt
for b in main v1 v2; do echo "== $b"; grep -i "flux\|step\|copy" $OUT/r/bench-$b.log | grep -i "stream\|rk2\|copy" | grep -v "srk\|ds" | head -30; done
for f in $OUT/r/flood-*.log; do echo "$(basename $f): $(grep -h '^done' $f | cut -c1-60)"; done
