#!/usr/bin/env bash
# c84 (main c4aa50d): where the flood's thin films are fast: snapshots at t = 2, 3, 4 s of the
# flood at 2048² and 4096², f32 and f64, clamp, tuning off; films.py reads them on the device.
S=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
python3 -c "import numpy; print(numpy.__version__)" > $OUT/r/numpy.txt 2>&1
for n in 2048 4096; do for p in f32 f64; do
  $S/hydrokern --tuning off --precision $p flood --nx $n --snapshots 2,3 --output /tmp/fl-$n-$p > $OUT/r/flood-$n-$p.log 2>&1
  python3 $S/films.py /tmp/fl-$n-$p > $OUT/r/films-$n-$p.txt 2>&1
done; done
