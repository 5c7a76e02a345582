//! What each kernel executes and moves per cell, measured with Nsight Compute
//! (`scripts/profile-counts`) and embedded here, so that a benchmark row can show its distance
//! to the issue-rate floor beside its distance to the copy: executed warp and thread
//! instructions and DRAM bytes of one launch over the interior cells of the measured size. A
//! measured entry holds for the PTX it was measured on; a kernel whose PTX has changed since
//! is reported as stale and not counted.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// One kernel's counts per interior cell of the measured problem.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
pub struct KernelCounts {
    /// Warp instructions issued (`smsp__inst_executed.sum`): what the issue rate bounds.
    pub warp_inst: f64,
    /// Thread instructions executed (`smsp__thread_inst_executed.sum`).
    pub thread_inst: f64,
    /// DRAM bytes read and written (`dram__bytes.sum`), caches flushed before the launch.
    pub dram_bytes: f64,
}

/// A measured entry: its PTX's hash ([`entry_hash`]) and its counts.
#[derive(Debug, Deserialize)]
struct Entry {
    ptx: String,
    #[serde(flatten)]
    counts: KernelCounts,
}

/// One module's table (`counts-<arch>.json`).
#[derive(Debug, Deserialize)]
pub struct Table {
    /// The GPU, date, revision and command of the measurement.
    pub measured: String,
    kernels: BTreeMap<String, Entry>,
}

/// The embedded tables, one per PTX target that has been measured.
const TABLES: [(&str, &str); 1] = [("sm_90", include_str!("counts-sm_90.json"))];

/// The table of the module `arch`, if one was measured.
pub fn table(arch: &str) -> Option<&'static Table> {
    static PARSED: OnceLock<Vec<(&'static str, Table)>> = OnceLock::new();
    let parsed = PARSED.get_or_init(|| {
        TABLES
            .iter()
            .map(|(a, text)| (*a, serde_json::from_str(text).expect("an embedded counts table is valid JSON")))
            .collect()
    });
    parsed.iter().find(|(a, _)| *a == arch).map(|(_, t)| t)
}

/// FNV-1a (64 bits) of an entry point's PTX text, from its `.visible .entry` line to its closing
/// brace, with the function's number in the module left out of its labels (`$L__BB12_3` and
/// `__local_depot12` hash as `$L__BB_3` and `__local_depot`), so that a function added to or
/// removed from the module before it leaves its hash alone: the same text and hash
/// `scripts/profile-counts` records.
pub fn entry_hash(ptx: &str, name: &str) -> Option<String> {
    let start = ptx.find(&format!(".visible .entry {name}("))?;
    let body = &ptx[start..];
    let end = body.find("\n}\n").map(|e| e + 2)?;
    let h =
        numberless(&body[..end]).fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    Some(format!("{h:016x}"))
}

/// The bytes of `text` without the digits that follow `$L__BB` and `__local_depot` (the
/// function's number in the module).
fn numberless(text: &str) -> impl Iterator<Item = u8> + '_ {
    const MARKS: [&[u8]; 2] = [b"$L__BB", b"__local_depot"];
    let bytes = text.as_bytes();
    let mut skip_digits = false;
    bytes.iter().enumerate().filter_map(move |(i, &b)| {
        if skip_digits && b.is_ascii_digit() {
            return None;
        }
        skip_digits = MARKS.iter().any(|m| bytes[..=i].ends_with(m));
        Some(b)
    })
}

/// What a sequence of launches adds up to, or why it cannot be counted.
#[derive(Clone, Debug, PartialEq)]
pub enum Tally {
    Counted(KernelCounts),
    /// A kernel with no entry in the table.
    Unmeasured(String),
    /// A kernel whose PTX differs from the one measured.
    Stale(String),
}

impl Table {
    /// The counts of `launches` (kernel names, in any order) in the module whose text is `ptx`.
    pub fn tally(&self, ptx: &str, launches: &[String]) -> Tally {
        let mut sum = KernelCounts { warp_inst: 0.0, thread_inst: 0.0, dram_bytes: 0.0 };
        for name in launches {
            let Some(e) = self.kernels.get(name) else { return Tally::Unmeasured(name.clone()) };
            if entry_hash(ptx, name).as_deref() != Some(e.ptx.as_str()) {
                return Tally::Stale(name.clone());
            }
            sum.warp_inst += e.counts.warp_inst;
            sum.thread_inst += e.counts.thread_inst;
            sum.dram_bytes += e.counts.dram_bytes;
        }
        Tally::Counted(sum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str =
        "//\n.visible .entry a_f32(\n\t.param .u64 p\n)\n{\n\tret;\n}\n\n.visible .entry b_f32(\n)\n{\n\tret;\n}\n";

    fn table() -> Table {
        let a = entry_hash(PTX, "a_f32").unwrap();
        let text = format!(
            r#"{{"measured": "test", "kernels": {{
                "a_f32": {{"ptx": "{a}", "warp_inst": 2.0, "thread_inst": 60.0, "dram_bytes": 8.0}},
                "b_f32": {{"ptx": "0000000000000000", "warp_inst": 1.0, "thread_inst": 30.0, "dram_bytes": 4.0}}
            }}}}"#
        );
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn launches_add_up_when_every_kernel_is_measured_on_its_current_ptx() {
        let t = table();
        let two = t.tally(PTX, &["a_f32".into(), "a_f32".into()]);
        assert_eq!(two, Tally::Counted(KernelCounts { warp_inst: 4.0, thread_inst: 120.0, dram_bytes: 16.0 }));
        assert_eq!(t.tally(PTX, &["a_f32".into(), "b_f32".into()]), Tally::Stale("b_f32".into()));
        assert_eq!(t.tally(PTX, &["c_f32".into()]), Tally::Unmeasured("c_f32".into()));
        // An edit of the entry's text makes its entry stale.
        let edited = PTX.replace("\tret;\n}\n\n.visible .entry b", "\tnop;\n\tret;\n}\n\n.visible .entry b");
        assert_eq!(t.tally(&edited, &["a_f32".into()]), Tally::Stale("a_f32".into()));
    }

    #[test]
    fn the_hash_covers_one_entry_from_its_header_to_its_closing_brace() {
        assert_ne!(entry_hash(PTX, "a_f32"), entry_hash(PTX, "b_f32"));
        assert_eq!(
            entry_hash(PTX, "a_f32"),
            entry_hash(
                &PTX.replace(
                    "ret;\n}\n\n.visible .entry b_f32(\n)",
                    "ret;\n}\n\n.visible .entry b_f32(\n\t.param .u32 q\n)"
                ),
                "a_f32"
            )
        );
        assert_eq!(entry_hash(PTX, "c_f32"), None);
    }

    #[test]
    fn the_hash_leaves_out_the_functions_number_in_its_labels() {
        let numbered = |n: u32, to: u32| {
            format!(
                ".visible .entry a_f32(\n)\n{{\n\t.local .align 8 .b8 \t__local_depot{n}[8];\n\t@%p1 bra \t$L__BB{n}_{to};\n$L__BB{n}_{to}:\n\tret;\n}}\n"
            )
        };
        assert_eq!(entry_hash(&numbered(7, 2), "a_f32"), entry_hash(&numbered(291, 2), "a_f32"));
        // The block's own number within the function still counts.
        assert_ne!(entry_hash(&numbered(7, 2), "a_f32"), entry_hash(&numbered(7, 3), "a_f32"));
    }

    #[test]
    fn every_embedded_table_parses_and_names_entries_of_its_module() {
        for (arch, _) in TABLES {
            let t = super::table(arch).unwrap();
            let module = crate::ptx::MODULES.iter().find(|m| m.arch == arch).unwrap();
            let names = crate::ptx::entry_points(module.source);
            for k in t.kernels.keys() {
                assert!(names.contains(k), "{arch}: the counts table names {k}, which the module does not define");
            }
        }
    }
}
