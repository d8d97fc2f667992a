#!/usr/bin/env python3
"""Draws the book's basic figures into src/figures/ (standard library only).

One function per figure. Every figure follows the convention in
theme/puzzles.css: ink in currentColor, tints through the fig-* classes,
no font below 11 units, at most 720 units wide. Run from anywhere:

    python3 tools/figures/draw_basics.py

The SVG files in src/figures/ are exactly this script's output.
"""

import re
from pathlib import Path
from xml.sax.saxutils import escape

OUT = Path(__file__).resolve().parents[2] / "src" / "figures"
MONO = "monospace"

# Each figure's title, which a browser shows on hover and a screen reader
# reads before the longer description (`aria-label`).
TITLES = {
    "hardware.svg": "Blocks on multiprocessors, warps of lanes: what a launch runs on",
    "p08_shared_barrier.svg": "Shared memory and the barrier between writing and reading it",
    "p12_scan_rounds.svg": "The rounds of a Hillis-Steele scan",
    "p14_tile_walk.svg": "The tiled matrix product: one block's walk over tiles",
    "p15_bank_conflicts.svg": "Shared memory's banks, and a padded tile that avoids conflicts",
    "p15_coalescing.svg": "A warp's reads, coalesced and strided",
    "p16_pipeline.svg": "Copy and compute, one after the other and overlapped",
}


def num(v):
    """A coordinate without a trailing .0."""
    v = round(v, 2)
    return str(int(v)) if v == int(v) else str(v)


class Svg:
    def __init__(self, width, height, label):
        assert width <= 720, width
        self.width, self.height, self.label = width, height, label
        self.items = []

    def add(self, s):
        self.items.append(s)

    def rect(self, x, y, w, h, cls=None, stroke=True, dash=None, rx=0, width=1):
        attrs = [f'x="{num(x)}" y="{num(y)}" width="{num(w)}" height="{num(h)}"']
        if rx:
            attrs.append(f'rx="{num(rx)}"')
        attrs.append(f'class="{cls}"' if cls else 'fill="none"')
        if stroke:
            attrs.append(f'stroke="currentColor" stroke-width="{num(width)}"')
        if dash:
            attrs.append(f'stroke-dasharray="{dash}"')
        self.add(f"<rect {' '.join(attrs)}/>")

    def line(self, x1, y1, x2, y2, width=1, dash=None):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.add(
            f'<line x1="{num(x1)}" y1="{num(y1)}" x2="{num(x2)}" y2="{num(y2)}" '
            f'stroke="currentColor" stroke-width="{num(width)}"{d}/>'
        )

    def arrow(self, x1, y1, x2, y2, width=1.2, dash=None, head=6):
        """A line from (x1, y1) to (x2, y2), its head a filled triangle at the end."""
        dx, dy = x2 - x1, y2 - y1
        length = (dx * dx + dy * dy) ** 0.5
        ux, uy = dx / length, dy / length
        bx, by = x2 - ux * head, y2 - uy * head
        self.line(x1, y1, bx, by, width, dash)
        px, py = -uy * head * 0.5, ux * head * 0.5
        pts = f"{num(x2)},{num(y2)} {num(bx + px)},{num(by + py)} {num(bx - px)},{num(by - py)}"
        self.add(f'<polygon points="{pts}"/>')

    def text(self, x, y, s, anchor="start", size=None, weight=None, family=None, italic=False):
        attrs = [f'x="{num(x)}" y="{num(y)}"']
        if anchor != "start":
            attrs.append(f'text-anchor="{anchor}"')
        if size:
            assert size >= 11, s
            attrs.append(f'font-size="{num(size)}"')
        if weight:
            attrs.append(f'font-weight="{weight}"')
        if family:
            attrs.append(f'font-family="{family}"')
        if italic:
            attrs.append('font-style="italic"')
        self.add(f"<text {' '.join(attrs)}>{escape(s)}</text>")

    def merged(self):
        """The items with each run of unstroked cells of one tint, side by
        side on one row, drawn as one rect: the same picture in far fewer
        elements (a grid of memory words is hundreds of cells)."""
        cell = re.compile(
            r'<rect x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="([0-9.]+)" '
            r'class="([a-z-]+)"/>$'
        )
        out, run = [], None
        for item in self.items:
            m = cell.match(item)
            if m:
                x, y, w, h = (float(v) for v in m.groups()[:4])
                if run and run[1:] == [y, h, m.group(5)] and abs(run[0][0] + run[0][1] - x) < 1e-6:
                    run[0][1] += w
                    continue
                if run:
                    out.append(self._cell(run))
                run = [[x, w], y, h, m.group(5)]
                continue
            if run:
                out.append(self._cell(run))
                run = None
            out.append(item)
        if run:
            out.append(self._cell(run))
        return out

    @staticmethod
    def _cell(run):
        (x, w), y, h, cls = run
        return (
            f'<rect x="{num(x)}" y="{num(y)}" width="{num(w)}" height="{num(h)}" '
            f'class="{cls}"/>'
        )

    def write(self, name):
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {self.width} {self.height}" '
            f'width="{self.width}" height="{self.height}" role="img" '
            f'aria-label="{escape(self.label, {chr(34): "&quot;"})}" '
            f'font-family="sans-serif" font-size="13" fill="currentColor">'
        )
        title = f"<title>{escape(TITLES[name])}</title>"
        text = "\n".join([head, title, *self.merged(), "</svg>"]) + "\n"
        assert "\n\n" not in text
        (OUT / name).write_text(text)


def hardware():
    """The grid's blocks on the multiprocessors, and the memories of a GPU."""
    s = Svg(
        720,
        552,
        "A grid of eight blocks above a GPU chip. Each block runs on one "
        "multiprocessor. Each multiprocessor holds warps of 32 lanes that run on "
        "its CUDA cores, a register file with each thread's own registers, and "
        "one on-chip shared memory and L1 cache, of which each resident block "
        "gets its own part. An L2 cache on the chip is shared by all "
        "multiprocessors, and the global memory (HBM) below the chip, off chip, "
        "is visible to every thread.",
    )
    # The grid.
    s.text(20, 18, "the grid of one launch", weight="bold")
    bw, gap, x0, y0 = 76, 10, 20, 28
    for b in range(8):
        x = x0 + b * (bw + gap)
        s.rect(x, y0, bw, 34, "fig-a", rx=3)
        s.text(x + bw / 2, y0 + 22, f"block {b}", anchor="middle")
    # The chip.
    cy, cw, ch = 120, 700, 344
    s.rect(10, cy, cw, ch, rx=8, width=1.5)
    smw, smh, smy = 200, 220, cy + 14
    sm_x = [22, 236, 450]
    for i, x in enumerate(sm_x):
        # Blocks 0, 1, 2 go to multiprocessors 0, 1, 2.
        bx = x0 + i * (bw + gap) + bw / 2
        s.arrow(bx, y0 + 34, x + smw / 2, smy - 2, width=1.4)
        s.rect(x, smy, smw, smh, "fig-soft", rx=5)
        s.text(x + 10, smy + 19, f"multiprocessor {i}", weight="bold")
        # Warps: two rows of 32 lanes.
        s.text(x + 10, smy + 40, "warps of 32 lanes", size=12)
        lane = (smw - 20) / 32
        for w in range(2):
            wy = smy + 48 + w * 16
            for l in range(32):
                s.rect(x + 10 + l * lane, wy, lane, 11, "fig-a" if w == 0 else "fig-soft", width=0.5)
        s.text(x + 10, smy + 98, "run on the CUDA cores", size=12)
        # Registers.
        s.rect(x + 10, smy + 108, smw - 20, 36, "fig-c", rx=3)
        s.text(x + smw / 2, smy + 124, "registers", anchor="middle", size=12, weight="bold")
        s.text(x + smw / 2, smy + 139, "each thread its own", anchor="middle", size=11)
        # Shared memory / L1.
        s.rect(x + 10, smy + 152, smw - 20, 56, "fig-b", rx=3)
        s.text(x + smw / 2, smy + 170, "shared memory / L1", anchor="middle", size=12, weight="bold")
        s.text(x + smw / 2, smy + 186, "one part per block,", anchor="middle", size=11)
        s.text(x + smw / 2, smy + 200, "on chip, fast", anchor="middle", size=11)
    # The other blocks wait for room; the other multiprocessors.
    s.text(462, 78, "each block runs on one multiprocessor;", size=12)
    s.text(462, 93, "blocks 3 to 7 go where there is room,", size=12)
    s.text(462, 108, "now or when a block there finishes", size=12)
    s.text(675, smy + smh / 2, "…", anchor="middle", size=22)
    # L2.
    ly = smy + smh + 14
    s.rect(22, ly, 676, 40, "fig-e", rx=4)
    s.text(360, ly + 17, "L2 cache", anchor="middle", size=12, weight="bold")
    s.text(360, ly + 33, "on chip, shared by all multiprocessors", anchor="middle", size=11)
    for x in sm_x:
        s.line(x + smw / 2, smy + smh, x + smw / 2, ly)
    s.text(22, cy + ch - 14, "GPU chip: many multiprocessors (132 on an H100)", weight="bold")
    # Global memory.
    gy = cy + ch + 26
    s.line(600, ly + 40, 600, gy)
    s.rect(10, gy, 700, 52, "fig-d", rx=6)
    s.text(360, gy + 21, "global memory (HBM)", anchor="middle", weight="bold")
    s.text(360, gy + 40, "off chip, large, slow to reach: every thread of every block", anchor="middle", size=12)
    s.write("hardware.svg")


def p08_shared_barrier():
    """Puzzle 8: two blocks of 4 threads, each with its own tile, and the barrier."""
    s = Svg(
        720,
        404,
        "Puzzle 8 with its 8 elements in 2 blocks of 4 threads. In each block, "
        "thread i copies its element of a, in global memory, into slot i of the "
        "block's own shared tile. A barrier line follows, where every thread of "
        "the block waits. After it, each thread reads its own slot of the "
        "complete tile and writes out; dashed arrows show the neighbour's slot "
        "that the next puzzles read, which only the barrier makes safe.",
    )
    cw, ch = 64, 28
    starts = [160, 440]

    def cx(b, i):
        return starts[b] + i * cw + cw / 2

    def row(y, cls, name, base):
        for b in range(2):
            for i in range(4):
                s.rect(starts[b] + i * cw, y, cw, ch, cls)
                s.text(cx(b, i), y + 19, f"{name}[{base(b, i)}]", anchor="middle", family=MONO, size=12)

    for b in range(2):
        s.text(starts[b] + 2 * cw, 15, f"block {b}: threads 0 to 3", anchor="middle", weight="bold")
    # a, in global memory.
    ya = 26
    s.text(10, ya + 19, "a, global memory")
    row(ya, "fig-d", "a", lambda b, i: 4 * b + i)
    # 1: load.
    yt = 110
    s.text(10, 74, "1  load", weight="bold")
    s.text(22, 89, "tile[local_i] =", family=MONO, size=11)
    s.text(22, 103, "a[global_i]", family=MONO, size=11)
    for b in range(2):
        for i in range(4):
            s.arrow(cx(b, i), ya + ch + 2, cx(b, i), yt - 2)
            s.text(cx(b, i) + 5, 86, f"thread {i}", size=11)
    s.text(10, yt + 19, "shared tile")
    row(yt, "fig-b", "tile", lambda b, i: i)
    # 2: the barrier.
    yb = 164
    s.text(10, yb + 5, "2  barrier", weight="bold")
    s.text(22, yb + 20, "__syncthreads()", family=MONO, size=11)
    s.text(22, yb + 34, "workgroupBarrier()", family=MONO, size=11)
    for b in range(2):
        x0 = starts[b] - 4
        s.line(x0, yb, x0 + 4 * cw + 8, yb, width=3, dash="9 5")
        s.text(starts[b] + 2 * cw, yb + 18, f"all 4 threads of block {b} wait here", anchor="middle", size=11)
    # The same tile, complete.
    yc = 206
    row(yc, "fig-b", "tile", lambda b, i: i)
    s.text(10, yc + 19, "the same tile")
    # 3: read.
    yo = 290
    s.text(10, 256, "3  read", weight="bold")
    s.text(22, 271, "out[global_i] =", family=MONO, size=11)
    s.text(22, 285, "tile[local_i] + 10", family=MONO, size=11)
    for b in range(2):
        for i in range(4):
            s.arrow(cx(b, i) - 8, yc + ch + 2, cx(b, i) - 8, yo - 2)
            if i < 3:
                s.arrow(cx(b, i + 1) + 6, yc + ch + 2, cx(b, i) + 8, yo - 2, dash="4 3")
    s.text(10, yo + 19, "out, global memory")
    row(yo, "fig-d", "out", lambda b, i: 4 * b + i)
    # Legend.
    yl = 352
    s.arrow(160, yl, 196, yl)
    s.text(204, yl + 4, "this puzzle: each thread reads the slot it wrote itself", size=12)
    s.arrow(160, yl + 22, 196, yl + 22, dash="4 3")
    s.text(204, yl + 26, "the next puzzles: a neighbour's slot, written by another thread:", size=12)
    s.text(204, yl + 42, "safe only because every thread of the block passed the barrier", size=12)
    s.write("p08_shared_barrier.svg")


def p12_scan_rounds():
    """Puzzle 12, part 1: the Hillis-Steele rounds with their two barriers."""
    s = Svg(
        720,
        500,
        "The Hillis-Steele scan of puzzle 12 on 8 slots holding 0 to 7. Each of "
        "the three rounds, with offsets 1, 2 and 4, has a read step, where thread "
        "i copies slot i minus the offset into its register left, a barrier, a "
        "write step, where thread i adds left into slot i, and another barrier. "
        "The tile goes from 0 1 2 3 4 5 6 7 to 0 1 3 5 7 9 11 13, then to "
        "0 1 3 6 10 14 18 22, then to 0 1 3 6 10 15 21 28.",
    )
    cw, ch, x0 = 54, 26, 236
    gap = 40
    tile = list(range(8))

    def cx(i):
        return x0 + i * cw + cw / 2

    def cells(y, values, classes):
        for i, (v, c) in enumerate(zip(values, classes)):
            s.rect(x0 + i * cw, y, cw, ch, c)
            s.text(cx(i), y + 18, str(v), anchor="middle", family=MONO)

    def barrier(y):
        s.text(x0 - 12, y + 4, "barrier", anchor="end", size=11, italic=True)
        s.line(x0 - 6, y, x0 + 8 * cw + 6, y, width=2.5, dash="8 5")

    y = 24
    for i in range(8):
        s.text(cx(i), y - 8, f"slot {i}", anchor="middle", size=11)
    s.text(10, y + 18, "tile after the load")
    cells(y, tile, ["fig-b"] * 8)
    for d in (1, 2, 4):
        # Read: left = tile[i - d] where i >= d, else 0.
        ly = y + ch + gap
        barrier(y + ch + gap / 2)
        left = [tile[i - d] if i >= d else 0 for i in range(8)]
        for i in range(d, 8):
            s.arrow(cx(i - d), y + ch + 1, cx(i), ly - 1, width=1)
        s.text(10, ly + 9, f"round {d.bit_length()}, offset {d}", size=12, weight="bold")
        s.text(10, ly + 24, f"read: left = tile[i - {d}]", family=MONO, size=12)
        cells(ly, left, ["fig-soft" if i < d else "fig-c" for i in range(8)])
        # Write: tile[i] += left.
        ty = ly + ch + gap
        barrier(ly + ch + gap / 2)
        for i in range(8):
            s.arrow(cx(i), ly + ch + 1, cx(i), ty - 1, width=1)
        tile = [tile[i] + left[i] for i in range(8)]
        s.text(10, ty + 18, "write: tile[i] += left", family=MONO, size=12)
        cells(ty, tile, ["fig-b"] * 8)
        y = ty
    barrier(y + ch + gap / 2)
    s.text(x0 + 4 * cw, y + ch + gap / 2 + 22, "then out[i] = tile[i]", anchor="middle", family=MONO, size=12)
    return s.write("p12_scan_rounds.svg")


def p14_tile_walk():
    """Puzzle 14, tiled: block (1, 1) walks its strips of a and b, step 1 of 3."""
    s = Svg(
        720,
        486,
        "The tiled matrix product of puzzle 14: 8 by 8 matrices, 3 by 3 tiles. "
        "Block (1, 1) owns the output tile at rows 3 to 5 and columns 3 to 5 of "
        "out. It walks along rows 3 to 5 of a and down columns 3 to 5 of b in "
        "three steps, t = 0, 1, 2; the last step's tiles reach past the matrix "
        "into a zero column and a zero row. Step t = 1 is highlighted: the tile "
        "of a at rows 3 to 5, columns 3 to 5, and the tile of b at rows 3 to 5, "
        "columns 3 to 5, are copied into a_tile and b_tile in the block's "
        "shared memory.",
    )
    c = 20
    ax, ay = 40, 270  # a
    bx, by = 270, 30  # b
    ox, oy = 270, 270  # out
    step = 1

    def grid(x, y, n=8):
        for i in range(n + 1):
            s.line(x, y + i * c, x + n * c, y + i * c, width=0.5)
            s.line(x + i * c, y, x + i * c, y + n * c, width=0.5)
        s.rect(x, y, n * c, n * c, width=1.2)

    # The strips: a's rows 3-5, b's columns 3-5, lightly tinted, and out's tile.
    s.rect(ax, ay + 3 * c, 8 * c, 3 * c, "fig-soft", stroke=False)
    s.rect(bx + 3 * c, by, 3 * c, 8 * c, "fig-soft", stroke=False)
    s.rect(ax + 3 * step * c, ay + 3 * c, 3 * c, 3 * c, "fig-a", stroke=False)
    s.rect(bx + 3 * c, by + 3 * step * c, 3 * c, 3 * c, "fig-c", stroke=False)
    s.rect(ox + 3 * c, oy + 3 * c, 3 * c, 3 * c, "fig-e", stroke=False)
    grid(ax, ay)
    grid(bx, by)
    grid(ox, oy)
    # out's tiles: a 3 x 3 grid of blocks, hanging over the edge.
    for k in (1, 2):
        s.line(ox + 3 * k * c, oy, ox + 3 * k * c, oy + 8 * c, width=1.5)
        s.line(ox, oy + 3 * k * c, ox + 8 * c, oy + 3 * k * c, width=1.5)
    s.rect(ox + 3 * c, oy + 3 * c, 3 * c, 3 * c, width=2.5)
    # The zero column of a and the zero row of b, for step 2.
    for r in range(3):
        s.rect(ax + 8 * c, ay + (3 + r) * c, c, c, dash="3 2")
        s.text(ax + 8.5 * c, ay + (3 + r) * c + 14, "0", anchor="middle", size=11)
        s.rect(bx + (3 + r) * c, by + 8 * c, c, c, dash="3 2")
        s.text(bx + (3.5 + r) * c, by + 8 * c + 14, "0", anchor="middle", size=11)
    # The three steps' tiles, outlined; step 1 thick.
    for t in range(3):
        w = 2.5 if t == step else 1.2
        s.rect(ax + 3 * t * c, ay + 3 * c, 3 * c, 3 * c, width=w)
        s.rect(bx + 3 * c, by + 3 * t * c, 3 * c, 3 * c, width=w)
        s.text(ax + (3 * t + 1.5) * c, ay + 8 * c + 17, f"t = {t}", anchor="middle", size=12,
               weight="bold" if t == step else None)
        s.text(bx + 8 * c + 26, by + (3 * t + 1.5) * c + 4, f"t = {t}", size=12,
               weight="bold" if t == step else None)
    s.text(ax + 4 * c, ay + 8 * c + 38, "a: rows 3 to 5, left to right", anchor="middle", size=12)
    s.text(bx + 4 * c, by - 10, "b: columns 3 to 5, top to bottom", anchor="middle", size=12)
    s.text(ox + 4 * c, oy + 8 * c + 17, "out: rows 3 to 5, columns 3 to 5", anchor="middle", size=12)
    s.text(ox + 4 * c, oy + 8 * c + 33, "belong to block (1, 1)", anchor="middle", size=12)
    # Shared memory, with the two tiles of step 1.
    fx, fy, fw, fh = 56, 62, 206, 128
    s.rect(fx, fy, fw, fh, rx=6, dash="5 3", width=1.2)
    s.text(fx + fw / 2, fy + 18, "shared memory, block (1, 1)", anchor="middle", size=12)
    tx_a, tx_b, ty = ax + 3 * step * c, 170, 88
    for (x, cls, name) in ((tx_a, "fig-a", "a_tile"), (tx_b, "fig-c", "b_tile")):
        s.rect(x, ty, 3 * c, 3 * c, cls, stroke=False)
        grid(x, ty, 3)
        s.text(x + 1.5 * c, ty + 3 * c + 16, name, anchor="middle", family=MONO, size=12)
    s.arrow(ax + (3 * step + 1.5) * c, ay + 3 * c - 2, tx_a + 1.5 * c, fy + fh + 1, width=1.6)
    s.arrow(bx + 3 * c - 2, by + (3 * step + 1.5) * c, tx_b + 3 * c + 2, by + (3 * step + 1.5) * c, width=1.6)
    # The walk, in words.
    x, y = 470, 290
    lines = [
        ("step t = 1 (of 0, 1, 2)", "bold", None),
        ("a_tile ← a[rows 3-5][cols 3-5]", None, None),
        ("b_tile ← b[rows 3-5][cols 3-5]", None, None),
        ("barrier", "bold", None),
        ("each thread: its row of a_tile", None, None),
        ("times its column of b_tile,", None, None),
        ("added to its running sum", None, None),
        ("barrier, then step t = 2", "bold", None),
    ]
    for i, (text, weight, family) in enumerate(lines):
        s.text(x, y + i * 19, text, size=12, weight=weight, family=family)
    s.text(x, y + 8 * 19 + 6, "t = 2 reads column 8 of a and row 8", size=11)
    s.text(x, y + 8 * 19 + 21, "of b, which do not exist: zeros", size=11)
    s.write("p14_tile_walk.svg")


def p15_coalescing():
    """Puzzle 15: one warp's 32 accesses, consecutive and strided."""
    s = Svg(
        720,
        392,
        "Two rows of a warp's 32 lanes. Above, each lane reads the next float of "
        "one row of a: the 32 four-byte accesses fill one 128-byte line, four "
        "32-byte sectors. Below, each lane writes a float of a different row of "
        "out, rows times 4 bytes apart: every access lands in a 32-byte sector of "
        "its own, in a line of its own, so 32 sectors move for 128 bytes used.",
    )
    lw, x0 = 20, 40

    def lanes(y):
        for i in range(32):
            s.rect(x0 + i * lw, y, lw, 20, "fig-a", width=0.6)
            s.text(x0 + i * lw + lw / 2, y + 14, str(i), anchor="middle", size=11)
        s.text(x0 - 6, y + 14, "lane", anchor="end", size=11)

    # Coalesced.
    s.text(x0, 18, "reading a row of a: lane i reads a[r][c0 + i], the next 4 bytes", weight="bold")
    lanes(30)
    my = 92
    for i in range(32):
        cx = x0 + i * lw + lw / 2
        s.arrow(cx, 52, cx, my - 2, width=1)
        s.rect(x0 + i * lw, my, lw, 22, "fig-c", width=0.5)
    for k in range(5):
        s.line(x0 + k * 8 * lw, my - 4, x0 + k * 8 * lw, my + 26, width=2)
    s.rect(x0, my, 32 * lw, 22, width=2)
    for k in range(4):
        s.text(x0 + (k * 8 + 4) * lw, my + 40, f"sector {k}: 32 B, all used", anchor="middle", size=11)
    s.text(x0 + 16 * lw, my + 60, "one 128-byte line, 4 sectors: 128 bytes moved for 128 used",
           anchor="middle", size=12)
    # Strided.
    s.text(x0, 196, "writing a column of out: lane i writes out[c0 + i][r], rows × 4 bytes apart",
           weight="bold")
    lanes(208)
    sy = 270
    for i in range(32):
        cx = x0 + i * lw + lw / 2
        s.arrow(cx, 230, cx, sy - 2, width=1)
        left = x0 + i * lw + 2
        s.rect(left, sy, lw - 4, 8, "fig-d", width=0.5)
        for wd in range(1, 8):
            s.rect(left, sy + wd * 8, lw - 4, 8, "fig-soft", width=0.5)
        s.rect(left, sy, lw - 4, 64, width=1.2)
    s.text(x0 + 16 * lw, sy + 84, "each box: a 32-byte sector of its own, in a line of its own; the lane uses its top 4 bytes",
           anchor="middle", size=12)
    s.text(x0 + 16 * lw, sy + 104, "32 sectors: 1 KiB moved for 128 bytes used", anchor="middle", size=12,
           weight="bold")
    s.write("p15_coalescing.svg")


def p15_bank_conflicts():
    """Puzzle 15: a column of a 32 x 32 tile in the banks, unpadded and padded."""
    s = Svg(
        720,
        470,
        "Shared memory drawn as rows of 32 four-byte words, one column per bank. "
        "Left, the tile declared tile[32][32]: each tile row fills one memory row, "
        "so reading column 0 of the tile, one word per tile row, asks bank 0 for "
        "32 different words, a 32-way conflict. Right, tile[32][33]: each tile "
        "row is 33 words long, so each row starts one bank further on, and "
        "column 0 of the tile lies on a diagonal through all 32 banks, one "
        "word each.",
    )
    c = 10
    panels = [(40, 32, "tile[32][32]"), (390, 33, "tile[32][33]")]
    gy = 58
    for px, row_len, name in panels:
        s.text(px + 16 * c, 16, name, anchor="middle", family=MONO, weight="bold")
        for b in (0, 8, 16, 24, 31):
            s.text(px + b * c + c / 2, gy - 8, str(b), anchor="middle", size=11)
        s.text(px + 16 * c, 34, "banks", anchor="middle", size=11)
        words = 32 * row_len
        mem_rows = (words + 31) // 32
        for w in range(words):
            r, col = divmod(w, row_len)
            mr, bank = divmod(w, 32)
            x, y = px + bank * c, gy + mr * c
            if col == 0:
                cls = "fig-d"
            elif col == 32:
                cls = None  # the padding word, never used
            else:
                cls = "fig-soft" if r % 2 == 0 else "none"
            if cls == "fig-d":
                s.rect(x, y, c, c, cls, width=0.8)
            elif cls == "fig-soft":
                s.rect(x, y, c, c, cls, stroke=False)
            elif cls == "none":
                pass
            else:
                s.rect(x, y, c, c, dash="2 2", width=0.5)
        for k in range(mem_rows + 1):
            s.line(px, gy + k * c, px + 32 * c, gy + k * c, width=0.3)
        for k in range(33):
            s.line(px + k * c, gy, px + k * c, gy + mem_rows * c, width=0.3)
        s.rect(px, gy, 32 * c, mem_rows * c, width=1)
    s.text(34, gy + 8, "0", anchor="end", size=11)
    s.text(34, gy + 32 * c - 2, "31", anchor="end", size=11)
    by = gy + 33 * c + 22
    s.text(40 + 16 * c, by, "column 0: all 32 words in bank 0", anchor="middle", size=12)
    s.text(40 + 16 * c, by + 17, "32-way conflict, 32 passes", anchor="middle", size=12, weight="bold")
    s.text(390 + 16 * c, by, "column 0: one word in each bank", anchor="middle", size=12)
    s.text(390 + 16 * c, by + 17, "no conflict, 1 pass", anchor="middle", size=12, weight="bold")
    ly = by + 36
    s.rect(40, ly, 12, 12, "fig-d", stroke=False)
    s.text(58, ly + 11, "column 0 of the tile, read by one warp", size=12)
    s.rect(330, ly, 12, 12, "fig-soft", width=0.5)
    s.rect(342, ly, 12, 12, width=0.5)
    s.text(360, ly + 11, "tile rows, alternately", size=12)
    s.rect(520, ly, 12, 12, dash="2 2", width=0.5)
    s.text(538, ly + 11, "padding, never used", size=12)
    s.write("p15_bank_conflicts.svg")


def p16_pipeline():
    """Puzzle 16: tile after tile, and double buffering, on one time axis."""
    load, comp, unit, x0 = 3, 2, 25, 182
    s = Svg(
        720,
        318,
        "Two timelines for one block convolving four tiles. Above, part 3's "
        "loop: copy a tile, barrier, compute, barrier, and only then copy the "
        "next tile, so copies and computation take turns and the four tiles "
        "take 20 units of time. Below, part 4's double buffering: tiles 0 and "
        "1 are copied into buffers 0 and 1 at once, and each later copy starts "
        "while the previous tile is being computed, so the computation runs "
        "almost without waiting and the four tiles take 12 units.",
    )

    def t(u):
        return x0 + u * unit

    def bar(u0, u1, y, cls, label):
        s.rect(t(u0), y, (u1 - u0) * unit, 24, cls, rx=3)
        s.text((t(u0) + t(u1)) / 2, y + 16, label, anchor="middle", size=12)

    def tick(u, y):
        s.line(t(u), y - 5, t(u), y + 29, width=2.5)

    s.text(10, 18, "Part 3, tile after tile: one buffer, copy and computation take turns", weight="bold")
    y = 30
    s.text(10, y + 16, "one block", size=12)
    for k in range(4):
        u = k * (load + comp)
        bar(u, u + load, y, "fig-b", f"copy {k}")
        bar(u + load, u + load + comp, y, "fig-c", f"tile {k}")
        tick(u + load, y)
        tick(u + load + comp, y)
    s.text(t(20) + 6, y + 16, "20", size=12, weight="bold")

    s.text(10, 104, "Part 4, double buffering: the copy of the next tile runs during the computation",
           weight="bold")
    rows = {"buf0": 116, "buf1": 146, "comp": 176}
    s.text(10, rows["buf0"] + 16, "copies into buffer 0", size=12)
    s.text(10, rows["buf1"] + 16, "copies into buffer 1", size=12)
    s.text(10, rows["comp"] + 16, "computation", size=12)
    # Copies: tiles 0 and 1 start together; tile n + 2 starts when tile n's round begins.
    copies = {0: 0, 1: 0}
    compute = {}
    free = 0
    for n in range(4):
        start = max(free, copies[n] + load)
        compute[n] = start
        free = start + comp
        if n + 2 < 4:
            copies[n + 2] = free  # issued at the top of round n + 1
    for n, u in copies.items():
        bar(u, u + load, rows["buf0" if n % 2 == 0 else "buf1"], "fig-b", f"copy {n}")
    for n, u in compute.items():
        bar(u, u + comp, rows["comp"], "fig-c", f"tile {n}")
        tick(u, rows["comp"])
        tick(u + comp, rows["comp"])
    end = free
    s.text(t(end) + 6, rows["comp"] + 16, str(end), size=12, weight="bold")
    # The time axis.
    ay = 226
    s.arrow(t(0), ay, t(20) + 24, ay)
    for u in range(0, 21, 2):
        s.line(t(u), ay - 4, t(u), ay + 4)
        s.text(t(u), ay + 18, str(u), anchor="middle", size=11)
    s.text(10, ay + 4, "time (illustrative units)", size=12)
    # Legend.
    ly = 268
    s.rect(x0, ly, 24, 16, "fig-b", rx=3)
    s.text(x0 + 30, ly + 12, "copy of a tile into shared memory", size=12)
    s.rect(x0 + 250, ly, 24, 16, "fig-c", rx=3)
    s.text(x0 + 280, ly + 12, "convolution of a tile", size=12)
    s.line(x0 + 6, ly + 26, x0 + 6, ly + 46, width=2.5)
    s.text(x0 + 30, ly + 41, "barrier", size=12)
    s.write("p16_pipeline.svg")


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    hardware()
    p08_shared_barrier()
    p12_scan_rounds()
    p14_tile_walk()
    p15_coalescing()
    p15_bank_conflicts()
    p16_pipeline()


if __name__ == "__main__":
    main()
