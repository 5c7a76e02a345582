//! The embedded PTX modules and the entry points they must define.

mod split;

pub use split::Items;
use std::sync::OnceLock;

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

impl PtxModule {
    /// The module cut into its items, read once per process ([`Items::of`]).
    pub fn items(&self) -> Result<&'static Items<'static>, String> {
        static ITEMS: [OnceLock<Result<Items<'static>, String>>; MODULES.len()] =
            [const { OnceLock::new() }; MODULES.len()];
        let k = MODULES.iter().position(|m| m.arch == self.arch).ok_or("not an embedded module")?;
        ITEMS[k]
            .get_or_init(|| Items::of(MODULES[k].source))
            .as_ref()
            .map_err(|e| format!("kernels_{}.ptx: {e}", self.arch))
    }
}

/// The newest module a device of compute capability `cc` can run.
pub fn module_for(cc: (i32, i32)) -> Option<&'static PtxModule> {
    MODULES.iter().find(|m| cc >= m.min_cc)
}

/// Every entry point the modules must contain: `<stem>_f32` and `<stem>_f64` for each stem the
/// kernel crate declares ([`kernels::ENTRY_POINTS`]).
pub fn expected_entry_points() -> Vec<String> {
    kernels::ENTRY_POINTS
        .iter()
        .flat_map(|(_, stems)| stems.iter())
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
