#!/usr/bin/env bash
# c99: where the f32 4096² flood still slows after t = 3.9 s with thin cells' own velocity at
# their faces (throw-away tests/kp/diag.rs, rates above 4e3 /s, from t = 3.88 s).
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export HYDROKERN_REQUIRE_GPU=1 PATH=$PATH:/usr/local/cuda/bin
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
export DIAG_FROM=3.88
r diag-flood 300 $S/kp --ignored --nocapture --exact diag::diag_flood
cat $OUT/r/rc.txt
grep -v "^\s*dj\|^   [wens]" $OUT/r/diag-flood.log | head -80
