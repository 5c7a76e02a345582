//! Search spaces and pruning: the launch configurations worth timing, and which of them the
//! device would refuse ([`BlockLimits`]), decided before any launch.

pub use crate::runtime::{BlockLimits, Pruned};

/// The 2D blocks of the heat maps: every `(bx, by)` of `xs × ys`, in row order (by outer).
pub fn grid_2d(xs: &[u32], ys: &[u32]) -> Vec<(u32, u32)> {
    ys.iter().flat_map(|&y| xs.iter().map(move |&x| (x, y))).collect()
}

/// Block widths and heights the 2D searches try (Amundsen's figures span 8–512 × 1–32).
pub const BLOCK_X: [u32; 6] = [8, 16, 32, 64, 128, 256];
pub const BLOCK_Y: [u32; 6] = [1, 2, 4, 8, 16, 32];

/// Each of `points` with its verdict under `check`, in order.
pub fn prune<P: Copy>(points: &[P], check: impl Fn(P) -> Result<(), Pruned>) -> Vec<(P, Result<(), Pruned>)> {
    points.iter().map(|&p| (p, check(p))).collect()
}

/// The points `prune` let through.
pub fn allowed<P: Copy>(verdicts: &[(P, Result<(), Pruned>)]) -> Vec<P> {
    verdicts.iter().filter(|(_, v)| v.is_ok()).map(|(p, _)| *p).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_2d_space_is_row_ordered_and_prunes_to_whole_warps() {
        let pts = grid_2d(&BLOCK_X, &BLOCK_Y);
        assert_eq!(pts.len(), 36);
        assert_eq!(pts[0], (8, 1));
        assert_eq!(pts[6], (8, 2));
        let l = BlockLimits {
            device_threads: 1024,
            kernel_threads: 1024,
            regs_per_thread: 40,
            regs_per_block: 65536,
            shared_optin: 227 * 1024,
            static_shared: 0,
        };
        let v = prune(&pts, |(x, y)| l.check(x * y, 0));
        let ok = allowed(&v);
        assert!(ok.iter().all(|&(x, y)| (x * y) % 32 == 0 && x * y <= 1024));
        // 8×1, 8×2, 16×1 have fewer than a warp; 256×8 and beyond too many threads.
        assert!(!ok.contains(&(8, 2)) && !ok.contains(&(256, 8)));
        assert!(ok.contains(&(32, 8)) && ok.contains(&(8, 4)) && ok.contains(&(256, 4)));
        assert_eq!(ok.len(), v.iter().filter(|(_, r)| r.is_ok()).count());
    }
}
