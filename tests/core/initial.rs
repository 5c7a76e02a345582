//! Initial fields as case files give them (`case::initial`): each profile's value at every cell,
//! worked out where it is read (`Values::at`), against its formula written out here at the
//! cells' centres, in 2D and 3D, with a centre given and the domain's; a constant; values held.

use hydrokern::case::initial::{Field, Profile, Values, cells, values};
use hydrokern::case::{CaseDoc, Check, Origin};
use hydrokern::grid::{Grid2, Grid3, Mesh};
use proptest::prelude::*;

fn meshes(nx: usize, ny: usize, nz: usize, origin: (f64, f64, f64)) -> [Mesh; 2] {
    let plane = Grid2 { nx, ny, dx: 0.7, dy: 1.3, origin: (origin.0, origin.1), halo: 2 };
    let volume = Grid3 { nx, ny, nz, dx: 0.7, dy: 1.3, dz: 0.9, origin, halo: 2 };
    [Mesh::Plane(plane), Mesh::Volume(volume)]
}

/// Every cell's value of `field` on `mesh`, worked out and as a vector, against `want` at the
/// cell's centre.
fn check(mesh: &Mesh, field: &Field, want: impl Fn([f64; 3]) -> f64) -> Result<(), TestCaseError> {
    let doc = CaseDoc::parse(Origin::File("initial.toml".into()), String::new()).unwrap();
    let c = Check::new(&doc);
    let worked = cells(&c, "initial.q", field, mesh).unwrap();
    let whole = values(&c, "initial.q", field, mesh).unwrap();
    prop_assert!(!worked.is_stored());
    for (k, v) in whole.iter().enumerate() {
        let w = want(mesh.centre(k));
        prop_assert_eq!(worked.at(k).to_bits(), w.to_bits(), "cell {}", k);
        prop_assert_eq!(v.to_bits(), w.to_bits(), "cell {}", k);
    }
    prop_assert_eq!(whole.len(), mesh.cells());
    Ok(())
}

proptest! {
    #![proptest_config(crate::common::config(32, file!()))]

    #[test]
    fn profiles_are_their_formulas_at_every_cell(
        (nx, ny, nz) in (1usize..7, 1usize..7, 1usize..5),
        origin in (-50.0f64..50.0, -50.0f64..50.0, -5.0f64..5.0),
        at in (-3.0f64..8.0, -3.0f64..8.0, -3.0f64..4.0),
        (radius, width) in (0.1f64..4.0, 0.1f64..4.0),
        (a, b) in (-2.0f64..2.0, -2.0f64..2.0),
        given in any::<bool>(),
    ) {
        for mesh in meshes(nx, ny, nz, origin) {
            let dims = mesh.dims().len();
            let n = mesh.cells();
            // The domain's centre: halfway between the first and last cells' centres.
            let mid: [f64; 3] = std::array::from_fn(|k| (mesh.centre(0)[k] + mesh.centre(n - 1)[k]) / 2.0);
            let o = if given { [at.0, at.1, if dims == 3 { at.2 } else { 0.0 }] } else { mid };
            let centre = given.then(|| o[..dims].to_vec());
            let d2 = |p: [f64; 3]| (p[0] - o[0]).powi(2) + (p[1] - o[1]).powi(2) + (p[2] - o[2]).powi(2);
            let disc = Profile::Disc { centre: centre.clone(), radius, inside: a, outside: b };
            check(&mesh, &Field::Profile(disc), |p| if d2(p) <= radius * radius { a } else { b })?;
            let gaussian = Profile::Gaussian { centre, width, amplitude: a, base: b };
            check(&mesh, &Field::Profile(gaussian), |p| b + a * (-d2(p) / (width * width)).exp())?;
            for (axis, along) in [("x", 0), ("y", 1), ("z", 2)].into_iter().take(dims) {
                let halves = Profile::Halves { axis: axis.into(), at: at.0, below: a, above: b };
                check(&mesh, &Field::Profile(halves), |p| if p[along] < at.0 { a } else { b })?;
            }
            check(&mesh, &Field::Constant(a), |_| a)?;
        }
    }
}

/// Values held are read back as they were given.
#[test]
fn stored_values_are_read_back() {
    let v = Values::stored(vec![1.5, -2.0, 0.25]);
    assert!(v.is_stored());
    assert_eq!([v.at(0), v.at(1), v.at(2)], [1.5, -2.0, 0.25]);
}
