//! The water account in the fields' file (docs/netcdf.md, "The water account"): a run that
//! keeps one ([`crate::account`]) gets its terms as record variables beside the fields, at the
//! snapshots' times, in m³ since the start: `storage`, `rain_volume`, `inflow_volume`,
//! `infiltration_volume`, `outflow_volume(time, boundary)` and `boundary_inflow_volume(time,
//! boundary)` for each boundary segment (named in `boundary_name`), and `residual`. Doubles
//! whatever the run's precision: the host sums them in f64, and they are `account.csv`'s values.

use super::cf::FILL_F64;
use super::classic::{Attr, Dim, Type, Value, Var};
use crate::account::Account;

/// One scalar term of the account a record: its variable, long name and comment.
const TERMS: [(&str, &str, &str); 4] = [
    ("storage", "water in the domain", "the depth summed over the cells times their area"),
    ("rain_volume", "rain fallen on the domain since the start", "the rain series' exact integral"),
    ("inflow_volume", "water the inflows brought in since the start", "the hydrographs' exact integral"),
    ("infiltration_volume", "water the soil took since the start", "the infiltration field summed over the cells"),
];

/// The per-segment terms: what left through each segment and what came in by it.
const FLOWS: [(&str, &str); 2] = [
    ("outflow_volume", "water that left through the boundary segment since the start"),
    ("boundary_inflow_volume", "water that came in by the boundary segment since the start"),
];

fn double(name: &str, dims: Vec<usize>, long_name: &str, comment: &str) -> Var {
    let mut attrs = vec![Attr::text("long_name", long_name), Attr::text("units", "m3")];
    if !comment.is_empty() {
        attrs.push(Attr::text("comment", comment));
    }
    attrs.push(Attr { name: "_FillValue".into(), value: Value::Doubles(vec![FILL_F64]) });
    Var { name: name.into(), dims, attrs, ty: Type::Double, begin: 0 }
}

/// Add the account's dimensions and variables for an account like `a` (its segments' names) to a
/// file whose record dimension is dimension 0: the record variables after the others, the
/// segments' names (a fixed variable) with their bytes in `fixed`.
pub(super) fn declare(a: &Account, dims: &mut Vec<Dim>, vars: &mut Vec<Var>, fixed: &mut Vec<Vec<u8>>) {
    for (name, long_name, comment) in TERMS {
        vars.push(double(name, vec![0], long_name, comment));
    }
    if !a.boundary.is_empty() {
        let strlen = a.boundary.iter().map(|b| b.name.len()).max().unwrap_or(1).max(1);
        dims.push(Dim { name: "boundary".into(), len: a.boundary.len() as u64 });
        dims.push(Dim { name: "boundary_strlen".into(), len: strlen as u64 });
        let (boundary, strlen_dim) = (dims.len() - 2, dims.len() - 1);
        vars.push(Var {
            name: "boundary_name".into(),
            dims: vec![boundary, strlen_dim],
            attrs: vec![Attr::text(
                "long_name",
                "boundary segment: an open side by its name, a held level or an outlet by the case's",
            )],
            ty: Type::Char,
            begin: 0,
        });
        fixed.push(
            a.boundary
                .iter()
                .flat_map(|b| {
                    let mut bytes = b.name.as_bytes().to_vec();
                    bytes.resize(strlen, 0);
                    bytes
                })
                .collect(),
        );
        for (name, long_name) in FLOWS {
            let mut v = double(name, vec![0, boundary], long_name, "");
            v.attrs.insert(2, Attr::text("coordinates", "boundary_name"));
            vars.push(v);
        }
    }
    vars.push(double(
        "residual",
        vec![0],
        "water account residual: storage change − rain − inflow + infiltration − boundary inflow + outflow",
        "what the sources and the boundary do not explain: the error",
    ));
}

/// The account's record slabs, big-endian, in [`declare`]'s order.
pub(super) fn slabs(a: &Account) -> Vec<Vec<u8>> {
    let one = |v: f64| v.to_be_bytes().to_vec();
    let mut out = vec![one(a.storage), one(a.rain), one(a.inflow), one(a.infiltration)];
    if !a.boundary.is_empty() {
        out.push(a.boundary.iter().flat_map(|b| b.out.to_be_bytes()).collect());
        out.push(a.boundary.iter().flat_map(|b| b.into.to_be_bytes()).collect());
    }
    out.push(one(a.residual()));
    out
}
