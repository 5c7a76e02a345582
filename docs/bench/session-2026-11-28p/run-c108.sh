#!/usr/bin/env bash
# c108 (issue 15's output speed, second step): snapshot files written in pieces by several
# threads; the products kernel reading two maps of three and writing a map only where it
# changes, launched as one block when only gauges are kept. GPU tests of the products (all
# solvers), restart and examples, memcheck on the products' tests; then the 4096² flood to
# t = 1 s before (main 7da0ef0, `before/`) and after, and the whole flood to t = 4 s with NPY
# snapshots every ~100 steps (0.036 s) against none, f32 (f64 to t = 2 s: the disk holds 64 GB).
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
r t-adi-products 120 $S/adi --include-ignored products::
r t-claw-products 120 $S/claw --include-ignored products::
r t-restart 120 $S/restart --include-ignored gpu
r t-examples 120 $S/examples --include-ignored gpu
r memcheck-products 150 compute-sanitizer --tool memcheck --error-exitcode 1 $S/products --include-ignored
grep -h "test result\|panicked\|ERROR SUMMARY" $OUT/r/t-*.log $OUT/r/memcheck*.log
SN=$(awk 'BEGIN { for (k = 1; k <= 30; k++) printf "%s%.3f", (k > 1 ? "," : ""), 0.033 * k }')
L4=$(awk 'BEGIN { for (k = 1; k * 0.036 < 4; k++) printf "%s%.3f", (k > 1 ? "," : ""), 0.036 * k }')
L2=$(awk 'BEGIN { for (k = 1; k * 0.036 < 2; k++) printf "%s%.3f", (k > 1 ? "," : ""), 0.036 * k }')
common="--tuning off flood --nx 4096 --set output.maxima=false"
quiet="--set output.snapshots=[] --set output.gauges=[] --set output.formats=[]"
r none-f32-after 120 $S/hydrokern --precision f32 $common --set time.t_end=1.0 $quiet --output /tmp/w/none
for b in before after; do
  B=$S/hydrokern; [ $b = before ] && B=$S/before/hydrokern
  r npy30-f32-$b 150 $B --precision f32 $common --set time.t_end=1.0 --set "output.snapshots=[$SN]" --set 'output.formats=["npy"]' --output /tmp/w/npy30
  rm -rf /tmp/w/npy30
  r maxima-f32-$b 120 $B --precision f32 $common --set time.t_end=1.0 --set output.snapshots=[] --set output.maxima=true --set 'output.formats=[]' --output /tmp/w/maxima
  r gauges-f32-$b 120 $B --precision f32 $common --set time.t_end=1.0 --set output.snapshots=[] --set 'output.formats=[]' --output /tmp/w/gauges
done
r nc30-f32-after 150 $S/hydrokern --precision f32 $common --set time.t_end=1.0 --set "output.snapshots=[$SN]" --set 'output.formats=["netcdf"]' --output /tmp/w/nc30
rm -rf /tmp/w/nc30
r long-none-f32 150 $S/hydrokern --precision f32 $common --set time.t_end=4.0 $quiet --output /tmp/w/long
r long-npy-f32 200 $S/hydrokern --precision f32 $common --set time.t_end=4.0 --set "output.snapshots=[$L4]" --set 'output.formats=["npy"]' --output /tmp/w/long
du -sh /tmp/w/long > $OUT/r/du.txt; rm -rf /tmp/w/long
r long-none-f64 150 $S/hydrokern --precision f64 $common --set time.t_end=2.0 $quiet --output /tmp/w/long
r long-npy-f64 200 $S/hydrokern --precision f64 $common --set time.t_end=2.0 --set "output.snapshots=[$L2]" --set 'output.formats=["npy"]' --output /tmp/w/long
du -sh /tmp/w/long >> $OUT/r/du.txt; rm -rf /tmp/w/long
cat $OUT/r/rc.txt
for f in $OUT/r/*-f*.log; do echo "$(basename $f): $(grep -h '^done' $f | cut -c1-50) | $(grep -h 'held the model' $f | cut -c3-200)"; done
