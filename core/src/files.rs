//! Reading users' files safely: only regular files, never more than a stated size, so that a
//! device (`/dev/zero`), a FIFO or a huge file given by mistake is refused at once instead of
//! reading until memory or patience runs out.

use crate::{Error, Result};
use std::io::Read;
use std::path::Path;

/// The size of `path` when it is a regular file of at most `max` bytes.
pub fn regular_file(path: &Path, max: u64, what: &str) -> Result<u64> {
    let io = |cause| Error::Io { path: path.display().to_string(), cause };
    let meta = std::fs::metadata(path).map_err(io)?;
    if !meta.is_file() {
        let kind = if meta.is_dir() { "a directory" } else { "not a regular file (a device, FIFO or socket)" };
        return Err(Error::invalid(format!("{}: {kind}; a {what} must be a regular file", path.display())));
    }
    if meta.len() > max {
        return Err(Error::invalid(format!(
            "{}: {} bytes is more than a {what} may hold ({max} bytes)",
            path.display(),
            meta.len()
        )));
    }
    Ok(meta.len())
}

/// Read a regular file of at most `max` bytes whole.
pub fn read_bytes(path: &Path, max: u64, what: &str) -> Result<Vec<u8>> {
    let len = regular_file(path, max, what)?;
    let io = |cause| Error::Io { path: path.display().to_string(), cause };
    let mut bytes = Vec::with_capacity(len as usize);
    // `take` guards against a file that grows while it is read.
    std::fs::File::open(path).map_err(io)?.take(max + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > max {
        return Err(Error::invalid(format!("{}: grew past {max} bytes while being read", path.display())));
    }
    Ok(bytes)
}

/// Read a UTF-8 text file of at most `max` bytes.
pub fn read_text(path: &Path, max: u64, what: &str) -> Result<String> {
    let bytes = read_bytes(path, max, what)?;
    String::from_utf8(bytes)
        .map_err(|_| Error::invalid(format!("{}: not UTF-8 text; a {what} is TOML text", path.display())))
}

/// What bounds the memory a run can still allocate, and by how much.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryLimit {
    /// Bytes a new allocation can still have.
    pub bytes: u64,
    /// Which limit that is, for messages: "available on this machine", "left under the
    /// cgroup's memory limit", ...
    pub what: &'static str,
}

/// Bytes of memory a new allocation of this process can still have (Linux), or `None` where
/// nothing can be read: the least of the machine's `MemAvailable`, the room its cgroup leaves
/// ([`cgroup_room`]) and the room its address-space and data limits leave ([`rlimit_room`]).
pub fn available_memory() -> Option<u64> {
    memory_limit().map(|l| l.bytes)
}

/// [`available_memory`], saying which limit it is.
pub fn memory_limit() -> Option<MemoryLimit> {
    let read = |p: &str| std::fs::read_to_string(p).ok();
    let machine = read("/proc/meminfo")
        .and_then(|t| meminfo_available(&t))
        .map(|bytes| MemoryLimit { bytes, what: "available on this machine (MemAvailable)" });
    let cgroup = match (read("/proc/self/cgroup"), read("/proc/self/mountinfo")) {
        (Some(c), Some(m)) => cgroup_room(&c, &m)
            .map(|bytes| MemoryLimit { bytes, what: "left under this process's cgroup memory limit" }),
        _ => None,
    };
    let rlimit = match (read("/proc/self/limits"), read("/proc/self/status")) {
        (Some(l), Some(s)) => rlimit_room(&l, &s),
        _ => None,
    };
    [machine, cgroup, rlimit].into_iter().flatten().min_by_key(|l| l.bytes)
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
fn meminfo_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The memory the cgroups of this process still leave it, in bytes: over the process's cgroup
/// and each group above it (their limits apply too), the least of limit − usage, for cgroup v2
/// (`memory.max`, `memory.current`) and v1 (`memory.limit_in_bytes`, `memory.usage_in_bytes`).
/// Usage counts the group's page cache, which the kernel reclaims before it refuses memory:
/// the inactive part of it (`inactive_file` in `memory.stat`) counts as room. `cgroup` and
/// `mountinfo` are the texts of `/proc/self/cgroup` and `/proc/self/mountinfo`; `None` where no
/// group has a limit.
pub fn cgroup_room(cgroup: &str, mountinfo: &str) -> Option<u64> {
    let mut room: Option<u64> = None;
    for line in cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next()) else { continue };
        let v2 = controllers.is_empty();
        if !v2 && !controllers.split(',').any(|c| c == "memory") {
            continue;
        }
        let files = if v2 {
            ("memory.max", "memory.current", "inactive_file")
        } else {
            ("memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file")
        };
        for dir in cgroup_dirs(mountinfo, v2, path) {
            if let Some(r) = group_room(&dir, files) {
                room = Some(room.map_or(r, |m| m.min(r)));
            }
        }
    }
    room
}

/// The directories of the cgroup at `path` (as `/proc/self/cgroup` names it) and of every group
/// above it up to the hierarchy's mount point: v2's (`cgroup2`) or v1's memory controller's.
fn cgroup_dirs(mountinfo: &str, v2: bool, path: &str) -> Vec<std::path::PathBuf> {
    let mut dirs = Vec::new();
    for line in mountinfo.lines() {
        // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS
        let Some((left, right)) = line.split_once(" - ") else { continue };
        let left: Vec<&str> = left.split(' ').collect();
        let right: Vec<&str> = right.split(' ').collect();
        let (Some(root), Some(mount), Some(fstype)) = (left.get(3), left.get(4), right.first()) else { continue };
        let ours = match v2 {
            true => *fstype == "cgroup2",
            false => *fstype == "cgroup" && right.get(2).is_some_and(|o| o.split(',').any(|o| o == "memory")),
        };
        if !ours {
            continue;
        }
        let mount = Path::new(mount);
        // The group's path below the mount's root; a group outside it (another namespace's
        // view) is read from the mount point itself.
        let below = path.strip_prefix(root).unwrap_or("").trim_start_matches('/');
        let mut dir = mount.join(below);
        loop {
            if dir.is_dir() {
                dirs.push(dir.clone());
            }
            if dir == mount || !dir.pop() || !dir.starts_with(mount) {
                break;
            }
        }
    }
    dirs
}

/// limit − (usage − inactive page cache) of one cgroup directory, when it has a limit.
fn group_room(dir: &Path, (limit, usage, inactive): (&str, &str, &str)) -> Option<u64> {
    let number = |name: &str| std::fs::read_to_string(dir.join(name)).ok()?.trim().parse::<u64>().ok();
    // v2 writes "max" for no limit; v1 a number near 2⁶³.
    let limit = number(limit).filter(|&l| l < 1 << 62)?;
    let used = number(usage).unwrap_or(0);
    let cache = std::fs::read_to_string(dir.join("memory.stat"))
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| {
                l.strip_prefix(inactive).and_then(|v| v.strip_prefix(' ')).and_then(|v| v.trim().parse().ok())
            })
        })
        .unwrap_or(0u64);
    Some(limit.saturating_sub(used.saturating_sub(cache)))
}

/// The room the process's own limits leave, from the texts of `/proc/self/limits` and
/// `/proc/self/status`: its address-space limit (`ulimit -v`) less its virtual size, and its
/// data limit (`ulimit -d`) less its data segment; the smaller, or `None` without limits.
pub fn rlimit_room(limits: &str, status: &str) -> Option<MemoryLimit> {
    let soft = |name: &str| -> Option<u64> {
        let rest = limits.lines().find_map(|l| l.strip_prefix(name))?;
        rest.split_whitespace().next()?.parse().ok()
    };
    let kib = |name: &str| -> u64 {
        let line = status.lines().find_map(|l| l.strip_prefix(name));
        line.and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok()).unwrap_or(0).saturating_mul(1024)
    };
    let address = soft("Max address space").map(|l| MemoryLimit {
        bytes: l.saturating_sub(kib("VmSize:")),
        what: "left under this process's address-space limit (ulimit -v)",
    });
    let data = soft("Max data size").map(|l| MemoryLimit {
        bytes: l.saturating_sub(kib("VmData:")),
        what: "left under this process's data-size limit (ulimit -d)",
    });
    [address, data].into_iter().flatten().min_by_key(|l| l.bytes)
}

/// A size in bytes as a person reads it: `512 B`, `3.4 MiB`, `2.76 GiB`.
pub fn bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if b < 1024 {
        return format!("{b} B");
    }
    let mut v = b as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    let digits = if v < 10.0 {
        2
    } else if v < 100.0 {
        1
    } else {
        0
    };
    format!("{v:.digits$} {}", UNITS[unit])
}

/// One `kB` entry of `/proc/self/status` (`VmHWM`, `VmRSS`), bytes; `None` where it cannot be
/// read.
fn status_bytes(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: u64 = status.lines().find_map(|l| l.strip_prefix(key))?.split_whitespace().next()?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The run's peak resident memory so far (`VmHWM`), bytes; `None` where it cannot be read.
pub fn peak_memory() -> Option<u64> {
    status_bytes("VmHWM:")
}

/// The process's resident memory now (`VmRSS`), bytes; `None` where it cannot be read.
pub fn resident_memory() -> Option<u64> {
    status_bytes("VmRSS:")
}

/// Fail with one line when `bytes` of host memory for `what` would not fit in what this
/// process can still allocate ([`memory_limit`]).
pub fn check_host_memory(what: &str, bytes: u64) -> Result<()> {
    if let Some(limit) = memory_limit()
        && bytes > limit.bytes
    {
        return Err(Error::invalid(format!(
            "{what} needs about {} of host memory but only {} are {}; use a smaller size",
            self::bytes(bytes),
            self::bytes(limit.bytes),
            limit.what
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_of_the_process_leave_room_less_what_it_has() {
        let limits = "Limit                     Soft Limit           Hard Limit           Units\n\
                      Max data size             unlimited            unlimited            bytes\n\
                      Max address space         1073741824           unlimited            bytes\n";
        let status = "Name:\thydrokern\nVmSize:\t  262144 kB\nVmData:\t  131072 kB\n";
        let room = rlimit_room(limits, status).expect("a limit");
        assert_eq!(room.bytes, (1 << 30) - (256 << 20));
        assert!(room.what.contains("ulimit -v"), "{}", room.what);
        let data = limits.replace("Max data size             unlimited", "Max data size             268435456");
        let room = rlimit_room(&data, status).expect("a limit");
        assert_eq!(room.bytes, (256 << 20) - (128 << 20));
        assert!(room.what.contains("ulimit -d"), "{}", room.what);
        let none = limits.replace("1073741824", "unlimited");
        assert_eq!(rlimit_room(&none, status), None);
    }

    #[test]
    fn cgroup_limits_of_the_group_and_those_above_it_count() {
        let root = std::env::temp_dir().join(format!("hydrokern-cgroup-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (v2, v1) = (root.join("unified"), root.join("memory"));
        let group = v2.join("jobs/run");
        std::fs::create_dir_all(&group).unwrap();
        std::fs::create_dir_all(v1.join("box")).unwrap();
        let put = |dir: &Path, name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
        put(&v2.join("jobs"), "memory.max", "1000000\n");
        put(&v2.join("jobs"), "memory.current", "300000\n");
        put(&group, "memory.max", "max\n");
        put(&group, "memory.current", "250000\n");
        // Page cache the kernel can reclaim is room.
        put(&v2.join("jobs"), "memory.stat", "anon 200000\ninactive_file 100000\nactive_file 5\n");
        let mountinfo = format!(
            "30 23 0:27 / {} rw,nosuid - cgroup2 cgroup2 rw\n\
             35 31 0:32 / {} rw,relatime - cgroup cgroup rw,memory\n",
            v2.display(),
            v1.display()
        );
        let v2_only = "0::/jobs/run\n";
        assert_eq!(cgroup_room(v2_only, &mountinfo), Some(1000000 - (300000 - 100000)));
        // v1 writes a number near 2⁶³ for no limit.
        put(&v1.join("box"), "memory.limit_in_bytes", "9223372036854771712\n");
        put(&v1, "memory.limit_in_bytes", "500000\n");
        put(&v1, "memory.usage_in_bytes", "400000\n");
        let both = "4:memory:/box\n0::/jobs/run\n";
        assert_eq!(cgroup_room(both, &mountinfo), Some(100000));
        // No limit anywhere.
        assert_eq!(cgroup_room("0::/elsewhere\n", "30 23 0:27 / /nonexistent rw - cgroup2 cgroup2 rw\n"), None);
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(3 << 20), "3.00 MiB");
        assert_eq!(bytes(468 << 20), "468 MiB");
        assert_eq!(bytes((2.76 * (1u64 << 30) as f64) as u64), "2.76 GiB");
    }
}
