#!/usr/bin/env bash
# c83 (main c4aa50d): the streamed flux shape at 2048² and 1024² (dam break, clamp, to t = 2 s):
# does the 4096² choice (4x32 default, tuned 4x16) leave the GPU part empty at smaller sizes?
S=$(cd "$(dirname "$0")" && pwd)
mkdir -p $OUT/r
trap 'tar -czf $OUT/r.tgz -C $OUT r' EXIT
for n in 2048 1024; do for p in f32 f64; do for sh in 4x32 4x16 4x8 4x4 2x8 8x8; do
  echo "n=$n p=$p shape=$sh $($S/hydrokern --tuning off --precision $p dam-break --nx $n --t-end 2 --flux stream:$sh --output /tmp/o 2>&1 | grep -E '^done|held' | tr '\n' ' ')" >> $OUT/r/shapes.txt
done; done; done
