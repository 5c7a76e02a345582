#!/usr/bin/env bash
# c98 (thin cells carry their own velocity to their faces, on 86c489f): the kp GPU suite, the
# examples', restart's and products' GPU tests; the flood at 4096² (f32, f64) as shipped, with
# the build before (86c489f) and a build without FMA contraction (HYDROKERN_NVPTX_FMA=off) in
# the same call; the flood at 2048².
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export HYDROKERN_REQUIRE_GPU=1 PATH=$PATH:/usr/local/cuda/bin HYDROKERN_BIN=$S/hydrokern
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
for p in f32 f64; do
  r flood-4096-$p 150 $S/hydrokern --tuning off --precision $p flood --nx 4096 --output /tmp/fl-$p
  r flood-4096-$p-fma-off 150 $S/hydrokern-fma-off --tuning off --precision $p flood --nx 4096 --output /tmp/ff-$p
  r flood-2048-$p 60 $S/hydrokern --tuning off --precision $p flood --nx 2048 --output /tmp/f2-$p
done
r flood-4096-f32-before 150 $S/hydrokern-before --tuning off --precision f32 flood --nx 4096 --output /tmp/fb-f32
r t-kp 300 $S/kp --include-ignored --test-threads=4 --skip thacker_converges_to_400 --skip diag --skip kp_gpu_shore_lake_stays_at_rest
r t-examples-gpu 120 $S/examples --include-ignored --nocapture gpu
r t-restart-gpu 120 $S/restart --include-ignored gpu
r t-products-gpu 120 $S/products --include-ignored gpu
cat $OUT/r/rc.txt
grep -h "test result\|panicked" $OUT/r/t-*.log | head -20
for f in $OUT/r/flood*.log; do echo "$(basename $f): $(grep -h '^done' $f | cut -c1-60) | $(grep -h 'held the model' $f | cut -c1-50)"; done
