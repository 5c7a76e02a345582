use super::map::{MIN_LONG_SIDE, downsample, field_layout, render_field};
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
fn time_maps_read_in_the_unit_of_their_span() {
    for (span, unit, per) in [
        (0.5, "s", 1.0),
        (180.0, "s", 1.0),
        (181.0, "min", 60.0),
        (7200.0, "min", 60.0),
        (18000.0, "h", 3600.0),
        (89_424.0, "h", 3600.0),
        (3.0 * 86400.0 + 1.0, "d", 86400.0),
    ] {
        assert_eq!(time_unit(span), (unit, per), "a span of {span} s");
    }
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
    let lay = field_layout(nx, ny, &opts, &tick_labels(&[0.0, 2.5, 5.0, 7.5, 10.0], 2.5, 1), 0);
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
    // Unset by design ("never arrived"): grey, and no magenta anywhere, key included.
    let never = MapOptions { unset: Some("never arrived"), ..opts.clone() };
    let c = render_field(&bad, 37, 23, &never).unwrap();
    let count =
        |color| (0..c.h).flat_map(|y| (0..c.w).map(move |x| (x, y))).filter(|&(x, y)| c.get(x, y) == color).count();
    assert_eq!(count(NAN_COLOR), 0);
    // Three cells of at least one pixel, and the key's swatch.
    assert!(count(UNSET_COLOR) > 3, "{} grey pixels", count(UNSET_COLOR));
    // The key's longer name fits: the margin on the right stays blank.
    assert!((0..c.h).all(|y| c.get(c.w - 1, y) == crate::output::canvas::WHITE), "the key runs off the picture");
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
    let opts = MapOptions::new("m² s⁻¹ θ ζ η Δt h − h₀ → ↑ ° ± √ ≈", "αβγδε");
    write_field_png(&dir.join("font_unicode.png"), &[0.0, 1.0], 2, 1, &opts).unwrap();
    // Water over a hillshaded hill, dry where the hill rises above it, on a square-root scale.
    let hill: Vec<f64> = (0..nx * ny)
        .map(|k| {
            let (x, y) = ((k % nx) as f64 / nx as f64 * 3.0, (k / nx) as f64 / ny as f64 * 2.0);
            2.0 * (-((x - 2.0).powi(2) + (y - 1.0).powi(2)) / 0.2).exp() + 0.3 * x
        })
        .collect();
    let depth: Vec<f64> = hill.iter().map(|b| (1.2 - b).max(0.0)).collect();
    let dry: Vec<bool> = depth.iter().map(|&d| d <= 0.0).collect();
    let opts = MapOptions {
        range: Some((0.0, 1.2)),
        scale: Scale::Sqrt,
        ..MapOptions::new("Water over a hill, t = 0 s", "h [m]").in_metres([0.0, 300.0, 0.0, 200.0])
    };
    let pic = render_map(&depth, nx, ny, &opts, Some(&Ground { bed: &hill, dry: &dry })).unwrap();
    pic.write_png(&dir.join("ground_map.png")).unwrap();
    // Profiles of 40 snapshots over a bed, coloured by time.
    let x: Vec<f64> = (0..200).map(|k| k as f64 * 0.5).collect();
    let bed: Vec<f64> = x.iter().map(|&x| 0.5 * (-((x - 70.0) / 10.0).powi(2)).exp()).collect();
    let curves = (0..40)
        .map(|n| {
            (
                n as f64 * 0.1,
                x.iter().map(|&x| 1.0 + 0.3 * (-((x - 20.0 - 1.5 * n as f64) / 8.0).powi(2)).exp()).collect(),
            )
        })
        .collect();
    let initial = Series {
        name: "t = 0 s".into(),
        x: x.clone(),
        y: x.iter().map(|&x| 1.0 + 0.3 * (-((x - 20.0) / 8.0).powi(2)).exp()).collect(),
        color: [0, 0, 0],
        dashed: true,
    };
    let p = Profiles {
        x,
        curves,
        times: (0.0, 4.0),
        time_label: "t [s]".into(),
        references: vec![initial],
        bed: Some(bed),
    };
    let opts = PlotOptions {
        title: "A hump over a bar, centre line".into(),
        x_label: "x [m]".into(),
        y_label: "η [m]".into(),
    };
    write_profiles_png(&dir.join("profiles.png"), &p, &opts).unwrap();
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
    let (a, b) = (field_layout(nx, ny, &plain, &labels, 0), field_layout(nx, ny, &metres, &labels, 0));
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

/// Where cell (i, j) of a map is drawn: its middle pixel.
fn cell_px(lay: &super::map::FieldLayout, i: usize, j: usize) -> (usize, usize) {
    let s = lay.scale;
    (lay.map.x + i * s + s / 2, lay.map.y + (lay.my - 1 - j) * s + s / 2)
}

/// Two snapshots with one range: a value has one colour in both, whatever else each holds;
/// with the data's own range (the former behaviour) it would not.
#[test]
fn a_fixed_range_gives_a_value_one_colour_at_every_time() {
    let (nx, ny) = (20, 10);
    // Cell (5, 5) holds 2 m at both times; the rest spans 0 to 4 m early and 0 to 9 m late.
    let early: Vec<f64> = (0..nx * ny).map(|k| [2.0, 0.0, 4.0][k % 3]).collect();
    let late: Vec<f64> = (0..nx * ny).map(|k| [2.0, 0.0, 9.0][k % 3]).collect();
    assert_eq!((early[5 * nx + 5], late[5 * nx + 5]), (2.0, 2.0));
    let fixed = MapOptions { range: Some((0.0, 10.0)), ..MapOptions::new("t", "h [m]") };
    let own = MapOptions::new("t", "h [m]");
    let colour = |field: &[f64], opts: &MapOptions| {
        let pic = render_map(field, nx, ny, opts, None).unwrap();
        let lay = field_layout(nx, ny, opts, &[], 0);
        let (x, y) = cell_px(&lay, 5, 5);
        pic.pixel(x, y)
    };
    assert_eq!(colour(&early, &fixed), colour(&late, &fixed));
    assert_eq!(colour(&early, &fixed), fixed.colormap.rgb(0.2));
    assert_ne!(colour(&early, &own), colour(&late, &own), "the test cannot tell a fixed range from a rescaled one");
    // On a square-root scale, a quarter of the range is half-way up the colormap.
    let sqrt = MapOptions { scale: Scale::Sqrt, ..fixed.clone() };
    let quarter = vec![2.5; nx * ny];
    assert_eq!(colour(&quarter, &sqrt), fixed.colormap.rgb(0.5));
}

/// Dry cells are land whatever they hold, left out of the colour range and keyed "dry"; wet
/// cells on a flat bed keep their exact colormap colour.
#[test]
fn dry_cells_are_drawn_as_land() {
    let (nx, ny) = (16, 8);
    // Deep water in the west half; the east half is dry but holds a huge value (a film, or
    // garbage) that must neither show nor stretch the range.
    let dry: Vec<bool> = (0..nx * ny).map(|k| k % nx >= nx / 2).collect();
    let h: Vec<f64> = (0..nx * ny).map(|k| if dry[k] { 1e6 } else { (k % nx) as f64 }).collect();
    let bed = vec![0.0; nx * ny];
    let opts = MapOptions::new("depth", "h [m]").in_metres([0.0, 16.0, 0.0, 8.0]);
    let ground = Ground { bed: &bed, dry: &dry };
    let pic = render_map(&h, nx, ny, &opts, Some(&ground)).unwrap();
    let lay = field_layout(nx, ny, &opts, &tick_labels(&[0.0, 1.75, 3.5, 5.25, 7.0], 1.75, 1), 1);
    let at = |i, j| {
        let (x, y) = cell_px(&lay, i, j);
        pic.pixel(x, y)
    };
    assert_eq!(at(12, 3), LAND);
    assert_eq!(at(15, 0), LAND);
    // The range is the wet cells' own, 0 to 7: cell 7 is the top colour, cell 0 the bottom.
    assert_eq!(at(7, 3), opts.colormap.rgb(1.0));
    assert_eq!(at(0, 3), opts.colormap.rgb(0.0));
    // A sloping bed shades the land, lit from the north-west: a bed rising to the east faces
    // west, into the light's western half, and is lighter than flat land.
    let slope: Vec<f64> = (0..nx * ny).map(|k| (k % nx) as f64).collect();
    let lit = render_map(&h, nx, ny, &opts, Some(&Ground { bed: &slope, dry: &dry })).unwrap();
    let (x, y) = cell_px(&lay, 12, 3);
    assert!(
        lit.pixel(x, y).iter().zip(LAND).all(|(a, b)| *a > b),
        "{:?} is not lighter than {LAND:?}",
        lit.pixel(x, y)
    );
    // Ground of the wrong size is an error, not a panic.
    assert!(render_map(&h, nx, ny, &opts, Some(&Ground { bed: &bed[1..], dry: &dry })).is_err());
}

/// Cells with no value and no bed (outside the domain) are the key's grey, unshaded, over a
/// sloping bed that shades their neighbours; with a bed there they would take its relief.
#[test]
fn cells_without_a_bed_are_the_keys_grey() {
    let (nx, ny) = (16, 8);
    let outside = |k: usize| k % nx >= 12;
    let h: Vec<f64> = (0..nx * ny).map(|k| if outside(k) { f64::NAN } else { 1.0 + (k % nx) as f64 }).collect();
    let slope: Vec<f64> = (0..nx * ny).map(|k| 3.0 * (k % nx) as f64).collect();
    let no_bed: Vec<f64> = (0..nx * ny).map(|k| if outside(k) { f64::NAN } else { slope[k] }).collect();
    let dry = vec![false; nx * ny];
    let opts = MapOptions { unset: Some("no data"), ..MapOptions::new("depth", "h [m]") };
    let colour = |bed: &[f64], i, j| {
        let pic = render_map(&h, nx, ny, &opts, Some(&Ground { bed, dry: &dry })).unwrap();
        let lay = field_layout(nx, ny, &opts, &[], 1);
        let (x, y) = cell_px(&lay, i, j);
        pic.pixel(x, y)
    };
    for (i, j) in [(12, 0), (14, 3), (15, 7)] {
        assert_eq!(colour(&no_bed, i, j), UNSET_COLOR, "cell ({i}, {j})");
    }
    assert_ne!(colour(&slope, 14, 3), UNSET_COLOR, "the test cannot tell a shaded grey from the key's");
}

#[test]
fn values_beyond_a_fixed_range_are_marked_on_the_bar() {
    let opts = MapOptions { range: Some((0.0, 1.0)), ..MapOptions::new("t", "q") };
    let inside = render_map(&[0.2, 0.8], 2, 1, &opts, None).unwrap();
    let beyond = render_map(&[-0.5, 1.5], 2, 1, &opts, None).unwrap();
    // "≥ 1.00" and "≤ 0.00" are wider than "1.00" and "0.00": the picture grows.
    assert!(beyond.width() > inside.width());
}

/// A picture of one colour, `w` × `h` pixels.
fn flat_picture(w: usize, h: usize, rgb: [u8; 3]) -> Picture {
    Picture(crate::output::canvas::Canvas::new(w, h, rgb))
}

/// Decode a GIF with the `gif` crate: (width, height, RGBA frames).
fn decode_gif(bytes: &[u8]) -> (usize, usize, Vec<Vec<u8>>) {
    let mut opts = ::gif::DecodeOptions::new();
    opts.set_color_output(::gif::ColorOutput::RGBA);
    let mut d = opts.read_info(bytes).unwrap();
    let (w, h) = (d.width() as usize, d.height() as usize);
    let mut frames = Vec::new();
    while let Some(f) = d.read_next_frame().unwrap() {
        assert_eq!((f.width as usize, f.height as usize), (w, h), "every frame covers the picture");
        frames.push(f.buffer.to_vec());
    }
    (w, h, frames)
}

#[test]
fn animation_decodes_with_every_frame() {
    use crate::output::anim::{Animation, MAX_FRAMES};
    let mut a = Animation::new();
    assert!(a.encode_gif().is_err(), "an empty animation is an error");
    // Frames of different sizes: the animation is the largest, the others on white.
    // The middle frame has far more than 256 colours: the palette is fitted, not exact.
    let mut ramp = crate::output::canvas::Canvas::new(60, 20, [0, 0, 0]);
    for k in 0..60 * 20 {
        ramp.put((k % 60) as i64, (k / 60) as i64, [(k % 256) as u8, (k / 256 * 40) as u8, 90]);
    }
    let pics = [flat_picture(30, 20, [200, 30, 30]), Picture(ramp), flat_picture(30, 20, [200, 30, 30])];
    let (w, h) = (pics.iter().map(|p| p.width()).max().unwrap(), pics.iter().map(|p| p.height()).max().unwrap());
    for p in &pics {
        a.push(p.clone());
    }
    let (gw, gh, frames) = decode_gif(&a.encode_gif().unwrap());
    assert_eq!((gw, gh, frames.len()), (w, h, 3));
    // One palette for all frames: the same colour decodes the same in the first and last frame,
    // and close to what was drawn.
    let px = |f: &[u8], x: usize, y: usize| [f[4 * (y * w + x)], f[4 * (y * w + x) + 1], f[4 * (y * w + x) + 2]];
    let (x, y) = (pics[0].width() / 2, pics[0].height() / 2);
    assert_eq!(px(&frames[0], x, y), px(&frames[2], x, y));
    let near = |a: [u8; 3], b: [u8; 3]| a.iter().zip(b).all(|(p, q)| p.abs_diff(q) <= 12);
    assert!(
        near(px(&frames[0], x, y), pics[0].pixel(x, y)),
        "{:?} against {:?}",
        px(&frames[0], x, y),
        pics[0].pixel(x, y)
    );
    assert!(near(px(&frames[0], w - 1, h - 1), [255, 255, 255]), "a smaller frame sits on white");

    // A long run keeps at most MAX_FRAMES evenly spaced frames, and ends on its last snapshot.
    let mut long = Animation::new();
    let small = flat_picture(2, 2, [0, 0, 0]);
    let last = flat_picture(2, 2, [255, 0, 0]);
    for _ in 0..2 * MAX_FRAMES + 6 {
        long.push(small.clone());
    }
    long.push(last.clone());
    assert!(long.len() <= MAX_FRAMES + 1 && long.len() > MAX_FRAMES / 2, "{} frames", long.len());
    let (lw, _, frames) = decode_gif(&long.encode_gif().unwrap());
    assert_eq!(frames.len(), long.len());
    let (cx, cy) = (last.width() / 2, last.height() / 2);
    let f = frames.last().unwrap();
    let end = [f[4 * (cy * lw + cx)], f[4 * (cy * lw + cx) + 1], f[4 * (cy * lw + cx) + 2]];
    assert!(near(end, [255, 0, 0]), "the last frame is the last snapshot: {end:?}");
}

/// Profiles of 60 snapshots: coloured by time under a colour bar, the legend holding only the
/// references and the bed; the bed fills the ground.
#[test]
fn profiles_colour_by_time_and_keep_a_short_legend() {
    use super::plot::render_profiles;
    let x: Vec<f64> = (0..50).map(|k| k as f64).collect();
    let curves: Vec<(f64, Vec<f64>)> =
        (0..60).map(|n| (n as f64, x.iter().map(|&x| 2.0 + (x * 0.1 + n as f64).sin()).collect())).collect();
    let reference = Series { name: "t = 0 s".into(), x: x.clone(), y: vec![2.0; 50], color: [0, 0, 0], dashed: true };
    let p = Profiles {
        x: x.clone(),
        curves,
        times: (0.0, 59.0),
        time_label: "t [s]".into(),
        references: vec![reference],
        bed: Some(x.iter().map(|&x| 0.02 * x).collect()),
    };
    let opts = PlotOptions { title: "θ, m²".into(), x_label: "x [m]".into(), y_label: "η [m]".into() };
    let c = render_profiles(&p, &opts).unwrap();
    assert_eq!((c.w, c.h), (PLOT_W, PLOT_H));
    let count = |rgb: [u8; 3]| {
        (0..c.h).flat_map(|y| (0..c.w).map(move |x| (x, y))).filter(|&(x, y)| c.get(x, y) == rgb).count()
    };
    let viridis = Colormap::viridis();
    // The last curve (t = 59 s) and the first (t = 0) in the ends of the time colours.
    assert!(count(viridis.rgb(0.85)) > 100, "the last curve or the bar's top is missing");
    assert!(count(viridis.rgb(0.0)) > 50, "the first curve or the bar's bottom is missing");
    assert!(count(super::plot::BED) > 50, "the bed's line");
    // The legend lists the reference and the bed, not 60 times: its frame is two rows high.
    let frame = [150, 150, 150];
    let rows = (0..c.h).filter(|&y| (0..c.w).any(|x| c.get(x, y) == frame)).count();
    assert!(rows < 3 * 25 + 20, "a legend frame over {rows} rows");
    let bad = Profiles { times: (1.0, 0.0), ..p };
    assert!(render_profiles(&bad, &opts).is_err());
}

/// A plain line plot of many curves caps its legend at LEGEND_ROWS rows.
#[test]
fn a_long_legend_is_cut_short() {
    let x: Vec<f64> = (0..10).map(f64::from).collect();
    let series: Vec<Series> = (0..40)
        .map(|k| Series {
            name: format!("t = {k} s"),
            x: x.clone(),
            y: vec![k as f64; 10],
            color: [k as u8, 0, 0],
            dashed: false,
        })
        .collect();
    let c = super::plot::render_line_plot(&series, &PlotOptions::default()).unwrap();
    let frame = [150, 150, 150];
    let rows = (0..c.h).filter(|&y| (0..c.w).any(|x| c.get(x, y) == frame)).count();
    // Uncut, 40 rows of 25 pixels would fill the picture; a few stray pixels of the frame's grey
    // in the anti-aliased text are allowed for.
    assert!(rows <= LEGEND_ROWS * (crate::output::canvas::TEXT_H + 8) + 30, "a legend frame over {rows} rows");
}

/// Block means for maps of large grids, against a plain loop: blocks cut off at the right and
/// top edges, non-finite cells left out, a block of them NaN.
#[test]
fn downsampling_averages_the_finite_cells_of_each_block() {
    for (nx, ny, stride) in [(7usize, 5usize, 2usize), (9, 9, 3), (4, 6, 1), (300, 130, 4)] {
        let field: Vec<f64> =
            (0..nx * ny).map(|k| if k % 11 == 3 { f64::NAN } else { (k as f64 * 0.7).sin() }).collect();
        let (mx, my) = (nx.div_ceil(stride), ny.div_ceil(stride));
        let mut plain = Vec::new();
        for bj in 0..my {
            for bi in 0..mx {
                let mut v = Vec::new();
                for j in bj * stride..((bj + 1) * stride).min(ny) {
                    for i in bi * stride..((bi + 1) * stride).min(nx) {
                        if field[j * nx + i].is_finite() {
                            v.push(field[j * nx + i]);
                        }
                    }
                }
                plain.push(if v.is_empty() { f64::NAN } else { v.iter().sum::<f64>() / v.len() as f64 });
            }
        }
        let got = downsample(&field, nx, ny, stride);
        assert_eq!(got.len(), plain.len());
        for (a, b) in got.iter().zip(&plain) {
            assert!(a == b || (a.is_nan() && b.is_nan()), "{nx}×{ny} by {stride}: {a} vs {b}");
        }
    }
}

/// A map's tick labels never overlap, whatever the grid's shape: a 1000 × 1 grid's map is a
/// line of pixels with its labels up the side, a 1 × 1000 grid's a column with its labels
/// below; each keeps as many ticks as its labels leave room for (at least one).
#[test]
fn tick_labels_keep_apart_at_any_aspect_ratio() {
    use super::map::tick_texts;
    use crate::output::canvas::{TEXT_H, text_width};
    let shapes =
        [(1000, 1, [0.0, 1000.0, 0.0, 1.0]), (1, 1000, [0.0, 1.0, 0.0, 1000.0]), (3000, 7, [0.0, 3e5, 0.0, 700.0])]
            .into_iter()
            .chain([(600, 2, [500000.0, 500600.0, 4.2e6, 4.2e6 + 2.0]), (256, 256, [0.0, 40.0, 0.0, 40.0])]);
    for (nx, ny, extent) in shapes {
        let opts = MapOptions::new("map", "h [m]").in_metres(extent);
        let labels = tick_labels(&[0.0, 0.25, 0.5, 0.75, 1.0], 0.25, 1);
        let lay = field_layout(nx, ny, &opts, &labels, 0);
        let texts = tick_texts(&lay);
        let (xa, ya) = lay.axes.as_ref().unwrap();
        assert!(!xa.ticks.is_empty() && !ya.ticks.is_empty(), "{nx}×{ny}: an axis without a label");
        let boxes: Vec<(usize, usize, usize, usize)> =
            texts.iter().map(|&(x, y, t)| (x, y, x + text_width(t), y + TEXT_H)).collect();
        for (a, p) in boxes.iter().enumerate() {
            for q in &boxes[a + 1..] {
                let apart = p.2 <= q.0 || q.2 <= p.0 || p.3 <= q.1 || q.3 <= p.1;
                assert!(apart, "{nx}×{ny}: tick labels overlap: {p:?} and {q:?} ({texts:?})");
            }
        }
        // Every label inside the picture.
        for b in &boxes {
            assert!(b.2 <= lay.w && b.3 <= lay.h, "{nx}×{ny}: a label outside the picture: {b:?}");
        }
        // A square map keeps its usual ticks.
        if nx == ny {
            assert!(xa.ticks.len() >= 4 && ya.ticks.len() >= 4, "{nx}×{ny}: ticks thinned: {texts:?}");
        }
        let field = vec![1.0; nx * ny];
        render_field(&field, nx, ny, &opts).unwrap();
    }
}

/// Projected coordinates (a UTM northing of 4 100 000 m) are labelled in kilometres with the
/// decimals their ticks need, never in scientific notation, and the axis title says km; local
/// coordinates stay in metres. The ticks themselves stay in metres, where the map's cells are.
#[test]
fn projected_coordinates_read_in_kilometres() {
    use super::map::axis_title;
    let opts = MapOptions::new("valley", "h [m]").in_metres([500_000.0, 502_000.0, 4_100_000.0, 4_101_000.0]);
    let lay = field_layout(200, 100, &opts, &tick_labels(&[0.0, 1.0], 1.0, 1), 0);
    let (xa, ya) = lay.axes.as_ref().unwrap();
    for a in [xa, ya] {
        assert!(a.km && a.labels.iter().all(|l| !l.contains('e')), "{:?}", a.labels);
        for (t, l) in a.ticks.iter().zip(&a.labels) {
            assert!((l.parse::<f64>().unwrap() * 1000.0 - t).abs() < 1e-6 * t.abs(), "{l} for {t} m");
        }
    }
    assert!(ya.labels.iter().any(|l| l.starts_with("4100")), "{:?}", ya.labels);
    assert_eq!(axis_title("y [m]", ya), "y [km]");
    let local = MapOptions::new("flood", "h [m]").in_metres([0.0, 100.0, 0.0, 100.0]);
    let lay = field_layout(64, 64, &local, &tick_labels(&[0.0, 1.0], 1.0, 1), 0);
    let (xa, _) = lay.axes.as_ref().unwrap();
    assert!(!xa.km && axis_title("x [m]", xa) == "x [m]" && xa.labels.contains(&"100".to_string()), "{:?}", xa.labels);
}

/// A colour bar on a square-root scale says so in its label; a linear one adds nothing.
#[test]
fn a_non_linear_colour_bar_states_its_scale() {
    use super::map::bar_label;
    let mut opts = MapOptions::new("flood", "h [m]");
    assert_eq!(bar_label(&opts), "h [m]");
    opts.scale = Scale::Sqrt;
    assert_eq!(bar_label(&opts), "h [m] (√ scale)");
}
