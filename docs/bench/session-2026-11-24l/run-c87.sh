#!/usr/bin/env bash
# c87: (1) main 8e9ac06's kp tests: does mixed_gpu_matches_cpu fail without the film change (after
# the kpfold merge)? (2) main + films' momenta desingularized in clamp's pass (uncommitted):
# the flood as shipped at 4096² and 2048², f32/f64, tuning off, films.py; the kp GPU tests.
S=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export HYDROKERN_REQUIRE_GPU=1 PATH=$PATH:/usr/local/cuda/bin HYDROKERN_BIN=$S/hydrokern
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
r t-main-mixed-gpu 120 $S/kp_main --include-ignored --nocapture mixed_gpu
for n in 4096 2048; do for p in f32 f64; do
  r flood-$n-$p 150 $S/hydrokern --tuning off --precision $p flood --nx $n --output /tmp/fl-$n-$p
  python3 $S/films.py /tmp/fl-$n-$p > $OUT/r/films-$n-$p.txt 2>&1
done; done
r t-kp-gpu 280 $S/kp --include-ignored gpu --skip thacker_converges_to_400 --skip shore_lake
