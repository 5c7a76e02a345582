#!/usr/bin/env bash
# c89 (main 887b921 + film_momenta's h⁴ rounded on its own, mul_rn): the examples' norms on the
# GPU, the shore lake GPU test, the 4096² flood as shipped in f32 and f64 (tuning off).
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export HYDROKERN_REQUIRE_GPU=1 PATH=$PATH:/usr/local/cuda/bin HYDROKERN_BIN=$S/hydrokern
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
r t-examples-gpu 120 $S/examples --include-ignored gpu
for p in f32 f64; do
  r flood-4096-$p 150 $S/hydrokern --tuning off --precision $p flood --nx 4096 --output /tmp/fl-$p
  python3 $S/films.py /tmp/fl-$p > $OUT/r/films-4096-$p.txt 2>&1
done
r t-kp-shore-gpu 280 $S/kp --include-ignored --nocapture kp_gpu_shore_lake_stays_at_rest
