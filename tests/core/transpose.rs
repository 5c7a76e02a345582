//! Transpose: the CPU reference against its definition, every GPU variant against the CPU
//! reference on random shapes (1×N and N×1 included), dense and with rows a pitch apart,
//! outputs poisoned with NaN first.
//! A transpose only moves values, so the comparison is exact.

use crate::common::{Tolerance, cases, gpu};
use hydrokern::GpuReal;
use hydrokern::runtime::DevicePointers;
use hydrokern::transpose::{Variant, cpu, gpu::Transposer};
use proptest::prelude::*;

/// A transpose moves values: the same bits.
const MOVE: Tolerance = Tolerance::BITS;

#[test]
fn cpu_transpose_is_the_definition() {
    let (rows, cols) = (3, 5);
    let input: Vec<f64> = (0..15).map(|v| v as f64).collect();
    let mut out = vec![0.0; 15];
    cpu::transpose(rows, cols, &input, &mut out).unwrap();
    for i in 0..rows {
        for j in 0..cols {
            assert_eq!(out[j * rows + i], input[i * cols + j]);
        }
    }
    let mut back = vec![0.0; 15];
    cpu::transpose(cols, rows, &out, &mut back).unwrap();
    assert_eq!(back, input);
    // Pitched: the input's rows 7 apart, the output's 4; what lies between rows stays.
    let input: Vec<f64> = (0..2 * 7 + cols).map(|v| v as f64).collect();
    let mut out = vec![-1.0; (cols - 1) * 4 + rows];
    cpu::transpose_pitched(rows, cols, (&input, 7), (&mut out, 4)).unwrap();
    for (g, &o) in out.iter().enumerate() {
        let (j, i) = (g / 4, g % 4);
        assert_eq!(o, if i < rows { input[i * 7 + j] } else { -1.0 }, "out[{g}]");
    }
}

#[test]
fn bad_shapes_are_refused() {
    let mut out = vec![0.0f32; 6];
    assert!(cpu::transpose(0, 6, &[], &mut out[..0]).unwrap_err().to_string().contains("at least 1"));
    let e = cpu::transpose(2, 3, &[0.0f32; 5], &mut out).unwrap_err().to_string();
    assert!(e.contains("input has 5 values"), "{e}");
    let e = cpu::transpose_pitched(2, 3, (&[0.0f32; 6], 2), (&mut out, 2)).unwrap_err().to_string();
    assert!(e.contains("pitches 2 (input) and 2 (output) must be at least 3 and 2"), "{e}");
    let e = cpu::transpose_pitched(2, 3, (&[0.0f32; 6], 4), (&mut out, 2)).unwrap_err().to_string();
    assert!(e.contains("too few"), "{e}");
}

fn check<T: GpuReal>(rows: usize, cols: usize, variant: Variant) -> Result<(), TestCaseError> {
    let g = gpu();
    let input: Vec<T> = (0..rows * cols).map(|v| T::from_f64(v as f64 * 0.5 - 3.0)).collect();
    let mut want = vec![T::ZERO; rows * cols];
    cpu::transpose(rows, cols, &input, &mut want).unwrap();
    let din = g.upload(&input).unwrap();
    let mut dout = g.alloc::<T>(rows * cols).unwrap();
    hydrokern::foundation::gpu::fill(&g, &mut dout, crate::common::poison::<T>()).unwrap();
    Transposer::<T>::new(&g).unwrap().run(variant, rows, cols, &din, &mut dout).unwrap();
    let got = g.download(&dout).unwrap();
    MOVE.check(&format!("{} {rows}×{cols}: out", variant.name()), &got, &want)?;
    Ok(())
}

/// The pitched form: rows of the input `pad_in` values longer than `cols`, of the output
/// `pad_out` longer than `rows`, the output poisoned; what lies between its rows stays poison.
fn check_pitched<T: GpuReal>(
    rows: usize,
    cols: usize,
    (pad_in, pad_out): (usize, usize),
    variant: Variant,
) -> Result<(), TestCaseError> {
    let g = gpu();
    let (pin, pout) = (cols + pad_in, rows + pad_out);
    let input: Vec<T> = (0..(rows - 1) * pin + cols).map(|v| T::from_f64(v as f64 * 0.25 - 7.0)).collect();
    let mut want = vec![crate::common::poison::<T>(); (cols - 1) * pout + rows];
    cpu::transpose_pitched(rows, cols, (&input, pin), (&mut want, pout)).unwrap();
    let din = g.upload(&input).unwrap();
    let mut dout = g.alloc::<T>(want.len()).unwrap();
    hydrokern::foundation::gpu::fill(&g, &mut dout, crate::common::poison::<T>()).unwrap();
    // SAFETY: the buffers hold the pitched extents the launch names, and are distinct.
    unsafe {
        Transposer::<T>::new(&g).unwrap().launch(variant, rows, cols, (din.ptr(), pin), (dout.ptr_mut(), pout)).unwrap()
    };
    let got = g.download(&dout).unwrap();
    MOVE.check(&format!("{} {rows}×{cols} pitches {pin}, {pout}: out", variant.name()), &got, &want)?;
    Ok(())
}

fn side() -> impl Strategy<Value = usize> {
    prop_oneof![
        Just(1usize),
        prop::sample::select(vec![2usize, 7, 8, 31, 32, 33, 63, 64, 65, 97, 255, 1000]),
        1usize..400
    ]
}

proptest! {
    #![proptest_config(crate::common::config(cases(48), file!()))]
    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn transpose_gpu_matches_cpu(rows in side(), cols in side(), variant in prop::sample::select(Variant::ALL.to_vec())) {
        check::<f32>(rows, cols, variant)?;
        check::<f64>(rows, cols, variant)?;
    }

    #[test]
    #[cfg_attr(not(gpu_tests), ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)")]
    fn pitched_transpose_gpu_matches_cpu(
        rows in side(),
        cols in side(),
        pads in (0usize..40, 0usize..40),
        variant in prop::sample::select(Variant::ALL.to_vec()),
    ) {
        check_pitched::<f32>(rows, cols, pads, variant)?;
        check_pitched::<f64>(rows, cols, pads, variant)?;
    }
}

/// Long thin shapes, 1×N and N×1, and a non-square multi-tile one, every variant.
#[test]
#[cfg_attr(
    not(gpu_tests),
    ignore = "needs a GPU (none when this was built; run with --include-ignored on a GPU machine)"
)]
fn thin_and_rectangular_shapes() {
    for (rows, cols) in [(1, 5000), (5000, 1), (1, 1), (33, 4097), (1025, 65)] {
        for v in Variant::ALL {
            check::<f32>(rows, cols, v).unwrap();
            check::<f64>(rows, cols, v).unwrap();
        }
    }
}
