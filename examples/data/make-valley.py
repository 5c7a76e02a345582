#!/usr/bin/env python3
"""Writes the terrain of the `valley` scenario (examples/valley.toml), with the Python standard
library only, so the files can be made again anywhere and byte for byte the same:

  valley.tif            the valley's DEM as a GeoTIFF: one band of float32, one strip, no
                        compression; ModelPixelScaleTag, ModelTiepointTag, GeoKeyDirectoryTag
                        (PixelIsArea) and GDAL_NODATA (-9999, unused)
  valley.asc            the same DEM as an Esri ASCII grid (xllcorner/yllcorner, cellsize)
  valley-reservoir.asc  the initial water surface: a reservoir at 114 m behind a dam across
                        the valley at x = 400 m; 0 m (below every bed: dry) downstream
  valley-manning.asc    Manning's n, s/m^(1/3): 0.03 in the channel (clean, winding), 0.06 on
                        the floodplain (pasture with brush), 0.08 on the valley sides (woodland)
  valley-soil.asc       soil classes for `valley-rain`: 1 in the channel and on the floodplain
                        (a clay loam), 2 on the valley sides (a sandy loam)
  valley-rain-MM.asc    the `valley-rain` storm as rain-radar frames of 250 m cells, one every
                        10 min (MM = 00 to 60): a storm cell (60 mm/h at its centre line, over
                        light rain of 5 mm/h) crossing the valley from its head at 2.4 km/h,
                        scaled from 0.8 at the southern edge to 1.2 at the northern; each frame
                        the intensity at the middle of its 10 minutes, to 0.1 mm/h, and the last
                        (60) dry

The valley: 2 km long (x, west to east) and 1 km wide (y), cells of 20 m; its floor falls
from 110 m to 100 m (slope 0.5%) and meanders gently; a channel 40 m wide and 2 m deep in a
floodplain 400 m wide, the sides rising at 15% beyond it. Elevations are multiples of 1/256 m,
exact in float32, so the GeoTIFF and the ASCII grid hold the same numbers.

Run from this directory: python3 make-valley.py
"""
import math
import struct

NCOLS, NROWS, CELL = 100, 50, 20.0
WEST, SOUTH = 10000.0, 20000.0  # a local grid in metres; the raster's south-west corner
NODATA = -9999.0
DAM_X, RESERVOIR = 400.0, 114.0


def from_axis(x, y):
    """Distance across the valley from the channel's axis at a point (x, y)."""
    axis = 500.0 + 60.0 * math.sin(2.0 * math.pi * x / 1000.0)
    return abs(y - axis)


def bed(x, y):
    """Elevation at a point (x, y) measured from the raster's south-west corner."""
    d = from_axis(x, y)
    z = 110.0 - 0.005 * x
    if d < 20.0:
        z -= 2.0 * (1.0 - (d / 20.0) ** 2)  # the channel
    elif d > 200.0:
        z += 0.15 * (d - 200.0)  # the valley sides
    else:
        z += 0.002 * (d - 20.0)  # the floodplain, rising gently to the sides
    return round(z * 256.0) / 256.0


def rows(f):
    """The values at the cell centres, the northern row first (as both formats store them)."""
    return [[f((i + 0.5) * CELL, (NROWS - 1 - r + 0.5) * CELL) for i in range(NCOLS)] for r in range(NROWS)]


def surface(x, y):
    return RESERVOIR if x < DAM_X else 0.0


def manning(x, y):
    """Manning's n by the same zones as the bed: channel, floodplain, valley sides."""
    d = from_axis(x, y)
    return 0.03 if d < 20.0 else 0.06 if d <= 200.0 else 0.08


def soil(x, y):
    """The soil class by the same zones: channel and floodplain 1, valley sides 2."""
    return 1 if from_axis(x, y) <= 200.0 else 2


RAIN_CELL, RAIN_COLS, RAIN_ROWS = 250.0, 8, 4
STORM_PEAK, LIGHT, STORM_WIDTH, STORM_SPEED = 60.0, 5.0, 600.0, 2400.0  # mm/h, mm/h, m, m/h


def storm(minutes):
    """The rain frame holding from `minutes` for 10 minutes, the northern row first (mm/h)."""
    if minutes >= 60:
        return [[0.0] * RAIN_COLS for _ in range(RAIN_ROWS)]
    hours = (minutes + 5.0) / 60.0
    centre = -200.0 + STORM_SPEED * hours
    frame = []
    for r in range(RAIN_ROWS):
        y = (RAIN_ROWS - 1 - r + 0.5) * RAIN_CELL
        row = []
        for i in range(RAIN_COLS):
            x = (i + 0.5) * RAIN_CELL
            cell = STORM_PEAK * math.exp(-(((x - centre) / STORM_WIDTH) ** 2))
            row.append(round((LIGHT + cell) * (0.8 + 0.4 * y / 1000.0), 1))
        frame.append(row)
    return frame


def write_asc(path, values, ncols=NCOLS, nrows=NROWS, cell=CELL):
    with open(path, "w", newline="\n") as f:
        f.write(f"ncols {ncols}\nnrows {nrows}\nxllcorner {WEST}\nyllcorner {SOUTH}\ncellsize {cell}\n")
        f.write(f"NODATA_value {NODATA:g}\n")
        for row in values:
            f.write(" ".join(repr(v) for v in row) + "\n")


def write_geotiff(path, values):
    data = b"".join(struct.pack("<f", v) for row in values for v in row)
    # Tags (id, type, values): type 3 SHORT, 4 LONG, 2 ASCII, 12 DOUBLE; ascending ids.
    geokeys = [1, 1, 0, 2, 1024, 0, 1, 1, 1025, 0, 1, 1]  # model type projected, PixelIsArea
    tags = [
        (256, 4, [NCOLS]),
        (257, 4, [NROWS]),
        (258, 3, [32]),
        (259, 3, [1]),
        (262, 3, [1]),
        (273, 4, [None]),  # StripOffsets: filled in below
        (277, 3, [1]),
        (278, 4, [NROWS]),
        (279, 4, [len(data)]),
        (284, 3, [1]),
        (339, 3, [3]),  # SampleFormat: IEEE float
        (33550, 12, [CELL, CELL, 0.0]),
        (33922, 12, [0.0, 0.0, 0.0, WEST, SOUTH + NROWS * CELL, 0.0]),
        (34735, 3, geokeys),
        (42113, 2, f"{NODATA:g}\0"),
    ]
    size = {2: 1, 3: 2, 4: 4, 12: 8}
    fmt = {3: "<H", 4: "<I", 12: "<d"}
    ifd_len = 2 + 12 * len(tags) + 4
    extra_at = 8 + ifd_len  # values longer than 4 bytes follow the directory
    extra = b""
    blobs = []
    for tag, typ, vals in tags:
        blob = vals.encode("ascii") if typ == 2 else None
        count = len(vals)
        blobs.append((tag, typ, count, blob))
    # The strip goes after the directory and its long values, whose length is known first.
    long_len = sum(len(b) if b is not None else count * size[typ] for _, typ, count, b in blobs
                   if (count * size[typ]) > 4)
    long_len += long_len % 2
    strip_at = extra_at + long_len
    entries = b""
    for (tag, typ, vals), (_, _, count, blob) in zip(tags, blobs):
        if blob is None:
            blob = b"".join(struct.pack(fmt[typ], strip_at if v is None else v) for v in vals)
        if len(blob) <= 4:
            field = blob.ljust(4, b"\0")
        else:
            field = struct.pack("<I", extra_at + len(extra))
            extra += blob
            if len(extra) % 2:
                extra += b"\0"
        entries += struct.pack("<HHI", tag, typ, count) + field
    assert len(extra) == long_len, (len(extra), long_len)
    head = b"II*\0" + struct.pack("<I", 8)
    ifd = struct.pack("<H", len(tags)) + entries + struct.pack("<I", 0)
    with open(path, "wb") as f:
        f.write(head + ifd + extra + data)


if __name__ == "__main__":
    dem = rows(bed)
    write_geotiff("valley.tif", dem)
    write_asc("valley.asc", dem)
    write_asc("valley-reservoir.asc", rows(surface))
    write_asc("valley-manning.asc", rows(manning))
    write_asc("valley-soil.asc", rows(soil))
    for minutes in range(0, 61, 10):
        write_asc(f"valley-rain-{minutes:02d}.asc", storm(minutes), RAIN_COLS, RAIN_ROWS, RAIN_CELL)
