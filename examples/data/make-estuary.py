#!/usr/bin/env python3
"""Writes the bed of the `estuary-tide` scenario (examples/estuary-tide.toml) as an Esri ASCII
grid, with the Python standard library only, so the file can be made again anywhere and byte
for byte the same:

  estuary.asc   the estuary's bed, m: 120 × 40 cells of 50 m (6 km × 2 km), its south-west
                corner at (0, 0); the bed rises from 5 m below mean sea level at the mouth (east)
                to 2 m above it at the head (west), and a channel 300 m wide and up to 2 m deep
                meanders down its middle, fading out 1 km below the head.

Elevations are multiples of 1/256 m. Run from this directory: python3 make-estuary.py
"""
import math

NCOLS, NROWS, CELL = 120, 40, 50.0


def bed(x, y):
    floor = 2.0 - 7.0 * x / 6000.0
    centre = 1000.0 + 200.0 * math.sin(2.0 * math.pi * x / 3000.0)
    depth = 2.0 * min(1.0, max(0.0, (x - 1000.0) / 2000.0))
    d = abs(y - centre)
    channel = depth * max(0.0, 1.0 - (d / 150.0) ** 2)
    return round((floor - channel) * 256.0) / 256.0


def main():
    lines = [
        f"ncols {NCOLS}",
        f"nrows {NROWS}",
        "xllcorner 0.0",
        "yllcorner 0.0",
        f"cellsize {CELL}",
        "NODATA_value -9999",
    ]
    for r in range(NROWS):
        y = (NROWS - 1 - r + 0.5) * CELL
        lines.append(" ".join(repr(bed((c + 0.5) * CELL, y)) for c in range(NCOLS)))
    with open("estuary.asc", "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
