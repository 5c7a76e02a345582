#!/usr/bin/env bash
# c127 (issue 14): the RK2 step after tuning, as the issue's targets are stated. `hydrokern tune
# --only kp` (4096², its cache in $OUT), then `bench kp` at 2048² and 4096² with that cache (the
# new "tuned launch" step rows beside the defaults' and every scheme's fused and apart rows);
# the 4096² flood to t = 4 s without output, tuning off and with the cache, f32 and f64; ncu's
# issue, occupancy and DRAM figures of one step's kernels (4096² dam break, `clamp`, default
# launch), f32 and f64: what bounds each kernel. Main + the bench rows and `bollermann` f64's
# second stage apart by default (working tree).
S=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export PATH=$PATH:/usr/local/cuda/bin HYDROKERN_CACHE_DIR=$OUT/r/cache
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $OUT/r/gpu.txt
r warm 90 $S/hydrokern --tuning off flood --nx 256 --output /dev/shm/warm
r tune-kp 240 $S/hydrokern tune --only kp --output /dev/shm/tune
cp /dev/shm/tune/*.png $OUT/r/ 2>/dev/null
r bench 200 $S/hydrokern bench kp --sizes 2048,4096 --no-runs --reps 30
quiet="--set output.snapshots=[] --set output.gauges=[] --set output.formats=[] --set output.maxima=false"
for p in f32 f64; do for t in off auto; do
  r flood-$p-$t 100 $S/hydrokern --tuning $t --precision $p flood --nx 4096 $quiet --output /dev/shm/f
  rm -rf /dev/shm/f
done; done
m=gpu__time_duration.sum,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,sm__cycles_elapsed.avg.per_second
for p in f32 f64; do
  r ncu-$p 150 ncu -k regex:'kp_flux_stream_clamp|kp_flux_stream_rk_clamp|kp_rk_' --launch-skip 12 --launch-count 8 \
      --metrics $m --csv $S/hydrokern --tuning off --precision $p dam-break --nx 4096 --t-end 0.02 --output /dev/shm/n-$p
done
cat $OUT/r/rc.txt
grep "copy" $OUT/r/bench.log | head -1
grep "clamp |\|tuned" $OUT/r/bench.log | grep "kp step" | grep -v "Manning\|SRK\|DS\|tile\|early" | awk -F'|' '{print $3,$4,$5,$6,$8}'
grep "kp step" $OUT/r/bench.log | grep "stage 2" | grep -v "early\|clamp" | awk -F'|' '{print $3,$4,$5,$6,$8}'
grep -A12 "| solver" $OUT/r/tune-kp.log
for f in $OUT/r/flood-*.log; do echo "$(basename $f): $(grep -h '^done' $f | cut -c1-70)"; done
