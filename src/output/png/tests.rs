use super::map::{MIN_LONG_SIDE, field_layout, render_field};
use super::plot::{Axis, PLOT_H, PLOT_W};
use super::ticks::tick_labels;
use super::*;
use crate::Error;
use crate::output::test_dir;
use std::path::Path;

/// Decode a PNG written by this module into (width, height, RGB bytes).
fn decode(path: &Path) -> (usize, usize, Vec<u8>) {
    let decoder = ::png::Decoder::new(std::fs::File::open(path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, ::png::ColorType::Rgb);
    buf.truncate(info.buffer_size());
    (info.width as usize, info.height as usize, buf)
}

fn pixel(img: &(usize, usize, Vec<u8>), x: usize, y: usize) -> [u8; 3] {
    let k = 3 * (y * img.0 + x);
    [img.2[k], img.2[k + 1], img.2[k + 2]]
}

#[test]
fn colormaps_interpolate_and_clamp() {
    for cm in [Colormap::viridis(), Colormap::diverging()] {
        assert_eq!(cm.rgb(0.0), cm.stops[0]);
        assert_eq!(cm.rgb(1.0), *cm.stops.last().unwrap());
        assert_eq!(cm.rgb(-3.0), cm.rgb(0.0));
        assert_eq!(cm.rgb(7.0), cm.rgb(1.0));
        assert_eq!(cm.rgb(f64::INFINITY), cm.rgb(1.0));
        assert_eq!(cm.rgb(f64::NAN), NAN_COLOR);
    }
    assert_eq!(Colormap::viridis().rgb(0.0), [0x44, 0x01, 0x54]);
    assert_eq!(Colormap::diverging().rgb(0.5), [255, 255, 255]);
    let grey = Colormap::from_stops(vec![[0, 0, 0], [200, 100, 0]]).unwrap();
    assert_eq!(grey.rgb(0.5), [100, 50, 0]);
    assert!(Colormap::from_stops(vec![[0, 0, 0]]).is_err());
}

#[test]
fn tick_labels_are_short_and_distinct() {
    assert_eq!(tick_labels(&[0.0, 0.25, 0.5, 0.75, 1.0], 0.25, 1), ["0.00", "0.25", "0.50", "0.75", "1.00"]);
    assert_eq!(tick_labels(&[-0.0001, 10.0], 10.0, 1), ["0", "10"]);
    assert_eq!(tick_labels(&[-0.001, 2.499], 2.5, 1), ["0.0", "2.5"]);
    assert_eq!(tick_labels(&[0.0, 20.0, 40.0], 20.0, 0), ["0", "20", "40"]);
    assert_eq!(tick_labels(&[2e6, 4e6], 2e6, 0), ["2e6", "4e6"]);
    assert_eq!(tick_labels(&[1e-5, 2e-5], 1e-5, 0), ["1e-5", "2e-5"]);
    assert_eq!(tick_labels(&[1.0, 1.125, 1.25], 0.125, 1), ["1.000", "1.125", "1.250"]);
    assert_eq!(tick_labels(&[0.0, 0.2183, 0.4366], 0.2183, 1), ["0.000", "0.218", "0.437"]);
}

#[test]
fn axes_have_at_least_four_ticks() {
    for (lo, hi) in [(0.0, 1.0), (0.0, 0.87), (-3.2, 17.0), (5.0, 5.0), (0.0, 0.0), (1e-9, 2e-9), (1e6, 1.3e6)] {
        let axis = Axis::new([lo, hi].into_iter(), 0.05);
        assert!(axis.ticks.len() >= 4, "{lo}..{hi}: {:?}", axis.ticks);
        assert!(axis.ticks.iter().all(|t| (axis.lo..=axis.hi).contains(t)));
        let mut labels = axis.labels.clone();
        labels.dedup();
        assert_eq!(labels.len(), axis.ticks.len(), "{:?}", axis.labels);
    }
    let axis = Axis::new([-1e308, 1e308, f64::NAN].into_iter(), 0.05);
    assert_eq!(axis.ticks.len(), 2);
}

#[test]
fn field_png_layout_colours_and_orientation() {
    let dir = test_dir("png-field");
    let (nx, ny) = (37, 23);
    // Row j = 0 holds the maximum: it must be drawn at the bottom of the map.
    let field: Vec<f64> = (0..nx * ny).map(|k| if k < nx { 10.0 } else { (k % nx) as f64 * 0.1 }).collect();
    let opts = MapOptions::new("Test field", "h [m]");
    let path = dir.join("field.png");
    write_field_png(&path, &field, nx, ny, &opts).unwrap();
    let img = decode(&path);

    let canvas = render_field(&field, nx, ny, &opts).unwrap();
    let lay = field_layout(nx, ny, &opts, &tick_labels(&[0.0, 2.5, 5.0, 7.5, 10.0], 2.5, 1), false);
    assert_eq!((img.0, img.1), (lay.w, lay.h));
    assert_eq!((img.0, img.1), (canvas.w, canvas.h));
    assert!(lay.map.w.max(lay.map.h) >= MIN_LONG_SIDE);
    assert_eq!((lay.map.w / lay.scale, lay.map.h / lay.scale), (nx, ny));

    let (bar, map) = (lay.bar, lay.map);
    let cm = &opts.colormap;
    assert_eq!(pixel(&img, bar.x + bar.w / 2, bar.y), cm.rgb(1.0));
    assert_eq!(pixel(&img, bar.x + bar.w / 2, bar.y + bar.h - 1), cm.rgb(0.0));
    assert_eq!(pixel(&img, map.x + map.w / 2, map.y + map.h - 1), cm.rgb(1.0), "row 0 at the bottom");
    assert_eq!(pixel(&img, map.x, map.y), cm.rgb(0.0), "x = 0 on the left");
    assert_eq!(pixel(&img, map.x + map.w - 1, map.y), cm.rgb(3.6 / 10.0), "x = nx - 1 on the right");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn field_png_survives_odd_data() {
    let dir = test_dir("png-odd");
    let path = dir.join("f.png");
    let opts = MapOptions::new("odd", "q");
    let mut bad = vec![1.0; 37 * 23];
    bad[5] = f64::NAN;
    bad[6] = f64::INFINITY;
    bad[7] = f64::NEG_INFINITY;
    for field in [vec![3.0; 37 * 23], vec![0.0; 37 * 23], bad.clone(), vec![f64::NAN; 37 * 23]] {
        write_field_png(&path, &field, 37, 23, &opts).unwrap();
        decode(&path);
    }
    // NaN cells are magenta in the map.
    let lay_canvas = render_field(&bad, 37, 23, &opts).unwrap();
    assert!((0..lay_canvas.h).any(|y| (0..lay_canvas.w).any(|x| lay_canvas.get(x, y) == NAN_COLOR)));
    // A single cell, a strip, and a field big enough to be averaged down.
    write_field_png(&path, &[1.0], 1, 1, &opts).unwrap();
    write_field_png(&path, &vec![1.0; 3000], 3000, 1, &opts).unwrap();
    let big: Vec<f64> = (0..4100 * 3).map(|k| k as f64).collect();
    write_field_png(&path, &big, 4100, 3, &opts).unwrap();
    assert!(decode(&path).0 < 2400);
    let ranged = MapOptions { range: Some((0.0, 0.0)), colormap: Colormap::diverging(), ..opts.clone() };
    write_field_png(&path, &bad, 37, 23, &ranged).unwrap();

    let err = |r| matches!(r, Err(Error::Invalid(_)));
    assert!(err(write_field_png(&path, &[1.0; 5], 2, 3, &opts)));
    assert!(err(write_field_png(&path, &[], 0, 5, &opts)));
    assert!(err(write_field_png(&path, &[1.0; 4], 2, 2, &MapOptions { range: Some((1.0, 0.0)), ..opts.clone() })));
    assert!(err(write_field_png(&path, &[1.0; 4], 2, 2, &MapOptions { range: Some((0.0, f64::NAN)), ..opts })));
    std::fs::remove_dir_all(dir).unwrap();
}

fn sample_series() -> Vec<Series> {
    let x: Vec<f64> = (0..=100).map(|k| k as f64 * 0.1).collect();
    let exact: Vec<f64> = x.iter().map(|&x| if x < 5.0 { 2.0 } else { 0.5 }).collect();
    let mut computed: Vec<f64> = x.iter().map(|&x| 1.25 - 0.75 * ((x - 5.0) * 3.0).tanh()).collect();
    computed[40] = f64::NAN;
    vec![
        Series { name: "exact".into(), x: x.clone(), y: exact, color: [0, 0, 0], dashed: true },
        Series { name: "computed".into(), x, y: computed, color: [31, 119, 180], dashed: false },
    ]
}

#[test]
fn line_plot_png() {
    let dir = test_dir("png-plot");
    let path = dir.join("plot.png");
    let opts = PlotOptions { title: "Dam break".into(), x_label: "x [m]".into(), y_label: "h [m]".into() };
    write_line_plot_png(&path, &sample_series(), &opts).unwrap();
    let img = decode(&path);
    assert_eq!((img.0, img.1), (PLOT_W, PLOT_H));
    let count = |c: [u8; 3]| {
        (0..img.1).flat_map(|y| (0..img.0).map(move |x| (x, y))).filter(|&(x, y)| pixel(&img, x, y) == c).count()
    };
    assert!(count([31, 119, 180]) > 500, "the computed curve is drawn");

    // Degenerate input draws without panicking.
    let flat = Series { name: "flat".into(), x: vec![1.0, 1.0], y: vec![3.0, 3.0], color: [255, 0, 0], dashed: false };
    let empty = Series { name: "empty".into(), x: vec![], y: vec![], color: [0, 255, 0], dashed: true };
    let nan = Series { name: "nan".into(), x: vec![f64::NAN], y: vec![1.0], color: [0, 0, 255], dashed: false };
    write_line_plot_png(&path, &[flat, empty.clone(), nan], &PlotOptions::default()).unwrap();
    write_line_plot_png(&path, std::slice::from_ref(&empty), &opts).unwrap();

    assert!(write_line_plot_png(&path, &[], &opts).is_err());
    let uneven = Series { x: vec![1.0], ..empty };
    assert!(write_line_plot_png(&path, &[uneven], &opts).is_err());
    std::fs::remove_dir_all(dir).unwrap();
}

/// Pictures to look at: `cargo test -p hydrokern --lib output::png::tests::demo -- --ignored`
/// writes them to /tmp/output-demo.
#[test]
#[ignore = "writes demo PNGs to /tmp/output-demo for a person to look at; run with --ignored"]
fn demo() {
    let dir = Path::new("/tmp/output-demo");
    std::fs::create_dir_all(dir).unwrap();
    let (nx, ny) = (300, 200);
    let bump: Vec<f64> = (0..nx * ny)
        .map(|k| {
            let (x, y) = ((k % nx) as f64 / nx as f64 * 3.0, (k / nx) as f64 / ny as f64 * 2.0);
            1.0 + 0.5 * (-((x - 1.0).powi(2) + (y - 0.5).powi(2)) / 0.1).exp()
        })
        .collect();
    let opts = MapOptions::new("Gaussian bump at (1.0, 0.5), t = 0 s", "h [m]");
    write_field_png(&dir.join("gaussian_map.png"), &bump, nx, ny, &opts).unwrap();
    // A rise and a mirrored dip, with a hole of missing data in the dip.
    let signed: Vec<f64> = (0..nx * ny)
        .map(|k| {
            let (i, j) = (k % nx, k / nx);
            let hole = (i as i64 - 240).abs() < 8 && (j as i64 - 150).abs() < 8;
            if hole { f64::NAN } else { bump[k] - bump[(ny - 1 - j) * nx + (nx - 1 - i)] }
        })
        .collect();
    let opts = MapOptions {
        colormap: Colormap::diverging(),
        range: Some((-0.5, 0.5)),
        ..MapOptions::new("Signed field with missing data", "u [m/s]")
    };
    write_field_png(&dir.join("diverging_map.png"), &signed, nx, ny, &opts).unwrap();
    let opts = PlotOptions {
        title: "Dam break, centre line, t = 1 s".into(),
        x_label: "x [m]".into(),
        y_label: "h [m]".into(),
    };
    write_line_plot_png(&dir.join("line_plot.png"), &sample_series(), &opts).unwrap();
    let font: String = (32u8..127).map(char::from).collect();
    let opts = MapOptions::new(&font[..48], &font[48..]);
    write_field_png(&dir.join("font.png"), &[0.0, 1.0], 2, 1, &opts).unwrap();
}

/// A map in metres draws tick marks below and left of the map at the round values of its
/// extent (0 and 10 m at the corners here), and grows by the room for them.
#[test]
fn field_png_axes_in_metres() {
    let (nx, ny) = (40, 20);
    let field: Vec<f64> = (0..nx * ny).map(|k| k as f64).collect();
    let plain = MapOptions::new("plain", "q");
    let metres = MapOptions::new("metres", "q").in_metres([0.0, 10.0, 0.0, 5.0]);
    let labels = tick_labels(&[0.0, 200.0, 400.0, 600.0, 800.0], 200.0, 1);
    let (a, b) = (field_layout(nx, ny, &plain, &labels, false), field_layout(nx, ny, &metres, &labels, false));
    assert!(b.map.x > a.map.x && b.h > a.h, "no room made for the axes");
    let c = render_field(&field, nx, ny, &metres).unwrap();
    let black = crate::output::canvas::BLACK;
    let (left, bottom, right) = (b.map.x, b.map.y + b.map.h - 1, b.map.x + b.map.w - 1);
    assert_eq!(c.get(left, bottom + 2), black, "no tick at x = 0 m");
    assert_eq!(c.get(right, bottom + 2), black, "no tick at x = 10 m");
    assert_eq!(c.get(left - 3, bottom), black, "no tick at y = 0 m");
    assert_ne!(c.get(left + b.map.w / 3, bottom + 2), black, "a tick where none belongs");
    let c = render_field(&field, nx, ny, &plain).unwrap();
    assert_ne!(c.get(a.map.x, a.map.y + a.map.h + 1), black, "ticks without an extent");
}
