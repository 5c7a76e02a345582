//! The pictures of a whole run, as a user gets them: a short flood on the CPU writes maps of
//! depth, surface and speed at every snapshot with its dry cells as land, the centre line, and
//! an animation of the depth whose frames are the snapshots' maps.

use hydrokern::output::png::LAND;
use hydrokern::{registry, scenarios};
use std::path::Path;

/// Decode a PNG: (width, height, RGB bytes).
fn png(path: &Path) -> (usize, usize, Vec<u8>) {
    let decoder = png::Decoder::new(std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info.width as usize, info.height as usize, buf)
}

#[test]
fn a_flood_run_draws_maps_profiles_and_an_animation() {
    let dir = std::env::temp_dir().join(format!("hydrokern-pictures-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut doc = scenarios::find("flood").unwrap().doc().unwrap();
    for (key, value) in [
        ("grid.nx", "24"),
        ("grid.ny", "24"),
        ("time.t_end", "0.3"),
        ("output.snapshots", "[0.1, 0.2]"),
        ("run.backend", "\"cpu\""),
        ("output.progress", "1e9"),
    ] {
        doc.set(key, value.parse().unwrap(), "test").unwrap();
    }
    doc.set("output.dir", dir.to_string_lossy().as_ref().into(), "test").unwrap();
    let case = registry::load(&doc).unwrap();
    case.run(&hydrokern::run::RunOptions::default()).unwrap();

    let times = ["0.1", "0.2", "0.3"];
    let mut sizes = Vec::new();
    for t in times {
        for map in ["depth", "surface", "speed"] {
            let (w, h, px) = png(&dir.join(format!("{map}_t{t}.png")));
            // The flood starts as a column in the middle of a dry square: the corners stay
            // dry this early, and every map draws them as land (the bed is flat: unshaded).
            let count = px.chunks_exact(3).filter(|p| **p == LAND).count();
            assert!(count > w * h / 20, "{map} at t = {t}: {count} land pixels of {}", w * h);
            if map == "depth" {
                sizes.push((w, h));
            }
        }
    }
    png(&dir.join("centreline.png"));

    let file = std::fs::File::open(dir.join("depth.gif")).unwrap();
    let mut decoder = gif::DecodeOptions::new().read_info(file).unwrap();
    let size = (decoder.width() as usize, decoder.height() as usize);
    let mut frames = 0;
    while decoder.read_next_frame().unwrap().is_some() {
        frames += 1;
    }
    assert_eq!(frames, times.len(), "a frame per snapshot");
    assert_eq!(size, *sizes.iter().max().unwrap(), "frames the size of the largest map");
    let manifest = std::fs::read_to_string(dir.join("hydrokern-run.json")).unwrap();
    assert!(manifest.contains("\"depth.gif\""), "the manifest lists the animation: {manifest}");
    std::fs::remove_dir_all(&dir).unwrap();
}
