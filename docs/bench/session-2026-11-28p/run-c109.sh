#!/usr/bin/env bash
# c109 (issue 15's output speed): where the writer's time goes (the run's last line now splits
# it), for the 4096² flood to t = 1 s with NPY and with NetCDF snapshots every ~100 steps; then
# the whole flood (f32 to t = 4 s, f64 to t = 2 s) with NPY snapshots every ~100 steps written
# to /dev/shm (memory: storage that keeps up) against no output.
S=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
SN=$(awk 'BEGIN { for (k = 1; k <= 30; k++) printf "%s%.3f", (k > 1 ? "," : ""), 0.033 * k }')
L4=$(awk 'BEGIN { for (k = 1; k * 0.036 < 4; k++) printf "%s%.3f", (k > 1 ? "," : ""), 0.036 * k }')
L2=$(awk 'BEGIN { for (k = 1; k * 0.036 < 2; k++) printf "%s%.3f", (k > 1 ? "," : ""), 0.036 * k }')
common="--tuning off flood --nx 4096 --set output.maxima=false"
quiet="--set output.snapshots=[] --set output.gauges=[] --set output.formats=[]"
r warm 120 $S/hydrokern --tuning off flood --nx 256 --output /tmp/w/warm
r none-f32 120 $S/hydrokern --precision f32 $common --set time.t_end=1.0 $quiet --output /tmp/w/none
r npy30-f32 150 $S/hydrokern --precision f32 $common --set time.t_end=1.0 --set "output.snapshots=[$SN]" --set 'output.formats=["npy"]' --output /tmp/w/npy30
rm -rf /tmp/w/npy30
r nc30-f32 150 $S/hydrokern --precision f32 $common --set time.t_end=1.0 --set "output.snapshots=[$SN]" --set 'output.formats=["netcdf"]' --output /tmp/w/nc30
rm -rf /tmp/w/nc30
r long-none-f32 150 $S/hydrokern --precision f32 $common --set time.t_end=4.0 $quiet --output /dev/shm/long
r long-shm-npy-f32 200 $S/hydrokern --precision f32 $common --set time.t_end=4.0 --set "output.snapshots=[$L4]" --set 'output.formats=["npy"]' --output /dev/shm/long
du -sh /dev/shm/long > $OUT/r/du.txt; rm -rf /dev/shm/long
r long-none-f64 150 $S/hydrokern --precision f64 $common --set time.t_end=2.0 $quiet --output /dev/shm/long
r long-shm-npy-f64 200 $S/hydrokern --precision f64 $common --set time.t_end=2.0 --set "output.snapshots=[$L2]" --set 'output.formats=["npy"]' --output /dev/shm/long
du -sh /dev/shm/long >> $OUT/r/du.txt; rm -rf /dev/shm/long
cat $OUT/r/rc.txt
for f in $OUT/r/*-f*.log; do echo "$(basename $f): $(grep -h '^done' $f | cut -c1-50) | $(grep -h 'held the model' $f | cut -c3-300)"; done
