#!/usr/bin/env bash
# c86 (main 288932e+1, kpfold merged, + the film velocity hold, uncommitted): the flood case as
# shipped (snapshots 1, 2, 3 s) at 2048² and 4096², f32 and f64, tuning off; films.py on its
# snapshots; the kp GPU tests but the shore lake's and Thacker 400's; kp_mixed's.
S=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export HYDROKERN_REQUIRE_GPU=1 PATH=$PATH:/usr/local/cuda/bin HYDROKERN_BIN=$S/hydrokern
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
for n in 4096 2048; do for p in f32 f64; do
  r flood-$n-$p 150 $S/hydrokern --tuning off --precision $p flood --nx $n --output /tmp/fl-$n-$p
  python3 $S/films.py /tmp/fl-$n-$p > $OUT/r/films-$n-$p.txt 2>&1
done; done
r t-kp-gpu 280 $S/kp --include-ignored gpu --skip thacker_converges_to_400 --skip shore_lake
r t-kp-mixed-gpu 100 $S/kp_mixed --include-ignored --nocapture gpu
