#!/usr/bin/env bash
# c122 (issue 14): where the fused second stage's time goes. ncu (full set, SASS source
# counters) on four consecutive launches of a step's kernels, 4096² dam break, tuning off,
# `clamp`, RK2: stage 1's streamed flux kernel, stage 1's RK kernel, the fused second stage
# (and the list-driven RK kernel, usually empty); f32 compensated, f32 plain and f64. Main
# fcbe6bb.
S=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $OUT/r/gpu.txt
( time $S/hydrokern --tuning off flood --nx 256 --output /tmp/w/warm ) > $OUT/r/warm.log 2>&1
for c in f32:compensated f32:plain f64:compensated; do
  p=${c%%:*}; a=${c##*:}
  ( time ncu -k regex:'kp_flux_stream_clamp|kp_flux_stream_rk_clamp|kp_rk_' --launch-skip 12 --launch-count 4 \
      --set full -o /tmp/s-$p-$a $S/hydrokern --tuning off --precision $p dam-break --nx 4096 --t-end 0.02 \
      --accumulation $a --output /tmp/n-$p-$a ) > $OUT/r/ncu-$p-$a.log 2>&1
  echo "ncu-$p-$a rc $?" >> $OUT/r/rc.txt
  ncu --import /tmp/s-$p-$a.ncu-rep --page details --csv 2>&1 | gzip > $OUT/r/details-$p-$a.csv.gz
  ncu --import /tmp/s-$p-$a.ncu-rep --page raw --csv 2>&1 | gzip > $OUT/r/raw-$p-$a.csv.gz
  ncu --import /tmp/s-$p-$a.ncu-rep --page source --print-source sass --csv 2>&1 | gzip > $OUT/r/sass-$p-$a.csv.gz
done
cat $OUT/r/rc.txt
ls -la $OUT/r
