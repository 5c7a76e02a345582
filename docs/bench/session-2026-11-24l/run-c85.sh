#!/usr/bin/env bash
# c85 (main c4aa50d + film momenta desingularized in the stage clean-up, uncommitted): the flood
# at 2048² and 4096², f32 and f64, no snapshots but the end, and with snapshots at 2, 3 s.
S=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
for n in 2048 4096; do for p in f32 f64; do
  $S/hydrokern --tuning off --precision $p flood --nx $n --output /tmp/fa-$n-$p > $OUT/r/flood-$n-$p.log 2>&1
  $S/hydrokern --tuning off --precision $p flood --nx $n --snapshots 2,3 --output /tmp/fl-$n-$p > $OUT/r/flood-snap-$n-$p.log 2>&1
  python3 $S/films.py /tmp/fl-$n-$p > $OUT/r/films-$n-$p.txt 2>&1
done; done
