//! The embedded PTX modules and the kernel names every solver expects in them.

/// One embedded module.
pub struct PtxModule {
    /// `-Ctarget-cpu` it was built for.
    pub arch: &'static str,
    /// Compute capability (major, minor) it needs at least.
    pub min_cc: (i32, i32),
    pub source: &'static str,
}

/// Modules, newest target first.
pub const MODULES: [PtxModule; 2] = [
    PtxModule { arch: "sm_90", min_cc: (9, 0), source: include_str!(concat!(env!("OUT_DIR"), "/kernels_sm_90.ptx")) },
    PtxModule { arch: "sm_80", min_cc: (8, 0), source: include_str!(concat!(env!("OUT_DIR"), "/kernels_sm_80.ptx")) },
];

/// The newest module a device of compute capability `cc` can run.
pub fn module_for(cc: (i32, i32)) -> Option<&'static PtxModule> {
    MODULES.iter().find(|m| cc >= m.min_cc)
}

/// Every generic kernel stem, per solver; each is stamped as `<stem>_f32` and `<stem>_f64`.
pub const KERNEL_STEMS: &[&[&str]] = &[
    crate::foundation::KERNELS,
    crate::sediment::KERNELS,
    crate::fd3d::KERNELS,
    crate::kp::KERNELS,
    crate::tridiag::KERNELS,
    crate::transpose::KERNELS,
];

/// Every entry point the modules must contain.
pub fn expected_entry_points() -> Vec<String> {
    KERNEL_STEMS
        .iter()
        .flat_map(|stems| stems.iter())
        .flat_map(|stem| [format!("{stem}_f32"), format!("{stem}_f64")])
        .collect()
}

/// The entry points a PTX module defines (`.entry name(`).
pub fn entry_points(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|l| l.trim().strip_prefix(".visible .entry "))
        .map(|rest| rest.trim_end_matches('(').trim().to_string())
        .collect()
}
