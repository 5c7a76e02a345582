#!/usr/bin/env bash
# c123 (issue 14): the streamed flux kernel's row loads issued a whole row's work before
# their first use (c122's ncu: viewed as soon as loaded, they held 17% of the f32 flux kernel's
# stall samples, and Q¹'s reload in the fused second stage 6% more). Three builds in one call:
# main (fcbe6bb), v1 (each row's state and corners fetched a row ahead, viewed at the end of the
# row; Q¹ loaded with the update's other inputs), v2 (v1, and each row's corners loaded once as
# a pair (B here, B east) kept for three rows: five loads a row instead of eight, no shuffles for
# the face beds). `bench kp` at 2048² and 4096² for each; the 4096² flood to t = 4 s without
# output, f32 and f64, main and v2.
S=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export PATH=$PATH:/usr/local/cuda/bin
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
for b in main v1 v2; do
  r bench-$b 200 $S/hydrokern-$b bench kp --tuning off --sizes 2048,4096 --no-runs --reps 30
done
quiet="--set output.snapshots=[] --set output.gauges=[] --set output.formats=[] --set output.maxima=false"
for p in f32 f64; do for b in main v2; do
  r flood-$b-$p 100 $S/hydrokern-$b --tuning off --precision $p flood --nx 4096 $quiet --output /dev/shm/f
  rm -rf /dev/shm/f
done; done
cat $OUT/r/rc.txt
grep "copy" $OUT/r/bench-main.log | head -2
for b in main v1 v2; do echo "== $b"; grep "clamp |\|kp rk" $OUT/r/bench-$b.log | grep "step\|kp rk\|kp flux" | grep -v "Manning\|SRK\|DS\|tile\|srk2\|early" | awk -F'|' '{print $3,$4,$5,$6,$8}'; done
for f in $OUT/r/flood-*.log; do echo "$(basename $f): $(grep -h '^done' $f | cut -c1-70)"; done
