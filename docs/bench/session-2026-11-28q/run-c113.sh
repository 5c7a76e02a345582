#!/usr/bin/env bash
# c113 (issue 15): the whole 4096² flood with NPY snapshots every ~100 steps (0.036 s) and gauges
# every step, to /dev/shm, against no output, with the writer at a lower priority than the time
# loop (this build) and without (`before/`, main fe3a30c), alternating; gauges alone; f64 to
# t = 2 s; f32 to the disk. The run's last line now splits the model's held time.
S=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt; nproc >> $OUT/r/gpu.txt
# The driver compiles the module at a machine's first run: pay it on a small run.
r warm 120 $S/hydrokern --tuning off flood --nx 256 --set time.t_end=0.2 --output /tmp/w/warm
r warm-before 120 $S/before/hydrokern --tuning off flood --nx 256 --set time.t_end=0.2 --output /tmp/w/warm2
L4=$(awk 'BEGIN { for (k = 1; k * 0.036 < 4; k++) printf "%s%.3f", (k > 1 ? "," : ""), 0.036 * k }')
L2=$(awk 'BEGIN { for (k = 1; k * 0.036 < 2; k++) printf "%s%.3f", (k > 1 ? "," : ""), 0.036 * k }')
common="--tuning off flood --nx 4096 --set output.maxima=false"
quiet="--set output.snapshots=[] --set output.gauges=[] --set output.formats=[]"
npy="--set output.formats=[\"npy\"]"
for k in 1 2; do
  for b in after before; do
    B=$S/hydrokern; [ $b = before ] && B=$S/before/hydrokern
    r none-f32-$b-$k 150 $B --precision f32 $common --set time.t_end=4.0 $quiet --output /dev/shm/none
    rm -rf /dev/shm/none
    r shm-f32-$b-$k 200 $B --precision f32 $common --set time.t_end=4.0 --set "output.snapshots=[$L4]" $npy --output /dev/shm/long
    rm -rf /dev/shm/long
  done
done
r gauges-f32-after 150 $S/hydrokern --precision f32 $common --set time.t_end=4.0 --set output.snapshots=[] --set output.formats=[] --output /dev/shm/g
rm -rf /dev/shm/g
r none-f64-after 150 $S/hydrokern --precision f64 $common --set time.t_end=2.0 $quiet --output /dev/shm/none
rm -rf /dev/shm/none
r shm-f64-after 200 $S/hydrokern --precision f64 $common --set time.t_end=2.0 --set "output.snapshots=[$L2]" $npy --output /dev/shm/long
rm -rf /dev/shm/long
r disk-f32-after 200 $S/hydrokern --precision f32 $common --set time.t_end=4.0 --set "output.snapshots=[$L4]" $npy --output /tmp/w/long
rm -rf /tmp/w
cat $OUT/r/rc.txt
for f in $OUT/r/*.log; do echo "$(basename $f): $(grep -h '^done' $f | cut -c1-52) | $(grep -h 'held the model' $f | cut -c3-400) | $(grep -h '^user\|^sys' $f | tr '\n' ' ')"; done
