//! CPU emulations of the partition and twisted-Thomas kernels' algebra against Thomas.

use super::GPU_PER_LEVEL;
use super::input::broken;
use crate::common::magnitude;
use hydrokern::tridiag::{Batch, Layout, Shape, cpu};
use hydrokern::{GpuReal, Real};
use kernels::tridiag::{
    Eq, Row, chunk_interior, chunk_len, chunk_reduce, normalize, partition_chunks, partition_pitch, partition_slot,
    partition_span, pcr_row, pivot_ok, reduced_len, reduced_row, reduced_slot, thomas_row, twist,
};
use std::cell::RefCell;

/// One system's equations as the kernels load them (`a_0 = c_{n−1} = 0`).
fn equations<T: Real>(b: &Batch<T>, k: usize) -> Vec<Eq<T>> {
    let (s, n) = (b.shape, b.shape.n);
    (0..n)
        .map(|i| {
            let g = s.at(k, i);
            Eq {
                a: if i == 0 { T::ZERO } else { b.a[g] },
                b: b.b[g],
                c: if i + 1 == n { T::ZERO } else { b.c[g] },
                d: b.d[g],
            }
        })
        .collect()
}

/// `tridiag_partition` on a whole batch, block by block (g systems each) and phase by phase,
/// in its shared-memory layout and with its staging map: stage normalised rows (element e of
/// a block → (system, row), rows fastest in the contiguous layout and systems fastest in the
/// interleaved one), reduce every chunk, PCR on each reduced system (all reads of a step
/// before its writes, as between the kernel's barriers), fill in the chunks, write x with the
/// staging map. Returns x (the batch's layout) and whether every pivot was usable.
fn partition_emulated<T: Real>(host: &Batch<T>, lg: u32, g: u32) -> (Vec<T>, bool) {
    let shape = host.shape;
    let (n, batch) = (shape.n as u32, shape.batch as u32);
    let chunks = partition_chunks(n, lg);
    let pitch = partition_pitch(lg);
    let arr = (chunks * pitch) as usize;
    let span = partition_span(n, lg) as usize;
    assert!(3 * arr <= span && span % 2 == 1);
    let nt = chunks * g; // threads of a block
    let mut x = vec![T::NAN; shape.span()];
    let mut ok = true;
    for k0 in (0..batch).step_by(g as usize) {
        let gs = g.min(batch - k0);
        let total = n * gs;
        let split = |e: u32| match shape.layout {
            _ if gs == 1 => (0, e),
            Layout::Interleaved | Layout::Columns { .. } => (e % gs, e / gs),
            Layout::Contiguous | Layout::Rows { .. } => (e / n, e % n),
        };
        let sm = RefCell::new(vec![T::NAN; g as usize * span]);
        let get = |o: usize| {
            let s = sm.borrow();
            Row { a: s[o], c: s[o + arr], d: s[o + 2 * arr] }
        };
        let put = |o: usize, r: Row<T>| {
            let mut s = sm.borrow_mut();
            (s[o], s[o + arr], s[o + 2 * arr]) = (r.a, r.c, r.d);
        };
        for lin in 0..nt {
            for e in (lin..total).step_by(nt as usize) {
                let (s, i) = split(e);
                let q = equations(host, (k0 + s) as usize)[i as usize];
                ok &= pivot_ok(q.b);
                put(s as usize * span + partition_slot(n, i, lg) as usize, normalize(q));
            }
        }
        for s in 0..gs as usize {
            let base = s * span;
            for j in 0..chunks {
                let o = base + (j * pitch) as usize;
                ok &= chunk_reduce(chunk_len(n, lg, j), |r| get(o + r as usize), |r, v| put(o + r as usize, v))
                    == u32::MAX;
            }
            let m = reduced_len(n, lg);
            assert!(m <= 2 * chunks && m >= 1);
            let rslot = |q: u32| base + reduced_slot(n, lg, q) as usize;
            let mut t = 1;
            while t < m {
                let new: Vec<Row<T>> = (0..m)
                    .map(|q| {
                        let l = if q >= t { get(rslot(q - t)) } else { Row::ZERO };
                        let r = if q + t < m { get(rslot(q + t)) } else { Row::ZERO };
                        let (v, p) = pcr_row(l, get(rslot(q)), r);
                        ok &= pivot_ok(p);
                        v
                    })
                    .collect();
                for (q, v) in new.into_iter().enumerate() {
                    put(rslot(q as u32), v);
                }
                t <<= 1;
            }
            for j in 0..chunks {
                let (o, len) = (base + (j * pitch) as usize, chunk_len(n, lg, j) as usize);
                let xd = |r: usize| sm.borrow()[2 * arr + o + r];
                let (xf, xl) = (xd(0), xd(len - 1));
                for r in 1..len.saturating_sub(1) {
                    let v = chunk_interior(get(o + r), xf, xl);
                    sm.borrow_mut()[2 * arr + o + r] = v;
                }
            }
        }
        for e in 0..total {
            let (s, i) = split(e);
            x[shape.at((k0 + s) as usize, i as usize)] =
                sm.borrow()[s as usize * span + 2 * arr + partition_slot(n, i, lg) as usize];
        }
    }
    (x, ok)
}

/// `tridiag_thomas_twisted` for one system: each side runs Thomas in its local order (the
/// lower side with a and c swapped), the twist joins them, each side back-substitutes.
fn twisted_emulated<T: Real>(e: &[Eq<T>]) -> (Vec<T>, bool) {
    let n = e.len();
    let half = n / 2;
    let mut x = vec![T::NAN; n];
    let mut ok = true;
    // (rows in local order, c' per local row, d' per local row) per side.
    let sides: Vec<(Vec<usize>, Vec<T>, Vec<T>)> = [(0..half).collect::<Vec<_>>(), (half..n).rev().collect()]
        .into_iter()
        .enumerate()
        .map(|(side, rows)| {
            let (mut cs, mut ds) = (vec![], vec![]);
            let (mut cp, mut dp) = (T::ZERO, T::ZERO);
            for &i in &rows {
                let q = if side == 0 { e[i] } else { Eq { a: e[i].c, b: e[i].b, c: e[i].a, d: e[i].d } };
                let (c1, d1, p) = thomas_row(q, cp, dp);
                ok &= pivot_ok(p);
                (cp, dp) = (c1, d1);
                cs.push(c1);
                ds.push(d1);
            }
            (rows, cs, ds)
        })
        .collect();
    for me in 0..2 {
        let (rows, cs, ds) = &sides[me];
        let Some(&last) = rows.last() else { continue };
        let other = &sides[1 - me];
        let (co, dq) = (other.1.last().copied().unwrap_or(T::ZERO), other.2.last().copied().unwrap_or(T::ZERO));
        let (mut xn, p) = twist(cs[rows.len() - 1], ds[rows.len() - 1], co, dq);
        ok &= pivot_ok(p);
        x[last] = xn;
        for r in (0..rows.len() - 1).rev() {
            xn = ds[r] - cs[r] * xn;
            x[rows[r]] = xn;
        }
    }
    (x, ok)
}

/// An emulated batch solve against CPU Thomas, with the GPU tolerance.
fn check_emulated<T: GpuReal>(shape: Shape, seed: u64, solve: impl Fn(&Batch<T>) -> (Vec<T>, bool), what: &str) {
    let host = Batch::random(shape, seed, 2.0).to::<T>();
    let mut want = vec![T::ZERO; shape.len()];
    cpu::solve(shape, &host.a, &host.b, &host.c, &host.d, &mut want).unwrap();
    let (got, ok) = solve(&host);
    assert!(ok, "{what} {} {shape:?}: a pivot failed", T::NAME);
    let tol = GPU_PER_LEVEL.times((2.0 * shape.n as f64).log2().max(1.0)).scaled(magnitude(&want));
    tol.check(&format!("{what} {shape:?}: x against Thomas"), &got, &want).unwrap();
}

/// Twisted Thomas system by system.
fn twisted_batch<T: Real>(host: &Batch<T>) -> (Vec<T>, bool) {
    let shape = host.shape;
    let mut x = vec![T::NAN; shape.len()];
    let mut ok = true;
    for k in 0..shape.batch {
        let (xk, okk) = twisted_emulated(&equations(host, k));
        ok &= okk;
        for (i, v) in xk.into_iter().enumerate() {
            x[shape.at(k, i)] = v;
        }
    }
    (x, ok)
}

#[test]
fn partition_algebra_matches_thomas_on_the_cpu() {
    let mut sizes: Vec<usize> = (1..=70).collect();
    sizes.extend([95, 96, 97, 127, 128, 129, 255, 256, 257, 509, 1021, 1024, 2049, 4093, 4096, 4097]);
    for lg in 1..=5 {
        for &n in &sizes {
            let shape = Shape::new(n, 1, Layout::Contiguous);
            let what = format!("partition lg {lg}");
            check_emulated::<f64>(shape, n as u64 * 7 + lg as u64, |b| partition_emulated(b, lg, 1), &what);
            check_emulated::<f32>(shape, n as u64 * 7 + lg as u64, |b| partition_emulated(b, lg, 1), &what);
        }
    }
    // Several systems per block, a last block with fewer, both staging maps.
    for layout in Layout::ALL {
        for (n, batch, lg, g) in
            [(1, 5, 2, 4), (2, 7, 2, 3), (13, 9, 2, 8), (40, 11, 3, 4), (100, 6, 4, 5), (257, 5, 4, 2)]
        {
            let shape = Shape::new(n, batch, layout);
            let what = format!("partition lg {lg} g {g}");
            check_emulated::<f64>(shape, 3, |b| partition_emulated(b, lg, g), &what);
            check_emulated::<f32>(shape, 3, |b| partition_emulated(b, lg, g), &what);
        }
    }
}

/// The partition layout: chunks of 2^lg rows, a last row alone joining the chunk before it;
/// every row has its own slot, chunk j's rows fill its pitch from its start, in order.
#[test]
fn partition_chunks_cover_every_row_once() {
    for lg in 1..=6 {
        for n in 1..=300u32 {
            let (chunks, pitch) = (partition_chunks(n, lg), partition_pitch(lg));
            let lens: Vec<u32> = (0..chunks).map(|j| chunk_len(n, lg, j)).collect();
            assert_eq!(lens.iter().sum::<u32>(), n, "n {n} lg {lg}");
            assert!(lens.iter().all(|&l| l >= 1 && l <= pitch), "n {n} lg {lg}: {lens:?}");
            assert!(chunks == 1 || lens[chunks as usize - 1] >= 2, "n {n} lg {lg}: a last chunk of one row");
            let mut i = 0;
            for (j, &len) in lens.iter().enumerate() {
                for r in 0..len {
                    assert_eq!(partition_slot(n, i, lg), j as u32 * pitch + r, "n {n} lg {lg} row {i}");
                    i += 1;
                }
            }
            assert!(3 * chunks * pitch <= partition_span(n, lg));
            // Reduced equation q: chunk q/2's first row (q even) or last (q odd).
            for q in 0..reduced_len(n, lg) {
                let row = reduced_row(n, lg, q);
                let (j, first) = ((q / 2) as usize, lens[..(q / 2) as usize].iter().sum::<u32>());
                assert_eq!(row, if q % 2 == 0 { first } else { first + lens[j] - 1 }, "n {n} lg {lg} q {q}");
                assert_eq!(reduced_slot(n, lg, q), partition_slot(n, row, lg), "n {n} lg {lg} q {q}");
            }
        }
    }
    // An ADI line of 2048 cells: 4097 unknowns in 256 chunks of 16, the last of 17.
    assert_eq!((partition_chunks(4097, 4), chunk_len(4097, 4, 255)), (256, 17));
}

#[test]
fn twisted_algebra_matches_thomas_on_the_cpu() {
    for n in (1..=70).chain([127, 128, 1000, 4097]) {
        for layout in Layout::ALL {
            let shape = Shape::new(n, 3, layout);
            check_emulated::<f64>(shape, n as u64, twisted_batch, "twisted");
            check_emulated::<f32>(shape, n as u64, twisted_batch, "twisted");
        }
    }
}

#[test]
fn partition_and_twisted_emulations_see_a_breakdown() {
    let shape = Shape::new(40, 1, Layout::Contiguous);
    for row in [0, 1, 15, 16, 21, 39] {
        let b = broken(shape, 0, row, true);
        assert!(!twisted_emulated(&equations(&b, 0)).1, "twisted, zero row {row}");
        for lg in 1..=5 {
            let (x, ok) = partition_emulated(&b, lg, 1);
            assert!(!ok || x.iter().any(|v| !v.is_finite()), "partition lg {lg}, zero row {row}");
        }
    }
}
