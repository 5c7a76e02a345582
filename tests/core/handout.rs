//! Rank 0 handing each rank its part of a case (`ranks::handout`), over threads of this
//! process: every rank receives exactly the bytes made for it, whatever their length against
//! the message size (none, one message, several, a last short one), and rank 0 keeps its own.

use hydrokern::ranks::handout::{hand_out, take_part};
use hydrokern::ranks::threads::Threads;
use proptest::prelude::*;

/// The bytes rank `r` is handed: `lens[r]` of them, each naming its rank and place.
fn part(r: usize, lens: &[usize]) -> Vec<u8> {
    (0..lens[r]).map(|i| (r * 31 + i * 7) as u8).collect()
}

proptest! {
    #![proptest_config(crate::common::config(64, file!()))]
    #[test]
    fn each_rank_takes_the_part_made_for_it(
        lens in proptest::collection::vec(0usize..100, 1..5),
        chunk in 1usize..40,
    ) {
        let mut group = Threads::group(lens.len()).into_iter();
        let zero = group.next().unwrap();
        let lens = &lens;
        let (mine, taken) = std::thread::scope(|scope| {
            let others: Vec<_> = group.map(|t| scope.spawn(move || take_part(&t, chunk).unwrap())).collect();
            let mut made = Vec::new();
            let mine = hand_out(&zero, chunk, |r| {
                made.push(r);
                Ok(part(r, lens))
            })
            .unwrap();
            // One part at a time, the others' in rank order, rank 0's last.
            let order: Vec<usize> = (1..lens.len()).chain([0]).collect();
            assert_eq!(made, order);
            (mine, others.into_iter().map(|t| t.join().unwrap()).collect::<Vec<_>>())
        });
        prop_assert_eq!(mine, part(0, lens));
        for (r, bytes) in taken.into_iter().enumerate() {
            prop_assert_eq!(bytes, part(r + 1, lens), "rank {}", r + 1);
        }
    }
}

#[test]
fn a_part_rank_0_cannot_make_is_its_error_and_sends_nothing_more() {
    let mut group = Threads::group(3).into_iter();
    let zero = group.next().unwrap();
    let err = hand_out(&zero, 8, |r| match r {
        1 => Ok(vec![1; 20]),
        _ => Err(hydrokern::Error::invalid("no memory for rank 2's part")),
    })
    .unwrap_err();
    assert!(err.to_string().contains("rank 2's part"), "{err}");
}
