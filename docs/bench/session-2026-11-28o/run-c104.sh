#!/usr/bin/env bash
# c104: ncu's per-instruction counts (SASS, SourceCounters) of the streamed flux kernel, f32 and
# f64, on the 4096² dam break, main before (82f018d) beside this build: where velocities once
# per cell moved the instruction mix (issue 14's next flux-kernel step).
S=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
for b in before now; do
  bin=$S/hydrokern; [ $b = before ] && bin=$S/hydrokern-before
  for p in f32 f64; do
    ncu -k regex:kp_flux_stream_clamp_$p --launch-skip 6 --launch-count 1 --section SourceCounters \
      --section InstructionStats --section SpeedOfLight \
      -o /tmp/flux-$b-$p $bin --tuning off --precision $p dam-break --nx 4096 --t-end 0.02 --output /tmp/n-$b-$p > $OUT/r/ncu-$b-$p.log 2>&1
    echo "ncu-$b-$p rc $?" >> $OUT/r/rc.txt
    ncu --import /tmp/flux-$b-$p.ncu-rep --page source --print-source sass --csv 2>&1 | gzip > $OUT/r/sass-$b-$p.csv.gz
  done
done
cat $OUT/r/rc.txt
