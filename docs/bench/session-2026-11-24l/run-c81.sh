#!/usr/bin/env bash
# c81 (main c4aa50d): ncu profiles of the kp RK2 step (4096², f32/f64) and of kp mixed (1024²).
S=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export PATH=$PATH:/usr/local/cuda/bin
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/r/gpu.txt
SEC="--section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats"
for p in f32 mixed f64; do
  r time-db1024-$p 60 $S/hydrokern --tuning off --precision $p dam-break --nx 1024 --t-end 0.5 --output /tmp/o-$p
  r ncu-db1024-$p 150 ncu -k regex:kp_ --launch-skip 200 --launch-count 40 $SEC $S/hydrokern --tuning off --precision $p dam-break --nx 1024 --t-end 0.5 --output /tmp/n-$p
done
for p in f32 f64; do
  r ncu-db4096-$p 200 ncu -k regex:kp_ --launch-skip 100 --launch-count 25 $SEC $S/hydrokern --tuning off --precision $p dam-break --nx 4096 --t-end 0.5 --output /tmp/m-$p
done
