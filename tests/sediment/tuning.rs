//! The sediment solver's launch labels.

use hydrokern::sediment::gpu::Launch;
use hydrokern::sediment::tune::{label, parse};

#[test]
fn labels_read_back() {
    for l in [Launch::default(), Launch { block: (64, 8), rows: 16 }, Launch { block: (30, 30), rows: 1 }] {
        assert_eq!(parse(&label(l)).unwrap(), l);
    }
    assert_eq!(label(Launch::default()), "64x2/4");
    for bad in ["", "64x2", "64x2/0", "0x2/4", "64x33/1", "31x31/1", "a/b"] {
        assert!(parse(bad).is_err(), "{bad}");
    }
}
