#!/usr/bin/env bash
# c94: the shore lake GPU test; memcheck of the films test, clamp's drains and clamps and the mixed
# proptest; racecheck of the films test (the split schemes' transposing tiles); the 2048² flood,
# f32 and f64, this build and main's.
S=$(cd "$(dirname "$0")" && pwd)
REPO=$(pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
export HYDROKERN_REQUIRE_GPU=1 PATH=$PATH:/usr/local/cuda/bin HYDROKERN_BIN=$S/hydrokern
[ -d /work/main ] || { mkdir -p /work && ln -s "$REPO" /work/main; }
r() { local name=$1 t=$2; shift 2; ( time timeout $t "$@" ) > $OUT/r/$name.log 2>&1; echo "$name rc $?" >> $OUT/r/rc.txt; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/r/gpu.txt
r t-kp-shore-gpu 240 $S/kp --include-ignored --nocapture --exact gpu::kp_gpu_shore_lake_stays_at_rest
export PROPTEST_CASES=2
r memcheck-kp 200 compute-sanitizer --tool memcheck --error-exitcode 1 $S/kp --include-ignored --test-threads=1 gpu::kp_gpu_films_and_launches_past_t_stop gpu::kp_gpu_clamp_drains_and_clamps_as_the_cpu mixed_gpu::mixed_gpu_matches_cpu
r racecheck-films 150 compute-sanitizer --tool racecheck --error-exitcode 1 $S/kp --include-ignored --exact gpu::kp_gpu_films_and_launches_past_t_stop
for p in f32 f64; do
  r flood-2048-$p 60 $S/hydrokern --tuning off --precision $p flood --nx 2048 --output /tmp/f2-$p
  r flood-2048-$p-main 80 $S/hydrokern-main --tuning off --precision $p flood --nx 2048 --output /tmp/f2m-$p
done
cat $OUT/r/gpu.txt $OUT/r/rc.txt
grep -h "^done" $OUT/r/flood*.log
grep -h "test result\|panicked\|ERROR SUMMARY\|RACECHECK SUMMARY\|shore lake" $OUT/r/*.log | head -40
