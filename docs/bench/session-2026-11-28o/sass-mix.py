"""Sum ncu's per-instruction counts of the streamed flux kernel by opcode (c104).

Run in docs/bench/session-2026-11-28o/c104/: reads sass-{before,now}-{f32,f64}.csv.gz (ncu
`--page source --print-source sass --csv` of one launch on the 4096² dam break) and prints, per
opcode, the warp instructions executed per warp and loop iteration (147 strips × 128 bands of
32 rows, 34 iterations each) and its share of the stall samples, before → now.
"""
import csv, gzip, collections
def load(fn):
    rows = list(csv.reader(gzip.open(fn, 'rt')))
    hdr = rows[1]; i_src = hdr.index("Source"); i_ex = hdr.index("Instructions Executed"); i_st = hdr.index("Warp Stall Sampling (All Samples)")
    ops = collections.Counter(); stalls = collections.Counter(); total = 0; n = 0; smp = 0
    for r in rows[2:]:
        if len(r) <= i_ex: continue
        src = r[i_src].strip(); ex = int(r[i_ex] or 0)
        op = src.split()[0] if src else "?"
        if op.startswith("@"): op = src.split()[1]
        op = op.split(".")[0]
        ops[op] += ex; total += ex; n += 1
        stalls[op] += int(r[i_st] or 0); smp += int(r[i_st] or 0)
    return ops, total, stalls, smp
# warps x rows: 4096 cols / 28 = 147 strips; rows per warp 32 -> 4096/32 = 128 bands; each warp walks rows+2 = 34 iterations
warps = 147 * 128
res = {}
for name in ["before-f32", "now-f32", "before-f64", "now-f64"]:
    res[name] = load(f"sass-{name}.csv.gz")
for p in ["f32", "f64"]:
    b, n = res["before-"+p], res["now-"+p]
    print(f"== {p}: total warp instr {b[1]/1e6:.1f}M -> {n[1]/1e6:.1f}M; per warp-row (34 iterations) {b[1]/warps/34:.0f} -> {n[1]/warps/34:.0f}")
    keys = sorted(set(b[0]) | set(n[0]), key=lambda k: -(n[0][k]))
    for k in keys[:22]:
        print(f"  {k:8s} {b[0][k]/warps/34:7.1f} -> {n[0][k]/warps/34:7.1f}   stall% {100*b[2][k]/max(b[3],1):5.1f} -> {100*n[2][k]/max(n[3],1):5.1f}")
