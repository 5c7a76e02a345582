#!/usr/bin/env bash
# c114 (issue 15, diagnosis): c113's build with a trace of the time loop's work at each snapshot
# (taking the state, the products, page-locked buffers allocated, the copies enqueued), on the
# whole 4096² f32 flood with NPY snapshots every ~100 steps to /dev/shm. A build for this call
# only, not committed.
S=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
r warm 120 $S/hydrokern --tuning off flood --nx 256 --set time.t_end=0.5 --output /tmp/w/warm
L4=$(awk 'BEGIN { for (k = 1; k * 0.036 < 4; k++) printf "%s%.3f", (k > 1 ? "," : ""), 0.036 * k }')
common="--tuning off flood --nx 4096 --set output.maxima=false"
HK_TRACE=1 r trace-shm-f32 200 $S/hydrokern --precision f32 $common --set time.t_end=4.0 --set "output.snapshots=[$L4]" --set 'output.formats=["npy"]' --output /dev/shm/long
rm -rf /dev/shm/long
cat $OUT/r/rc.txt
grep TRACE $OUT/r/trace-shm-f32.log | awk '{k=$2; n[k]++; s[k]+=$3; if ($3>m[k]) m[k]=$3} $2=="take"{p++; sp+=$5; if($5>mp) mp=$5} END {for (k in n) printf "%s n %d sum %.1f max %.1f\n", k, n[k], s[k], m[k]; printf "products n %d sum %.1f max %.1f\n", p, sp, mp}'
grep TRACE $OUT/r/trace-shm-f32.log | head -30
tail -4 $OUT/r/trace-shm-f32.log
