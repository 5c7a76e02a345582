//! The rain grid and the soils of a run laid out as the kernels read them
//! (`kernels::forcing::cell_gain`): what each solver's forcing holds for its pass over every
//! cell, whatever else it holds (kp's inflows and levels, the ADI's host-side span).

use super::Forcing;
use crate::runtime::{DeviceBuffer, DevicePointers, Gpu};
use crate::{GpuReal, Real, Result};
use kernels::forcing::{CellForcing, Infiltration, NO_SOIL};
use std::sync::Arc;

/// Gridded rain and soils as arrays.
#[derive(Clone, Debug, PartialEq)]
pub struct CellArrays {
    /// Gridded rain (`kernels::forcing::held_integral`): the frames' times and the end (empty
    /// without), the frames back to back (`frame_stride` rain cells each, m/s) and each interior
    /// cell's rain cell.
    pub frame_times: Vec<f64>,
    pub frames: Arc<[f32]>,
    pub frame_stride: u32,
    pub rain_cells: Arc<[u32]>,
    /// The soils' model (`NO_SOIL` without), their parameters (three a soil, f64:
    /// [`Infiltration::p`]) and each interior cell's soil (empty: the first under every cell).
    pub soil_model: u32,
    pub soils: Vec<f64>,
    pub soil_cells: Arc<[u32]>,
}

impl CellArrays {
    /// The rain grid and soils of `f` (empty arrays where it has none).
    pub fn of(f: &Forcing) -> CellArrays {
        let grid = f.rain_grid.as_ref();
        let mut soils = Vec::new();
        for s in f.soil.iter().flat_map(|s| &s.soils) {
            soils.extend_from_slice(&s.infiltration::<f64>().p);
        }
        CellArrays {
            frame_times: grid.map_or_else(Vec::new, |g| g.times.clone()),
            frames: grid.map_or_else(|| Arc::from([]), |g| g.values.clone()),
            frame_stride: grid.map_or(0, |g| g.cells as u32),
            rain_cells: grid.map_or_else(|| Arc::from([]), |g| g.index.clone()),
            soil_model: f.soil.as_ref().map_or(NO_SOIL, |s| s.soils[0].infiltration::<f64>().model),
            soils,
            soil_cells: f.soil.as_ref().map_or_else(|| Arc::from([]), |s| s.cells.clone()),
        }
    }

    /// Number of gridded rain frames (0 without).
    pub fn frames(&self) -> usize {
        self.frame_times.len().saturating_sub(1)
    }

    /// Whether the cells have a soil.
    pub fn has_soil(&self) -> bool {
        self.soil_model != NO_SOIL
    }

    /// The soils' parameters in `T` (three a soil).
    pub fn soils_in<T: Real>(&self) -> Vec<T> {
        self.soils.iter().map(|&v| T::from_f64(v)).collect()
    }

    /// What every cell receives, in `T`, the uniform rain at index `rain` of the solver's
    /// series (or `NO_RAIN`): the soil is the first (the only one unless `soil_cells` says each
    /// cell's).
    pub fn cell_forcing<T: Real>(&self, rain: u32) -> CellForcing<T> {
        let soil = match self.soils.get(..3) {
            Some(p) if self.has_soil() => {
                Infiltration { model: self.soil_model, p: [T::from_f64(p[0]), T::from_f64(p[1]), T::from_f64(p[2])] }
            }
            _ => Infiltration::NONE,
        };
        CellForcing { rain, frames: self.frames() as u32, stride: self.frame_stride, soil }
    }

    /// Bytes the arrays take on a device in precision `T`.
    pub fn bytes<T>(&self) -> usize {
        8 * self.frame_times.len()
            + 4 * (self.frames.len() + self.rain_cells.len() + self.soil_cells.len())
            + std::mem::size_of::<T>() * self.soils.len()
    }
}

/// [`CellArrays`] on a device, uploaded once; the soils' parameters in `T`.
pub struct DeviceCellArrays<T: GpuReal> {
    pub frame_times: DeviceBuffer<f64>,
    pub frames: DeviceBuffer<f32>,
    pub rain_cells: DeviceBuffer<u32>,
    pub soils: DeviceBuffer<T>,
    /// Each cell's soil, with soils per cell.
    soil_cells: Option<DeviceBuffer<u32>>,
}

impl<T: GpuReal> DeviceCellArrays<T> {
    pub fn upload(gpu: &Gpu, c: &CellArrays) -> Result<DeviceCellArrays<T>> {
        Ok(DeviceCellArrays {
            frame_times: gpu.upload_or_zero(&c.frame_times)?,
            frames: gpu.upload_or_zero(&c.frames)?,
            rain_cells: gpu.upload_or_zero(&c.rain_cells)?,
            soils: gpu.upload_or_zero(&c.soils_in::<T>())?,
            soil_cells: (!c.soil_cells.is_empty()).then(|| gpu.upload(&c.soil_cells)).transpose()?,
        })
    }

    /// Each cell's soil entry, or null with one soil under every cell (as the kernels take it).
    pub fn soil_cells(&self) -> *const u32 {
        self.soil_cells.as_ref().map_or(std::ptr::null(), |c| c.ptr())
    }
}
