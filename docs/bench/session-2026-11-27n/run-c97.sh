#!/usr/bin/env bash
# c97 (main 86c489f): where the f32 4096² flood's Δt collapses near t = 4 s (throw-away
# tests/kp/diag.rs, not committed); ncu's per-instruction counts (SASS) of the streamed flux
# kernel, f32 and f64, on the 4096² dam break; the flux kernels' SASS.
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export HYDROKERN_REQUIRE_GPU=1 PATH=$PATH:/usr/local/cuda/bin HYDROKERN_BIN=$S/hydrokern
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
r diag-flood 300 $S/kp --ignored --nocapture --exact diag::diag_flood
for p in f32 f64; do
  ncu -k regex:kp_flux_stream_clamp_$p --launch-skip 6 --launch-count 1 --section SourceCounters \
    --section InstructionStats --section WarpStateStats --section SpeedOfLight --section Occupancy \
    -o /tmp/flux-$p $S/hydrokern --tuning off --precision $p dam-break --nx 4096 --t-end 0.02 --output /tmp/n-$p > $OUT/r/ncu-$p.log 2>&1
  ncu --import /tmp/flux-$p.ncu-rep --page details > $OUT/r/ncu-details-$p.txt 2>&1
  ncu --import /tmp/flux-$p.ncu-rep --page source --print-source sass --csv > $OUT/r/ncu-sass-$p.csv 2>&1
done
ptxas -arch=sm_90 $S/kernels_sm_90.ptx -o /tmp/k.cubin > $OUT/r/ptxas.log 2>&1
for f in kp_flux_stream_clamp_f32 kp_flux_stream_clamp_f64; do
  cuobjdump -sass -fun $f /tmp/k.cubin > $OUT/r/sass-$f.txt 2>&1
done
cat $OUT/r/rc.txt
grep -v "^\s*dj\|^   [wens]" $OUT/r/diag-flood.log | head -60
