//! A slab's ghost rows travelling while its flux kernel computes the rest (docs/ranks.md, "The
//! exchange beside the interior"): the exchange of the state's ghost rows at the cuts goes on
//! the stream beside the GPU's (`DeviceLink::exchange_aside`), followed there by the flux
//! kernel's bands that read a ghost row, while the GPU's stream computes the inner bands; the
//! GPU's stream then waits for both. Each band is computed by the same code wherever it runs,
//! so the results are those of the exchange and the whole launch in turn, bit for bit.

use crate::field::DeviceField2;
use crate::ranks::Halo;
use crate::runtime::Gpu;
use crate::{GpuReal, Result};
use cudarc::driver::CudaStream;
use kernels::Bands;
use std::sync::Arc;

/// Rows a cell of the flux kernel reads on each side of it.
const REACH: u32 = 2;

/// The streamed flux kernel over a grid of `ny` rows in bands of `rows`, each launch by
/// `launch` (its bands, the stream to queue it on). With `aside` (the state whose ghost rows at
/// the cuts are still to come, on a slab whose ranks overlap their exchanges through `ranks`:
/// its halo and GPU) and inner bands to compute, as the module says; else every band on
/// `stream` (after the ghost rows, taken there first where they are still to come).
pub(super) fn stream_bands<T: GpuReal>(
    ranks: Option<(&Halo, &Gpu)>,
    stream: &Arc<CudaStream>,
    aside: Option<&mut [DeviceField2<T>; 3]>,
    (ny, rows): (u32, u32),
    launch: impl Fn(Bands, &CudaStream) -> Result<()>,
) -> Result<()> {
    let (Some(state), Some((halo, gpu))) = (aside, ranks) else {
        return launch(Bands::all(ny, rows), stream);
    };
    let mut fields = state.each_mut().map(|f| &mut **f);
    halo.exchange_beside_bands(gpu, &mut fields, (ny, rows, REACH), launch)
}
