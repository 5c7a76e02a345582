#!/usr/bin/env bash
# c111 (issue 15, the session's last call): GPU tests of the products (kernel as committed),
# kp's products, restart and the examples, memcheck on the products' tests; parallel writes to
# one file (dd, 4 pieces of one file against 4 files); the 4096² flood as shipped (4 snapshots
# with pictures, gauges, maps, animation) with the three maps of a snapshot drawn side by side,
# against c110's build (`before/`); the 4096² flood to t = 1 s with NPY snapshots every ~100
# steps and the whole flood to /dev/shm with 111, against no output, for the table.
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export HYDROKERN_REQUIRE_GPU=1 PATH=$PATH:/usr/local/cuda/bin HYDROKERN_BIN=$S/hydrokern
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
r t-products 120 $S/products --include-ignored
r t-kp-products 120 $S/kp --include-ignored products::
r t-restart 120 $S/restart --include-ignored gpu
r t-examples 120 $S/examples --include-ignored gpu
r memcheck-products 150 compute-sanitizer --tool memcheck --error-exitcode 1 $S/products --include-ignored
grep -h "test result\|panicked\|ERROR SUMMARY" $OUT/r/t-*.log $OUT/r/memcheck*.log
# 1 GiB as 4 pieces of one file written at once, against 4 files of 256 MiB
rate() { awk -v a=$1 -v b=$2 -v w="$3" 'BEGIN { printf "%s: %.2f GiB/s\n", w, 1 / ((b - a) / 1e9) }' >> $OUT/r/dd.txt; }
mkdir -p /tmp/ddt
t0=$(date +%s%N); for k in 0 1 2 3; do dd if=/dev/zero of=/tmp/ddt/one bs=64M count=4 seek=$((4 * k)) conv=notrunc 2>/dev/null & done; wait; rate $t0 $(date +%s%N) "one file, 4 writers"; rm -f /tmp/ddt/*
t0=$(date +%s%N); for k in 0 1 2 3; do dd if=/dev/zero of=/tmp/ddt/f$k bs=64M count=4 2>/dev/null & done; wait; rate $t0 $(date +%s%N) "4 files, 4 writers"; rm -rf /tmp/ddt
cat $OUT/r/dd.txt
SN=$(awk 'BEGIN { for (k = 1; k <= 30; k++) printf "%s%.3f", (k > 1 ? "," : ""), 0.033 * k }')
L4=$(awk 'BEGIN { for (k = 1; k * 0.036 < 4; k++) printf "%s%.3f", (k > 1 ? "," : ""), 0.036 * k }')
common="--tuning off flood --nx 4096 --set output.maxima=false"
quiet="--set output.snapshots=[] --set output.gauges=[] --set output.formats=[]"
for b in after before; do
  B=$S/hydrokern; [ $b = before ] && B=$S/before/hydrokern
  for p in f32 f64; do
    r shipped-$p-$b 150 $B --tuning off --precision $p flood --nx 4096 --output /tmp/w/shipped
    rm -rf /tmp/w/shipped
  done
done
r none-f32 120 $S/hydrokern --precision f32 $common --set time.t_end=1.0 $quiet --output /tmp/w/none
r npy30-f32 150 $S/hydrokern --precision f32 $common --set time.t_end=1.0 --set "output.snapshots=[$SN]" --set 'output.formats=["npy"]' --output /tmp/w/npy30
rm -rf /tmp/w/npy30
r long-none-f32 150 $S/hydrokern --precision f32 $common --set time.t_end=4.0 $quiet --output /dev/shm/long
r long-shm-npy-f32 200 $S/hydrokern --precision f32 $common --set time.t_end=4.0 --set "output.snapshots=[$L4]" --set 'output.formats=["npy"]' --output /dev/shm/long
rm -rf /dev/shm/long
cat $OUT/r/rc.txt
for f in $OUT/r/*-f*.log; do echo "$(basename $f): $(grep -h '^done' $f | cut -c1-50) | $(grep -h 'held the model' $f | cut -c3-300)"; done
