#!/usr/bin/env bash
# c107 (issue 15's output speed): the file systems' rates under parallel writes (dd: 1–8
# streams of 1 GiB, through the page cache and with O_DIRECT, to the disk and to /dev/shm);
# then the 4096² flood to t = 1 s, f32, before (main 7da0ef0, `before/`) and after the writer's
# state assembly, checks and volume sum went parallel: no output, NPY snapshots every ~100
# steps (0.033 s) with gauges, the same as NetCDF; f64 after only.
S=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
dd_rate() { # dir streams flag
  local d=$1 n=$2 flag=$3; mkdir -p $d
  local t0=$(date +%s%N)
  for i in $(seq $n); do dd if=/dev/zero of=$d/f$i bs=64M count=16 $flag 2>/dev/null & done; wait
  local t1=$(date +%s%N)
  awk -v n=$n -v a=$t0 -v b=$t1 -v d=$d -v f="$flag" 'BEGIN { printf "%s %s streams %d: %.2f GiB/s\n", d, f, n, n / ((b - a) / 1e9) }' >> $OUT/r/dd.txt
  rm -rf $d
}
for n in 1 2 4 8; do dd_rate /tmp/ddt $n ""; done
for n in 1 4 8; do dd_rate /tmp/ddt $n oflag=direct; done
# the same files again (pages the guest has touched once)
for n in 1 4; do dd_rate /tmp/ddt $n ""; done
for n in 1 4; do dd_rate /dev/shm/ddt $n ""; done
cat $OUT/r/dd.txt
SN=0.033,0.066,0.099,0.132,0.165,0.198,0.231,0.264,0.297,0.330,0.363,0.396,0.429,0.462,0.495,0.528,0.561,0.594,0.627,0.660,0.693,0.726,0.759,0.792,0.825,0.858,0.891,0.924,0.957,0.990
r warm 120 $S/hydrokern --tuning off flood --nx 256 --output /tmp/w/warm
common="--tuning off flood --nx 4096 --set time.t_end=1.0 --set output.maxima=false"
for b in before after; do
  B=$S/hydrokern; [ $b = before ] && B=$S/before/hydrokern
  r none-f32-$b 120 $B --precision f32 $common --set output.snapshots=[] --set output.gauges=[] --set 'output.formats=[]' --output /tmp/w/none
  r npy30-f32-$b 150 $B --precision f32 $common --set "output.snapshots=[$SN]" --set 'output.formats=["npy"]' --output /tmp/w/npy30
  rm -rf /tmp/w/npy30
  r nc30-f32-$b 150 $B --precision f32 $common --set "output.snapshots=[$SN]" --set 'output.formats=["netcdf"]' --output /tmp/w/nc30
  rm -rf /tmp/w/nc30
done
r none-f64-after 120 $S/hydrokern --precision f64 $common --set output.snapshots=[] --set output.gauges=[] --set 'output.formats=[]' --output /tmp/w/none
r npy30-f64-after 150 $S/hydrokern --precision f64 $common --set "output.snapshots=[$SN]" --set 'output.formats=["npy"]' --output /tmp/w/npy30
rm -rf /tmp/w/npy30
cat $OUT/r/rc.txt
for f in $OUT/r/*-f*.log; do echo "$(basename $f): $(grep -h '^done' $f | cut -c1-50) | $(grep -h 'held the model' $f | cut -c3-200)"; done
