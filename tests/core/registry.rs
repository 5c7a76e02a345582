//! The registry of solvers, and flags whose rules and help the solvers give.

use hydrokern::case::{Flag, Set};
use hydrokern::registry::SOLVERS;
use hydrokern::solver::Support;
use hydrokern::{fd3d, tridiag};

/// A run that keeps products can checkpoint and restart, whichever its solver
/// (host/tests/integration/restart.rs restarts each bit for bit).
#[test]
fn every_solver_keeping_products_checkpoints_them() {
    for s in SOLVERS {
        assert_ne!(s.products, Support::Kept, "{} keeps products its checkpoints do not hold", s.name);
    }
}

#[test]
fn names_are_unique_and_every_solver_has_a_scenario() {
    for (k, s) in SOLVERS.iter().enumerate() {
        assert!(SOLVERS[..k].iter().all(|t| t.name != s.name), "{} listed twice", s.name);
        assert!(!hydrokern::scenarios::of(s.name).is_empty(), "{} has no built-in scenario", s.name);
    }
}

/// The flag `name` of a solver's list.
fn flag(flags: &'static [Flag], name: &str) -> &'static Flag {
    flags.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no flag --{name}"))
}

#[test]
fn the_reps_limit_is_in_the_flag_help() {
    let f = flag(fd3d::SOLVER.flags, "reps");
    assert!(f.help.contains(&fd3d::MAX_REPS.to_string()), "{}", f.help);
}

#[test]
fn wavenumbers_take_commas_or_spaces() {
    let Set::Custom(wavenumbers) = flag(fd3d::SOLVER.flags, "wavenumbers").set else {
        panic!("--wavenumbers has its own rule")
    };
    assert_eq!(wavenumbers("1,2,3").unwrap()[0].1.to_string(), "[1, 2, 3]");
    assert_eq!(wavenumbers("1 2 3").unwrap()[0].1.to_string(), "[1, 2, 3]");
    assert!(wavenumbers("1,2").is_err());
    assert!(wavenumbers("1,x,3").is_err());
}

#[test]
fn the_repeat_limit_is_in_the_flag_help() {
    let f = flag(tridiag::SOLVER.flags, "repeat");
    assert!(f.help.contains(&tridiag::MAX_REPEAT.to_string()), "{}", f.help);
}
