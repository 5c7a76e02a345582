#!/usr/bin/env bash
# c106 (issue 15's output speed, before any change, main 7da0ef0): how fast this machine's file
# systems take parallel writes (dd, 1–8 streams, to the disk and to /dev/shm), then the 4096²
# flood to t = 1 s in f32 and f64 with: no output; gauges every step; gauges and maxima; NPY
# snapshots every ~100 steps (every 0.033 s) with gauges; the same as NetCDF.
S=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
nproc >> $OUT/r/gpu.txt; df -h /tmp /dev/shm >> $OUT/r/gpu.txt; mount | grep -E " / | /dev/shm | /tmp " >> $OUT/r/gpu.txt
# dd: n streams of 1 GiB each, 64 MiB blocks; aggregate rate = n GiB / wall.
for d in /tmp/ddt /dev/shm/ddt; do
  mkdir -p $d
  for n in 1 2 4 8; do
    t0=$(date +%s.%N)
    for i in $(seq $n); do dd if=/dev/zero of=$d/f$i bs=64M count=16 2>/dev/null & done; wait
    t1=$(date +%s.%N)
    echo "$d streams $n: $(echo "$n / ($t1 - $t0)" | bc -l | cut -c1-5) GiB/s" >> $OUT/r/dd.txt
    rm -f $d/f*
  done
  rm -rf $d
done
cat $OUT/r/dd.txt
SN=0.033,0.066,0.099,0.132,0.165,0.198,0.231,0.264,0.297,0.330,0.363,0.396,0.429,0.462,0.495,0.528,0.561,0.594,0.627,0.660,0.693,0.726,0.759,0.792,0.825,0.858,0.891,0.924,0.957,0.990
# a first run to let the driver compile the PTX (cached for the runs after it)
r warm 120 $S/hydrokern --tuning off flood --nx 256 --output /tmp/w/warm
common="--tuning off flood --nx 4096 --set time.t_end=1.0 --set output.maxima=false"
none="--set output.snapshots=[]"
for p in f32 f64; do
  r none-$p 120 $S/hydrokern --precision $p $common $none --set output.gauges=[] --set 'output.formats=[]' --output /tmp/w/none-$p
  r gauges-$p 120 $S/hydrokern --precision $p $common $none --set 'output.formats=[]' --output /tmp/w/gauges-$p
  r maxima-$p 120 $S/hydrokern --precision $p $common $none --set output.maxima=true --set 'output.formats=[]' --output /tmp/w/maxima-$p
  r npy30-$p 150 $S/hydrokern --precision $p $common --set "output.snapshots=[$SN]" --set 'output.formats=["npy"]' --output /tmp/w/npy30-$p
  du -sh /tmp/w/npy30-$p >> $OUT/r/du.txt; rm -rf /tmp/w/npy30-$p
  r nc30-$p 150 $S/hydrokern --precision $p $common --set "output.snapshots=[$SN]" --set 'output.formats=["netcdf"]' --output /tmp/w/nc30-$p
  du -sh /tmp/w/nc30-$p >> $OUT/r/du.txt; rm -rf /tmp/w/nc30-$p
done
cat $OUT/r/rc.txt
for f in $OUT/r/*-f*.log; do echo "$(basename $f): $(grep -h '^done' $f | cut -c1-50) | $(grep -h 'held the model' $f | cut -c3-200)"; done
