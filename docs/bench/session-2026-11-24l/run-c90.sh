#!/usr/bin/env bash
# c90: the flood at 256² (the example's grid) f64 on the GPU, early exit on and off, NPY
# snapshots to compare with the CPU reference here.
S=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
for e in on off; do
  $S/hydrokern --backend gpu --precision f64 --tuning off flood --nx 256 --t-end 0.3 --snapshots 0.02,0.05,0.1,0.2 --early-exit $e --set 'output.formats=["npy"]' --output $OUT/r/g-$e > $OUT/r/g-$e.log 2>&1
done
rm -f $OUT/r/g-*/max_* $OUT/r/g-*/arrival* $OUT/r/g-*/*.png $OUT/r/g-*/*.gif
