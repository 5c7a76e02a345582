#!/usr/bin/env bash
# c82 (main c4aa50d): why kp mixed is 2x f32 on Thacker's bowl but not on the dam break: the
# lake at rest at 1024² (a shoreline through cells) timed and profiled in f32, mixed, f64.
S=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export PATH=$PATH:/usr/local/cuda/bin
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
SEC="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats"
for p in f32 mixed f64; do
  r time-lake1024-$p 60 $S/hydrokern --tuning off --precision $p lake-at-rest --nx 1024 --t-end 0.5 --output /tmp/o-$p
  r ncu-lake1024-$p 150 ncu -k regex:kp_ --launch-skip 200 --launch-count 40 $SEC $S/hydrokern --tuning off --precision $p lake-at-rest --nx 1024 --t-end 0.2 --output /tmp/n-$p
done
