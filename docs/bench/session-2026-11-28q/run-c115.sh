#!/usr/bin/env bash
# c115 (issue 15): the clock the time loop last read is used until a step is enqueued, so the
# gauges' drain at a snapshot and the next advance no longer read it behind the snapshot's
# download (c114: 4.95 ms a snapshot). GPU tests of the products, kp's products, restart and
# the examples; memcheck on the restart test; the whole 4096² flood with NPY snapshots every
# ~100 steps and gauges every step to /dev/shm against no output (f32 to 4 s, f64 to 2 s),
# main fe3a30c (`before/`) beside it; f32 to the disk; the flood as shipped.
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export HYDROKERN_REQUIRE_GPU=1 PATH=$PATH:/usr/local/cuda/bin HYDROKERN_BIN=$S/hydrokern
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
r warm 120 $S/hydrokern --tuning off flood --nx 256 --set time.t_end=0.5 --output /tmp/w/warm
r t-products 120 $S/products --include-ignored
r t-kp-products 120 $S/kp --include-ignored products::
r t-restart 120 $S/restart --include-ignored gpu
r t-examples 120 $S/examples --include-ignored gpu
r memcheck-restart 150 compute-sanitizer --tool memcheck --error-exitcode 1 $S/restart --include-ignored gpu
grep -h "test result\|panicked\|ERROR SUMMARY" $OUT/r/t-*.log $OUT/r/memcheck*.log
L4=$(awk 'BEGIN { for (k = 1; k * 0.036 < 4; k++) printf "%s%.3f", (k > 1 ? "," : ""), 0.036 * k }')
L2=$(awk 'BEGIN { for (k = 1; k * 0.036 < 2; k++) printf "%s%.3f", (k > 1 ? "," : ""), 0.036 * k }')
common="--tuning off flood --nx 4096 --set output.maxima=false"
quiet="--set output.snapshots=[] --set output.gauges=[] --set output.formats=[]"
npy="--set output.formats=[\"npy\"]"
for k in 1 2; do
  for b in after before; do
    [ $b = before ] && [ $k = 2 ] && continue
    B=$S/hydrokern; [ $b = before ] && B=$S/before/hydrokern
    r none-f32-$b-$k 150 $B --precision f32 $common --set time.t_end=4.0 $quiet --output /dev/shm/none
    rm -rf /dev/shm/none
    r shm-f32-$b-$k 200 $B --precision f32 $common --set time.t_end=4.0 --set "output.snapshots=[$L4]" $npy --output /dev/shm/long
    rm -rf /dev/shm/long
  done
done
r none-f64-after 150 $S/hydrokern --precision f64 $common --set time.t_end=2.0 $quiet --output /dev/shm/none
rm -rf /dev/shm/none
r shm-f64-after 200 $S/hydrokern --precision f64 $common --set time.t_end=2.0 --set "output.snapshots=[$L2]" $npy --output /dev/shm/long
rm -rf /dev/shm/long
r disk-f32-after 200 $S/hydrokern --precision f32 $common --set time.t_end=4.0 --set "output.snapshots=[$L4]" $npy --output /tmp/w/long
rm -rf /tmp/w/long
for p in f32 f64; do
  r shipped-$p-after 150 $S/hydrokern --tuning off --precision $p flood --nx 4096 --output /tmp/w/shipped
  rm -rf /tmp/w/shipped
done
cat $OUT/r/rc.txt
for f in $OUT/r/*-f*.log; do echo "$(basename $f): $(grep -h '^done' $f | cut -c1-52) | $(grep -h 'held the model' $f | cut -c3-400)"; done
