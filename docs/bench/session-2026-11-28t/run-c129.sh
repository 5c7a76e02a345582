#!/usr/bin/env bash
# c129 (issue 14): the full `hydrokern tune` (every solver, both precisions, the scheme choice)
# on main's kernels as they are now (build of 06c4304; 11d2d39 changes docs and help text only),
# against the issue's target of at most 5 minutes; the cache and heat maps in $OUT.
S=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export PATH=$PATH:/usr/local/cuda/bin HYDROKERN_CACHE_DIR=$OUT/r/cache
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv > $OUT/r/gpu.txt
r tune-full 420 $S/hydrokern tune --output $OUT/r/maps
r info 60 $S/hydrokern info
cat $OUT/r/rc.txt
grep -E "elapsed|^real|gain" $OUT/r/tune-full.log | tail -5
grep -i "tun" $OUT/r/info.log
