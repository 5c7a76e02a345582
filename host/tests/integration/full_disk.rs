//! A full disk: a run whose output directory lies on a small filesystem
//! that fills mid-run stops with one clear line and a non-zero exit, and leaves no file that
//! looks whole and is not: no temporary files, no truncated `.npy` or `.hkc` under its final
//! name, and a NetCDF file holding exactly its complete records.
//!
//! The small filesystem is a tmpfs mounted in a private mount namespace (`unshare -rm`: root in
//! a Linux container, or unprivileged user namespaces). It vanishes with the namespace, so the
//! harness copies what the run left on it out before leaving. Every case also runs on a tmpfs
//! big enough for the whole run, which proves the harness and gives the files to compare with.
//! Without `unshare` or tmpfs mounts the test fails, saying so: it is never skipped.

use crate::cmd::{bin, s, scratch};
use hydrokern::output::netcdf::Dataset;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A tmpfs that holds every run here whole.
const BIG_KIB: u64 = 16 * 1024;

/// What a run on a tmpfs left: its exit status, its output, and a copy of the tmpfs.
struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
    /// The run's output directory, as it was on the tmpfs.
    out: PathBuf,
    /// The scratch directory holding the mount point and the copy.
    root: PathBuf,
}

impl Drop for Ran {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// The harness: mount a tmpfs of `$3` KiB at `$1`, run the rest, copy the tmpfs to `$2`, and
/// write the run's exit status to `$2.rc` (its absence says the harness itself failed).
const SCRIPT: &str = r#"set -u
m=$1; keep=$2; size=$3; shift 3
mount -t tmpfs -o "size=${size}k" tmpfs "$m" || { echo "harness: cannot mount a tmpfs at $m" >&2; exit 90; }
"$@"
rc=$?
cp -a "$m/." "$keep/" || { echo "harness: cannot copy $m out" >&2; exit 91; }
echo "$rc" > "$keep.rc"
"#;

/// Run hydrokern with `args` and `--output` on a tmpfs of `kib` KiB.
fn on_tmpfs(tag: &str, kib: u64, args: &[&str]) -> Ran {
    let root = scratch(&format!("disk-{tag}"));
    let (mnt, keep) = (root.join("mnt"), root.join("keep"));
    std::fs::create_dir_all(&mnt).unwrap();
    std::fs::create_dir_all(&keep).unwrap();
    let out = mnt.join("out");
    let o = Command::new("unshare")
        .args(["-rm", "sh", "-c", SCRIPT, "sh", s(&mnt), s(&keep), &kib.to_string()])
        .arg(bin())
        .args(args)
        .args(["--output", s(&out)])
        .output()
        .unwrap_or_else(|e| panic!("cannot run unshare (util-linux) for the full-disk tests: {e}"));
    let (stdout, stderr) =
        (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned());
    let code = std::fs::read_to_string(root.join("keep.rc")).unwrap_or_else(|_| {
        panic!(
            "the full-disk harness failed (it needs `unshare -rm` and tmpfs mounts: root in a Linux \
             container, or user namespaces): status {}\n{stderr}",
            o.status
        )
    });
    Ran { code: code.trim().parse().unwrap(), stdout, stderr, out: keep.join("out"), root }
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

/// Standard error but the line saying which backend runs, which every run writes there.
fn besides_backend(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| !l.starts_with("backend: ")).collect()
}

/// The run's manifest: its status, and every file it lists is there.
fn status(r: &Ran) -> String {
    let m: serde_json::Value = serde_json::from_slice(&std::fs::read(r.out.join("hydrokern-run.json")).unwrap())
        .unwrap_or_else(|e| panic!("hydrokern-run.json: {e}"));
    for f in m["files"].as_array().unwrap() {
        let f = f.as_str().unwrap();
        assert!(r.out.join(f).exists(), "{f} is listed and missing");
    }
    m["status"].as_str().unwrap().to_string()
}

/// The whole run on a big tmpfs: it must succeed (so the harness works).
fn whole(tag: &str, args: &[&str]) -> Ran {
    let r = on_tmpfs(&format!("{tag}-big"), BIG_KIB, args);
    assert_eq!(r.code, 0, "{tag} on a big tmpfs failed:\n{}\n{}", r.stdout, r.stderr);
    assert!(besides_backend(&r.stderr).is_empty(), "{tag} on a big tmpfs: {}", r.stderr);
    assert_eq!(status(&r), "finished");
    r
}

/// The run on a tmpfs of `kib` KiB, which must fill after `at_least` snapshot lines: a clean
/// failure naming a file of the run and the full disk, and no temporary file left; with
/// `recorded`, the manifest says why the run stopped (the room of the failed write sufficed).
fn fills(tag: &str, kib: u64, args: &[&str], at_least: usize, recorded: bool) -> Ran {
    let r = on_tmpfs(&format!("{tag}-small"), kib, args);
    assert_ne!(r.code, 0, "{tag} on {kib} KiB succeeded:\n{}", r.stdout);
    let lines = besides_backend(&r.stderr);
    assert!(!r.stderr.contains("panicked") && !r.stderr.contains("backtrace"), "{tag}: {}", r.stderr);
    assert_eq!(lines.len(), 1, "{tag}: not one line:\n{}", r.stderr);
    let err = lines[0];
    assert!(err.starts_with("error: ") && err.contains("No space left on device"), "{tag}: {err}");
    assert!(err.contains("/mnt/out/"), "{tag}: names no file of the run: {err}");
    let snapshots = r.stdout.lines().filter(|l| l.contains("snapshot t = ")).count();
    assert!(snapshots >= at_least, "{tag}: the disk filled after {snapshots} snapshots, not mid-run:\n{}", r.stdout);
    let temporary: Vec<String> = names(&r.out).into_iter().filter(|n| n.contains(".tmp")).collect();
    assert!(temporary.is_empty(), "{tag}: temporary files left: {temporary:?}");
    let status = status(&r);
    if recorded {
        assert_eq!(status, format!("stopped: {}", &err["error: ".len()..]), "{tag}");
    }
    assert!(status == "running" || status.starts_with("stopped: "), "{tag}: {status}");
    r
}

fn dam_break(nx: &str, t_end: &str, snapshots: &str, formats: &str) -> Vec<String> {
    let mut a: Vec<String> =
        ["dam-break", "--backend", "cpu", "--precision", "f64", "--nx", nx, "--t-end", t_end, "--set"]
            .map(String::from)
            .into();
    a.push(format!("output.formats={formats}"));
    if !snapshots.is_empty() {
        a.extend(["--snapshots".into(), snapshots.into()]);
    }
    a
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// NPY snapshots (three fields of 64² f64, about 100 KiB a snapshot) on 400 KiB: the fourth
/// snapshot does not fit. Every `.npy` left is the whole run's, byte for byte.
#[test]
fn npy_snapshots_on_a_full_disk() {
    let args = dam_break("64", "0.5", "0.05,0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.45", "[\"npy\"]");
    let big = whole("npy", &strs(&args));
    let small = fills("npy", 400, &strs(&args), 2, true);
    let npy = |r: &Ran| names(&r.out).into_iter().filter(|n| n.ends_with(".npy")).collect::<Vec<_>>();
    let (all, left) = (npy(&big), npy(&small));
    assert_eq!(all.len(), 30, "{all:?}");
    assert!(!left.is_empty() && left.len() < all.len(), "{left:?}");
    for f in &left {
        let (a, b) = (std::fs::read(big.out.join(f)).unwrap(), std::fs::read(small.out.join(f)).unwrap());
        assert!(a == b, "{f}: {} bytes left where the whole run wrote {}", b.len(), a.len());
    }
}

/// NetCDF only, on 440 KiB: the fifth record (about 96 KiB) does not fit. The file holds the
/// records whose snapshot lines were shown, each the whole run's record, and opens with our
/// reader; the bytes of the record that did not fit are cut off (else the manifest, whose
/// status `fills` checks, would find no room).
#[test]
fn netcdf_on_a_full_disk() {
    let args = dam_break("64", "0.5", "0.05,0.1,0.15,0.2,0.25,0.3,0.35,0.4,0.45", "[\"netcdf\"]");
    let big = whole("nc", &strs(&args));
    let small = fills("nc", 440, &strs(&args), 2, true);
    // On 400 KiB the manifest finds no room to record the stop either: the error is still the
    // file that did not fit, not the manifest.
    let fuller = fills("nc-400", 400, &strs(&args), 2, false);
    assert!(fuller.stderr.contains("/out/dam-break.nc: No space left"), "{}", fuller.stderr);
    let file = "dam-break.nc";
    let shown = small.stdout.lines().filter(|l| l.contains("snapshot t = ") && l.contains(file)).count() as u64;
    let mut all = Dataset::open(&big.out.join(file)).unwrap();
    let mut left = Dataset::open(&small.out.join(file)).unwrap_or_else(|e| panic!("{file} left unreadable: {e}"));
    assert_eq!(all.records(), 10);
    assert!(left.records() >= 2 && left.records() < all.records(), "{} records", left.records());
    assert_eq!(left.records(), shown, "records in the file against snapshots shown:\n{}", small.stdout);
    for r in 0..left.records() {
        for v in ["time", "h", "hu", "hv"] {
            let bits =
                |d: &mut Dataset| d.read(v, Some(r)).unwrap().to_f64().iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert!(bits(&mut all) == bits(&mut left), "{file}: record {r} of {v} differs");
        }
    }
}

/// Checkpoints of 64² f64 (about 110 KiB) every 0.1 s on 200 KiB: the first fits, the second
/// cannot be written beside it. The first stays whole: a restart from it (on a normal disk)
/// ends where the whole run ended, bit for bit.
#[test]
fn a_checkpoint_on_a_full_disk() {
    let mut args = dam_break("64", "0.5", "", "[\"npy\"]");
    args.extend(["--checkpoint-every".into(), "0.1".into()]);
    let big = whole("ckpt", &strs(&args));
    let small = fills("ckpt", 200, &strs(&args), 0, true);
    assert!(small.stderr.contains("checkpoint.hkc"), "{}", small.stderr);
    let ckpt = small.out.join("checkpoint.hkc");
    assert!(ckpt.exists(), "the first checkpoint is gone: {:?}", names(&small.out));
    let again = scratch("disk-ckpt-restart");
    let o =
        Command::new(bin()).args(strs(&args)).args(["--output", s(&again), "--restart", s(&ckpt)]).output().unwrap();
    assert!(o.status.success(), "restart from the checkpoint left: {}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("t = 0.1"), "not restarted from the first checkpoint:\n{stdout}");
    for f in ["h_t0.5.npy", "hu_t0.5.npy", "hv_t0.5.npy"] {
        let (a, b) = (std::fs::read(big.out.join(f)).unwrap(), std::fs::read(again.join(f)).unwrap());
        assert!(a == b, "{f} after the restart differs from the whole run's");
    }
    std::fs::remove_dir_all(again).unwrap();
}
