//! FNV-1a, 64 bits: a hash of bytes that stays the same across Rust releases (std's need not),
//! for what must be recognised again in a later run: the PTX a tuning cache's entries were
//! measured with, the input files a checkpoint was started from.

/// The FNV-1a hash of `bytes`, as 16 hex digits.
pub fn fnv1a(bytes: &[u8]) -> String {
    let mut h = Fnv1a::default();
    h.update(bytes);
    h.hex()
}

/// [`fnv1a`] fed in pieces, for a file read in chunks rather than whole.
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a {
    pub fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    pub fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_is_the_published_function() {
        // Test vectors of FNV-1a 64.
        assert_eq!(fnv1a(b""), "cbf29ce484222325");
        assert_eq!(fnv1a(b"a"), "af63dc4c8601ec8c");
        assert_ne!(fnv1a(b".entry a"), fnv1a(b".entry b"));
        let mut pieces = Fnv1a::default();
        pieces.update(b".entry ");
        pieces.update(b"a");
        assert_eq!(pieces.hex(), fnv1a(b".entry a"));
    }
}
