#!/usr/bin/env python3
"""Draws the figures of the advanced chapters (Puzzles 19, 34 and 36, and the
warp figure of Part IV) as SVG files under src/figures/.

Run from anywhere: `python3 tools/figures/draw_tensor.py`. The committed SVGs
are exactly this script's output. Every map drawn is computed from the
formulas of the kernel it illustrates (copied below next to the file they
come from), and the script asserts what the chapter says of them, so a figure
cannot quietly disagree with its kernel.

Conventions (theme/puzzles.css, `.book-figure`): ink is currentColor, so text
and strokes follow the theme; tinted areas carry the classes fig-soft and
fig-a to fig-e; no font smaller than 11 viewBox units; no blank lines.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "src", "figures")

# Width of a character, in ems, used to keep labels apart and inside their
# boxes: a little over DejaVu Sans's average on text like this (0.47 em; Arial
# and Liberation Sans, 0.41). An estimate only: the figures were also
# measured in Chromium, set in Liberation Sans and in DejaVu Sans.
CHAR_EM = 0.5


def fmt(v):
    """A coordinate without trailing zeros."""
    if isinstance(v, int) or float(v).is_integer():
        return str(int(v))
    return ("%.2f" % v).rstrip("0").rstrip(".")


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


class Svg:
    """An SVG under construction, with a check that no two labels overlap."""

    def __init__(self, width, height, label):
        assert width <= 720, "figures are at most 720 units wide"
        self.width, self.height, self.label = width, height, label
        self.items = []
        self.boxes = []

    def rect(self, x, y, w, h, cls=None, stroke=1.0, dash=None, rx=None):
        a = 'x="%s" y="%s" width="%s" height="%s"' % (fmt(x), fmt(y), fmt(w), fmt(h))
        if rx:
            a += ' rx="%s"' % fmt(rx)
        if cls:
            # The fill-opacity is a fallback for the file seen on its own; in
            # the book the class sets both the tint and its opacity.
            a += ' class="%s" fill-opacity="0.15"' % cls
        else:
            a += ' fill="none"'
        if stroke:
            a += ' stroke="currentColor" stroke-width="%s"' % fmt(stroke)
            if dash:
                a += ' stroke-dasharray="%s"' % dash
        self.items.append("<rect %s/>" % a)

    def line(self, x1, y1, x2, y2, width=1.0, dash=None):
        a = 'x1="%s" y1="%s" x2="%s" y2="%s" stroke="currentColor" stroke-width="%s"' % (
            fmt(x1), fmt(y1), fmt(x2), fmt(y2), fmt(width))
        if dash:
            a += ' stroke-dasharray="%s"' % dash
        self.items.append("<line %s/>" % a)

    def arrow(self, points, width=1.2, dash=None, head=7.0):
        """A polyline whose last segment ends in a filled arrowhead."""
        (x1, y1), (x2, y2) = points[-2], points[-1]
        dx, dy = x2 - x1, y2 - y1
        n = (dx * dx + dy * dy) ** 0.5
        ux, uy = dx / n, dy / n
        # The line stops inside the head, so its end does not poke out.
        body = points[:-1] + [(x2 - ux * head * 0.8, y2 - uy * head * 0.8)]
        a = 'points="%s" fill="none" stroke="currentColor" stroke-width="%s"' % (
            " ".join("%s,%s" % (fmt(x), fmt(y)) for x, y in body), fmt(width))
        if dash:
            a += ' stroke-dasharray="%s"' % dash
        self.items.append("<polyline %s/>" % a)
        bx, by = x2 - ux * head, y2 - uy * head
        px, py = -uy * head * 0.45, ux * head * 0.45
        self.items.append('<polygon points="%s,%s %s,%s %s,%s"/>' % (
            fmt(x2), fmt(y2), fmt(bx + px), fmt(by + py), fmt(bx - px), fmt(by - py)))

    def text(self, x, y, s, anchor="middle", size=13, weight=None, mono=False, check=True):
        """Text whose baseline is at y. Size in viewBox units, never below 11."""
        assert size >= 11, "no text below 11 units"
        a = 'x="%s" y="%s"' % (fmt(x), fmt(y))
        if anchor != "start":
            a += ' text-anchor="%s"' % anchor
        if size != 13:
            a += ' font-size="%s"' % fmt(size)
        if weight:
            a += ' font-weight="%s"' % weight
        if mono:
            a += ' font-family="monospace"'
        self.items.append("<text %s>%s</text>" % (a, esc(s)))
        if check:
            w = len(s) * size * (0.62 if mono else CHAR_EM)
            left = {"start": x, "middle": x - w / 2, "end": x - w}[anchor]
            # From the top of the capitals to the bottom of the descenders.
            self.boxes.append((s, left, y - size * 0.78, left + w, y + size * 0.22))

    def mid(self, x, y, s, size=13, **kw):
        """Text centred on the point (x, y)."""
        self.text(x, y + size * 0.36, s, size=size, **kw)

    def render(self):
        for i, (a, l1, t1, r1, b1) in enumerate(self.boxes):
            for b, l2, t2, r2, b2 in self.boxes[i + 1:]:
                if min(r1, r2) - max(l1, l2) > 0 and min(b1, b2) - max(t1, t2) > 0:
                    print("warning: labels may overlap: %r and %r" % (a, b), file=sys.stderr)
            if l1 < 0 or r1 > self.width or t1 < 0 or b1 > self.height:
                print("warning: label may leave the figure: %r" % a, file=sys.stderr)
        head = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" '
                'role="img" aria-label="%s" font-family="sans-serif" font-size="13" '
                'fill="currentColor">' % (self.width, self.height, self.width, self.height,
                                          esc(self.label)))
        return "\n".join([head] + self.items + ["</svg>"]) + "\n"


def write(name, svg):
    text = svg.render()
    assert "\n\n" not in text
    with open(os.path.join(OUT, name), "w") as f:
        f.write(text)
    print("wrote src/figures/%s" % name)


# ---------------------------------------------------------------------------
# Puzzle 19, step 5 (kernels/performance/p19_sgemm_warptile): the warp-tile map, at the
# benchmark tiles.

def p19_warptile():
    BM, BN, TM, TN = 128, 128, 8, 8
    WARP, LANE_ROWS, LANE_COLS = 32, 4, 8
    THREADS = (BM // TM) * (BN // TN)
    WMITER, WNITER = TM // 4, TN // 4
    SUB_M, SUB_N = LANE_ROWS * 4, LANE_COLS * 4
    WM, WN = SUB_M * WMITER, SUB_N * WNITER
    assert (THREADS, WM, WN, SUB_M, SUB_N) == (256, 32, 64, 16, 32)

    # The kernel's map, thread by thread: who writes each output of the tile.
    owner = [[None] * BN for _ in range(BM)]
    for tid in range(THREADS):
        warp, lane = tid // WARP, tid % WARP
        warp_row, warp_col = warp // (BN // WN), warp % (BN // WN)
        lane_row, lane_col = lane // LANE_COLS, lane % LANE_COLS
        tr = warp_row * WM + lane_row * 4
        tc = warp_col * WN + lane_col * 4
        for i in range(TM):
            for j in range(TN):
                r = tr + i // 4 * SUB_M + i % 4
                c = tc + j // 4 * SUB_N + j % 4
                assert owner[r][c] is None
                owner[r][c] = tid
    assert all(o is not None for row in owner for o in row)

    def uniform(r0, c0, h, w, f):
        vals = {f(owner[r][c]) for r in range(r0, r0 + h) for c in range(c0, c0 + w)}
        assert len(vals) == 1, vals
        return vals.pop()

    W, H = 720, 560
    svg = Svg(W, H, (
        "The warp-tile map of Puzzle 19 step 5 at the benchmark tiles: the 128 by 128 block "
        "tile is cut into 8 warp tiles of 32 by 64, four rows of two, warp w at row w / 2 and "
        "column w % 2; below, warp 3's tile is drawn as 8 by 16 patches of 4 by 4 outputs, "
        "each labelled with the lane that computes it: the lanes form a 4 by 8 grid of "
        "patches, a 16 by 32 sub-tile, repeated twice down and twice across, so lane 9's "
        "8 by 8 outputs are four patches one sub-tile apart."))

    # The block tile, 1.25 units an output.
    s = 1.25
    bx, by = 20, 30
    svg.text(bx, 18, "block tile BM × BN = %d × %d, %d threads" % (BM, BN, THREADS), anchor="start", size=12)
    zoom_warp = 3
    for wr in range(BM // WM):
        for wc in range(BN // WN):
            w = uniform(wr * WM, wc * WN, WM, WN, lambda t: t // WARP)
            x, y = bx + wc * WN * s, by + wr * WM * s
            svg.rect(x, y, WN * s, WM * s, cls="fig-e" if w == zoom_warp else "fig-soft")
            svg.mid(x + WN * s / 2, y + WM * s / 2, "warp %d" % w, size=12)
    zr, zc = zoom_warp // (BN // WN) * WM, zoom_warp % (BN // WN) * WN

    # The rules, beside it.
    tx = bx + BN * s + 36
    lines = [
        ("warp tile WM × WN = %d × %d, one per warp:" % (WM, WN), False),
        ("warp = tid / %d, row warp / %d, column warp %% %d" % (WARP, BN // WN, BN // WN), True),
        ("sub-tile SUB_M × SUB_N = %d × %d: %d × %d patches of 4 × 4," % (SUB_M, SUB_N, LANE_ROWS, LANE_COLS), False),
        ("one patch per lane: row lane / %d, column lane %% %d" % (LANE_COLS, LANE_COLS), True),
        ("a thread's %d × %d outputs (TM × TN): WMITER × WNITER = %d × %d" % (TM, TN, WMITER, WNITER), False),
        ("patches, %d rows (SUB_M) and %d columns (SUB_N) apart" % (SUB_M, SUB_N), True),
    ]
    for i, (t, indent) in enumerate(lines):
        svg.text(tx + (12 if indent else 0), by + 14 + i * 22 + (i // 2) * 8, t, anchor="start", size=12)

    # Warp 3's tile, patch by patch.
    cw, ch = 38, 26
    gx, gy = 82, 268
    pr, pc = WM // 4, WN // 4
    lane_hl = 9
    hl_rows, hl_cols = set(), set()
    for i in range(pr):
        for j in range(pc):
            lane = uniform(zr + i * 4, zc + j * 4, 4, 4, lambda t: t % WARP)
            tid = uniform(zr + i * 4, zc + j * 4, 4, 4, lambda t: t)
            assert tid // WARP == zoom_warp
            x, y = gx + j * cw, gy + i * ch
            if lane == lane_hl:
                hl_rows.add(zr + i * 4)
                hl_cols.add(zc + j * 4)
                svg.rect(x, y, cw, ch, cls="fig-b", stroke=0.6)
            else:
                svg.rect(x, y, cw, ch, stroke=0.6)
            svg.mid(x + cw / 2, y + ch / 2, str(lane), size=12, weight="bold" if lane == lane_hl else None)
    assert len(hl_rows) == WMITER and len(hl_cols) == WNITER
    # Sub-tile borders, and the highlighted lane's patches outlined.
    for i in range(WMITER):
        for j in range(WNITER):
            svg.rect(gx + j * SUB_N // 4 * cw, gy + i * SUB_M // 4 * ch, SUB_N // 4 * cw,
                     SUB_M // 4 * ch, stroke=2.2)
    for r in hl_rows:
        for c in hl_cols:
            svg.rect(gx + (c - zc) // 4 * cw, gy + (r - zr) // 4 * ch, cw, ch, stroke=2.2)
    # Axes: block-tile rows and columns of each sub-tile.
    svg.text(gx + pc * cw / 2, gy - 48, "warp %d (shaded above, threads %d–%d): each 4 × 4 patch of its "
             "%d × %d tile labelled with its lane" % (zoom_warp, zoom_warp * WARP, zoom_warp * WARP + WARP - 1, WM, WN),
             size=12)
    for j in range(WNITER):
        c0 = zc + j * SUB_N
        svg.mid(gx + (j + 0.5) * SUB_N // 4 * cw, gy - 14, "columns %d–%d" % (c0, c0 + SUB_N - 1), size=12)
    for i in range(WMITER):
        r0 = zr + i * SUB_M
        yc = gy + (i + 0.5) * SUB_M // 4 * ch
        svg.mid(gx - 42, yc - 8, "rows", size=12)
        svg.mid(gx - 42, yc + 8, "%d–%d" % (r0, r0 + SUB_M - 1), size=12)
    # The lane of the key, where it sits.
    tid = zoom_warp * WARP + lane_hl
    rows = sorted(hl_rows)
    cols = sorted(hl_cols)
    ky = gy + pr * ch + 30
    svg.rect(gx, ky - 13, 16, 16, cls="fig-b", stroke=1)
    svg.text(gx + 24, ky, "lane %d (thread %d) computes rows %d–%d and %d–%d, columns %d–%d and %d–%d" % (
        lane_hl, tid, rows[0], rows[0] + 3, rows[1], rows[1] + 3, cols[0], cols[0] + 3, cols[1], cols[1] + 3),
        anchor="start", size=12)
    # The reads the note below describes, as compute_tile makes them: the
    # float4 of b_tile[k] at tc + wn SUB_N, of a_tile[k] at tr + wm SUB_M.
    b_reads = {l: [(l % LANE_COLS * 4 + wn * SUB_N) // 4 for wn in range(WNITER)] for l in range(WARP)}
    a_reads = {l: [(l // LANE_COLS * 4 + wm * SUB_M) // 4 for wm in range(WMITER)] for l in range(WARP)}
    for wn in range(WNITER):
        first = [b_reads[l][wn] for l in range(LANE_COLS)]
        assert first == list(range(first[0], first[0] + LANE_COLS))
        assert {b_reads[l][wn] for l in range(WARP)} == set(first)
    for wm in range(WMITER):
        first = [a_reads[l][wm] for l in range(0, WARP, LANE_COLS)]
        assert first == list(range(first[0], first[0] + LANE_ROWS))
        assert {a_reads[l][wm] for l in range(WARP)} == set(first)
    svg.text(gx, ky + 24, "Each k, lanes 0–7 read 8 neighbouring float4s of b_tile[k] (128 bytes) "
             "and lanes 0, 8, 16, 24 read", anchor="start", size=12)
    svg.text(gx, ky + 42, "4 neighbouring float4s of a_tile[k] (64 bytes); every other lane reads "
             "one of these same addresses.", anchor="start", size=12)
    write("p19_warptile.svg", svg)


# ---------------------------------------------------------------------------
# Puzzle 35 (kernels/tensor/p35_gemm_mma and the later steps).

def mma_c_coords(lane):
    """Accumulator element k (0-3) of `lane`, as gemm_mma's epilogue stores it:
    rows lane / 4 and lane / 4 + 8, columns lane % 4 * 2 and the next."""
    g, q = lane // 4, lane % 4
    return [(g + 8 * (k // 2), 2 * q + k % 2) for k in range(4)]


def mma_a_coords(lane):
    """The eight values of a in `lane`'s registers a[0..3], two a register,
    found the way gemm_mma loads them: for its ldmatrix_x4, lane l names row
    l % 16 at chunk kk / 8 + l / 16 (so matrix m = l / 8 is rows 8 (m % 2) to
    8 (m % 2) + 7 at k 8 (m / 2) to 8 (m / 2) + 7), and ldmatrix gives lane l in
    register m the two values at row l / 4, columns 2 (l % 4) and the next, of
    matrix m."""
    names = {}
    for l in range(32):
        m = l // 8
        names[m] = names.get(m, []) + [(l % 16, (l // 16) * 8)]
    got = []
    for m in range(4):
        starts = sorted(names[m])
        row0, col0 = starts[0]
        assert [r for r, _ in starts] == list(range(row0, row0 + 8))
        assert {c for _, c in starts} == {col0}
        r = row0 + lane // 4
        c = col0 + 2 * (lane % 4)
        got.append([(r, c), (r, c + 1)])
    # The same, as PTX documents the m16n8k16 A fragment.
    g, q = lane // 4, lane % 4
    ptx = [[(g + 8 * (m % 2), 2 * q + 8 * (m // 2) + h) for h in range(2)] for m in range(4)]
    assert got == ptx
    return got


def p35_mma_lanes():
    c_lane = {}
    for l in range(32):
        for k, rc in enumerate(mma_c_coords(l)):
            assert rc not in c_lane
            c_lane[rc] = (l, k)
    assert len(c_lane) == 16 * 8
    a_lane = {}
    for l in range(32):
        for m, pair in enumerate(mma_a_coords(l)):
            for rc in pair:
                assert rc not in a_lane
                a_lane[rc] = (l, m)
    assert len(a_lane) == 16 * 16

    W, H = 720, 484
    hl = 6
    svg = Svg(W, H, (
        "Which lane holds which element of mma.sync m16n8k16: on the left the 16 by 8 "
        "accumulator tile, on the right the 16 by 16 tile of a, every cell labelled with its "
        "lane; lane l holds rows l / 4 and l / 4 + 8, at columns 2 (l % 4) and the next, and of "
        "a the same columns and those 8 further on; lane 6's cells are outlined."))
    cw, ch = 25, 19
    top = 66
    c_x = 40
    a_x = c_x + 8 * cw + 62
    tint_c = ["fig-a", "fig-a", "fig-c", "fig-c"]
    tint_a = ["fig-a", "fig-c", "fig-b", "fig-e"]

    def grid(x0, cols, lookup, tints, title, sub):
        svg.text(x0 + cols * cw / 2, 18, title, size=13, weight="bold")
        svg.text(x0 + cols * cw / 2, 36, sub, size=12)
        for c in range(cols):
            svg.mid(x0 + (c + 0.5) * cw, top - 10, str(c), size=11)
        for r in range(16):
            svg.mid(x0 - 14, top + (r + 0.5) * ch, str(r), size=11)
            for c in range(cols):
                l, k = lookup[(r, c)]
                x, y = x0 + c * cw, top + r * ch
                svg.rect(x, y, cw, ch, cls=tints[k], stroke=0.5)
                svg.mid(x + cw / 2, y + ch / 2, str(l), size=11, weight="bold" if l == hl else None)
        for r in range(16):
            for c in range(cols):
                if lookup[(r, c)][0] == hl:
                    svg.rect(x0 + c * cw, top + r * ch, cw, ch, stroke=2.4)
        svg.rect(x0, top, cols * cw, 16 * ch, stroke=1.4)

    grid(c_x, 8, c_lane, tint_c, "accumulators c, d: 16 × 8", "FP32, c[0] to c[3]; columns are n")
    grid(a_x, 16, a_lane, tint_a, "a: 16 × 16", "BF16, two a register, a[0] to a[3]; columns are k")

    # Keys.
    ky = top + 16 * ch + 28
    keys_c = [("fig-a", "c[0], c[1]: rows 0–7"), ("fig-c", "c[2], c[3]: rows 8–15")]
    for i, (cls, t) in enumerate(keys_c):
        y = ky + i * 22
        svg.rect(c_x - 20, y - 12, 14, 14, cls=cls)
        svg.text(c_x, y, t, anchor="start", size=12)
    keys_a = [("fig-a", "a[0]: rows 0–7, k 0–7"), ("fig-b", "a[2]: rows 0–7, k 8–15"),
              ("fig-c", "a[1]: rows 8–15, k 0–7"), ("fig-e", "a[3]: rows 8–15, k 8–15")]
    for i, (cls, t) in enumerate(keys_a):
        x = a_x + (i % 2) * 200
        y = ky + (i // 2) * 22
        svg.rect(x, y - 12, 14, 14, cls=cls)
        svg.text(x + 20, y, t, anchor="start", size=12)
    svg.text(c_x - 20, ky + 58, "Lane l holds rows l / 4 and l / 4 + 8, at columns 2 (l % 4) and the next; "
             "of a, also those columns + 8.", anchor="start", size=12)
    svg.text(c_x - 20, ky + 76, "Outlined: lane 6. The two neighbours of a row are one BF16 pair "
             "when stored, one 32-bit register of a.", anchor="start", size=12)
    write("p35_mma_lanes.svg", svg)


def p35_swizzle():
    """gemm_mma's swizzle: chunk c of tile row r is stored at chunk c ^ (r % 8)."""

    def swizzle(row, chunk):
        return chunk ^ (row % 8)

    shown = 2
    # What the chapter says: the 8 rows at one chunk land in 8 different
    # chunks (bank groups), and a row's 8 chunks are permuted, not merged.
    for c in range(8):
        assert sorted(swizzle(r, c) for r in range(8)) == list(range(8))
    for r in range(8):
        assert sorted(swizzle(r, c) for c in range(8)) == list(range(8))

    W, H = 720, 404
    svg = Svg(W, H, (
        "The 128-byte XOR swizzle of Puzzle 35: rows 0 to 7 of a shared-memory tile, each 128 "
        "bytes in eight 16-byte chunks; on the left each chunk c is stored at position c, so "
        "chunk 2 of all eight rows sits in banks 8 to 11 and one ldmatrix read of it takes 8 "
        "passes; on the right chunk c of row r is stored at position c XOR r, and chunk 2 of "
        "the eight rows lands at positions 2, 3, 0, 1, 6, 7, 4, 5, in eight different groups of "
        "banks, one pass."))
    cw, ch = 35, 26
    top = 74
    lx = 54
    rx = lx + 8 * cw + 64
    for x0, title, sub, place in (
            (lx, "without the swizzle", "chunk c at position c", lambda r, c: c),
            (rx, "with the swizzle", "chunk c at position c ⊕ (r mod 8)", swizzle)):
        svg.text(x0 + 4 * cw, 18, title, size=13, weight="bold")
        svg.text(x0 + 4 * cw, 36, sub, size=12)
        svg.mid(x0 + 4 * cw, top - 22, "position in the row (16 bytes each)", size=11)
        stored = {}
        for r in range(8):
            for c in range(8):
                stored[(r, place(r, c))] = c
        for p in range(8):
            svg.mid(x0 + (p + 0.5) * cw, top - 8, str(p), size=11)
        for r in range(8):
            svg.mid(x0 - 26, top + (r + 0.5) * ch, "row %d" % r, size=11)
            for p in range(8):
                c = stored[(r, p)]
                x, y = x0 + p * cw, top + r * ch
                svg.rect(x, y, cw, ch, cls="fig-b" if c == shown else None, stroke=0.6)
                svg.mid(x + cw / 2, y + ch / 2, str(c), size=12, weight="bold" if c == shown else None)
        svg.rect(x0, top, 8 * cw, 8 * ch, stroke=1.4)
        by = top + 8 * ch
        svg.mid(x0 - 26, by + 12, "banks", size=11)
        for p in range(8):
            svg.mid(x0 + (p + 0.5) * cw, by + 12, "%d–%d" % (4 * p, 4 * p + 3), size=11)
        hits = sorted({place(r, shown) for r in range(8)})
        if len(hits) == 1:
            p = hits[0]
            lines = ["chunk 2 of rows 0–7: always banks %d–%d," % (4 * p, 4 * p + 3),
                     "so the read takes 8 passes"]
        else:
            order = ", ".join(str(place(r, shown)) for r in range(8))
            lines = ["chunk 2 of rows 0–7 at positions %s:" % order,
                     "all 32 banks once, one pass"]
        for i, t in enumerate(lines):
            svg.mid(x0 + 4 * cw, by + 40 + i * 18, t, size=12)
    y = top + 8 * ch + 92
    svg.text(12, y, "A number is the chunk c of the row stored there (the row's values 8c to 8c + 7); "
             "rows 8–15 repeat rows 0–7.", anchor="start", size=12)
    svg.text(12, y + 18, "One 8 × 8 matrix of an ldmatrix is one chunk of 8 consecutive rows, "
             "the 16-byte rows its 8 lanes name.", anchor="start", size=12)
    write("p35_swizzle.svg", svg)


def p35_tma_ring():
    """gemm_tma's handshake, simulated with assumed durations: the producer's
    one thread waits on empty[s] from round 1 on, sets full[s]'s bytes and
    issues the copies; the consumers wait on full[s] (parity t / STAGES % 2),
    issue tile t's wgmmas, wait until one group is left running (tile t - 1's
    products done) and arrive on empty[(t - 1) % STAGES]."""
    STAGES, CONSUMERS = 4, 2
    ISSUE, COPY, PRODUCT = 18, 100, 56  # units of the drawing's time axis
    END = 560
    n = 12
    issue, land, start, done, freed = {}, {}, {}, {}, {}
    wait_empty = {}
    empty_done = {}  # (s, phase) -> time the phase completes
    full_done = {}
    p_time = 0
    c_time = 0
    last_done = 0
    # Producer and consumer alternate step by step; each tile's times depend
    # only on earlier tiles' times, so one pass in t order is exact.
    for t in range(n):
        s, rnd = t % STAGES, t // STAGES
        if rnd > 0:
            # barrier_wait(&empty[s], (round - 1) % 2): phase round - 1.
            ready = empty_done[(s, rnd - 1)]
            wait_empty[t] = (p_time, max(p_time, ready))
            p_time = max(p_time, ready)
        issue[t] = p_time
        p_time += ISSUE
        land[t] = issue[t] + COPY
        full_done[(s, rnd)] = land[t]
        # Consumers: barrier_wait(&full[s], t / STAGES % 2), then the wgmmas.
        c_time = max(c_time, full_done[(s, rnd)])
        start[t] = max(c_time, last_done)
        done[t] = start[t] + PRODUCT
        last_done = done[t]
        if t > 0:
            # wgmma_wait<1>: tile t - 1's group is done; arrive on its empty.
            arrive = max(c_time, done[t - 1])
            sp, rp = (t - 1) % STAGES, (t - 1) // STAGES
            # empty counts CONSUMERS arrivals; both warpgroups arrive together here.
            empty_done[(sp, rp)] = arrive
            freed[t - 1] = arrive
            c_time = arrive
    # What the figure is meant to show: stage s's next copy waits for the
    # consumers to free it, and tile t lands before the consumers want it.
    for t in range(STAGES, n):
        assert issue[t] >= freed[t - STAGES]
    assert all(land[t] <= start[t] for t in range(n))

    W, H = 720, 500
    svg = Svg(W, H, (
        "A timeline of Puzzle 35 step 5's four-stage ring: the producer thread issues the TMA "
        "copies of tiles 0 to 3 into stages 0 to 3 at once, then waits on empty[0] before "
        "refilling stage 0 with tile 4, and so on; each stage row shows its copy in flight and "
        "then the tile held until the consumers arrive on empty; the consumer warpgroups wait "
        "on full, run the tile's wgmmas, and arrive on the empty barrier of the tile before, "
        "once only one group is left running."))
    x0 = 172
    sc = (W - 14 - x0) / END

    def X(t):
        return x0 + t * sc

    rows = ["producer", "stage 0", "stage 1", "stage 2", "stage 3", "consumers"]
    labels = {
        "producer": ["producer", "(warpgroup 0, one thread)"],
        "consumers": ["consumers", "(warpgroups 1 and 2)"],
    }
    rh, gap = 30, 12
    top = 40
    ys = {name: top + i * (rh + gap) for i, name in enumerate(rows)}
    svg.text(x0, 18, "time →  (durations drawn to an assumed scale; four stages, STAGES = 4)",
             anchor="start", size=12)
    for name in rows:
        y = ys[name]
        if name in labels:
            svg.text(x0 - 10, y + 12, labels[name][0], anchor="end", size=12, weight="bold")
            svg.text(x0 - 10, y + 27, labels[name][1], anchor="end", size=11)
        else:
            svg.text(x0 - 10, y + rh / 2 + 4, "%s (smem)" % name, anchor="end", size=12, weight="bold")
        svg.line(x0, y + rh, X(END), y + rh, width=0.5, dash="2 3")

    # The handshake drawn out: the consumers free stage 0, the producer refills it.
    fx = X(freed[0])

    def bar(name, a, b, cls, label=None, size=12):
        a, b = max(a, 0), min(b, END)
        if b <= a:
            return
        xa, xb = X(a), X(b)
        svg.rect(xa, ys[name] + 3, xb - xa, rh - 6, cls=cls, stroke=0.8)
        if not label:
            return
        w = len(label) * size * CHAR_EM
        cx = (xa + xb) / 2
        if name not in ("producer", "consumers") and abs(cx - fx) < w / 2 + 4:
            # Keep clear of the arrow: centre the label in the wider side.
            cx = (xa + fx) / 2 if fx - xa > xb - fx else (fx + xb) / 2
        if w + 4 <= xb - xa:
            svg.mid(cx, ys[name] + rh / 2, label, size=size)

    for t in range(n):
        s = t % STAGES
        if issue[t] < END:
            bar("producer", issue[t], issue[t] + ISSUE, "fig-b", str(t), size=11)
        if t in wait_empty and wait_empty[t][1] > wait_empty[t][0] and wait_empty[t][0] < END:
            a, b = wait_empty[t]
            bar("producer", a, b, "fig-soft", "empty[%d]" % s, size=11)
        stage = "stage %d" % s
        if issue[t] < END:
            bar(stage, issue[t], land[t], "fig-b", "copy %d" % t)
        if land[t] < END:
            bar(stage, land[t], freed.get(t, END + 1), "fig-c", "tile %d" % t)
        if start[t] < END:
            bar("consumers", start[t], done[t], "fig-a", str(t))
    bar("consumers", 0, start[0], "fig-soft", "full[0]", size=11)

    yc = ys["consumers"] + 3
    yp = ys["producer"] + rh - 3
    svg.arrow([(fx, yc), (fx, yp)], width=1.4, dash="5 3")
    # The parity of each wait, tile by tile, under the consumers' bars.
    ty = ys["consumers"] + rh + 24
    svg.text(x0 - 10, ty, "tile t, stage s = t % 4", anchor="end", size=12)
    svg.text(x0 - 10, ty + 20, "waits on full[s], parity", anchor="end", size=12)
    svg.text(x0 - 10, ty + 40, "then arrives on empty[…]", anchor="end", size=12)
    for t in range(n):
        if done[t] > END:
            break
        cx = (X(start[t]) + X(done[t])) / 2
        svg.mid(cx, ty - 4, "%d, %d" % (t, t % STAGES), size=12)
        svg.mid(cx, ty + 16, str(t // STAGES % 2), size=12)
        svg.mid(cx, ty + 36, str((t - 1) % STAGES) if t > 0 else "–", size=12)
    # Keys.
    ky = ty + 72
    keys = [("fig-b", "the producer issues tile t (full[s] expects its bytes), then the TMA copies it"),
            ("fig-c", "tile t in stage s: phase t / 4 of full[s] complete, until the consumers arrive on empty[s]"),
            ("fig-a", "the tensor cores on tile t's wgmmas (each consumer warpgroup its own 64 rows)"),
            ("fig-soft", "waiting on the barrier named")]
    for i, (cls, t) in enumerate(keys):
        y = ky + i * 20
        svg.rect(24, y - 12, 14, 14, cls=cls)
        svg.text(46, y, t, anchor="start", size=12)
    svg.text(24, ky + 4 * 20 + 6, "Dashed arrow: once wgmma 1 is issued and wgmma 0 is done, both "
             "consumers arrive on empty[0];", anchor="start", size=12)
    svg.text(24, ky + 4 * 20 + 24, "its phase 0 completes, the producer's wait ends, and it refills "
             "stage 0 with tile 4.", anchor="start", size=12)
    svg.height = ky + 4 * 20 + 36
    write("p35_tma_ring.svg", svg)


# ---------------------------------------------------------------------------
# Puzzle 34 (kernels/tensor/p34_mbarrier_ring, p34_cluster_sum).

def p34_ring_phases():
    """mbarrier_ring with STAGES = 2, TILES = 8, simulated with assumed
    durations: filling a buffer takes FILL, using it USE."""
    STAGES, TILES = 2, 8
    FILL, USE = 1.0, 1.5
    fill, use = {}, {}
    pwait, cwait = {}, {}
    full_done, empty_done = {}, {}
    p_time = c_time = 0.0
    for t in range(TILES):
        s, rnd = t % STAGES, t // STAGES
        if rnd > 0:
            ready = empty_done[(s, rnd - 1)]  # barrier_wait(&empty[s], (round - 1) % 2)
            if ready > p_time:
                pwait[t] = (p_time, ready)
            p_time = max(p_time, ready)
        fill[t] = (p_time, p_time + FILL)
        p_time += FILL
        full_done[(s, rnd)] = p_time  # barrier_arrive(&full[s]) by all 32 lanes
        ready = full_done[(s, rnd)]  # barrier_wait(&full[s], round % 2)
        if ready > c_time:
            cwait[t] = (c_time, ready)
        c_time = max(c_time, ready)
        use[t] = (c_time, c_time + USE)
        c_time += USE
        empty_done[(s, rnd)] = c_time  # barrier_arrive(&empty[s]) by all 32 lanes
        # The simulation must respect the ring: each fill after the use before.
        if rnd > 0:
            assert fill[t][0] >= use[t - STAGES][1]
    end = max(c_time, p_time)

    W, H = 720, 400
    svg = Svg(W, H, (
        "A timeline of Puzzle 34 step 1 with two buffers and eight tiles: the producer warp "
        "fills tile t into buffer t % 2 and arrives on full, the consumer warp waits on full, "
        "uses the tile and arrives on empty, and the producer waits on empty before it refills "
        "a buffer; below, each barrier's phases 0, 1, 2, 3 are drawn as segments that end when "
        "the phase completes, shaded by parity, and each wait ends where a phase of the parity "
        "it names completes."))
    x0 = 150
    sc = (W - 16 - x0) / end

    def X(t):
        return x0 + t * sc

    rh = 28
    prod, cons = "producer (warp 0)", "consumer (warp 1)"
    # Each warp beside the barriers it waits on: empty above the producer,
    # full below the consumer.
    rows = ["empty[0]", "empty[1]", prod, cons, "full[0]", "full[1]"]
    ys = {}
    y = 36
    for r in rows:
        ys[r] = y
        y += rh + (14 if r in ("empty[1]", cons) else 6)
    svg.text(x0, 18, "time →  (durations drawn to an assumed scale; STAGES = 2, TILES = 8)",
             anchor="start", size=12)
    buf_cls = ["fig-a", "fig-b"]
    for r in rows:
        svg.text(x0 - 10, ys[r] + rh / 2 + 4, r, anchor="end", size=12, weight="bold")

    def bar(row, a, b, cls, label=None):
        svg.rect(X(a), ys[row] + 2, X(b) - X(a), rh - 4, cls=cls, stroke=0.8)
        if label:
            svg.mid((X(a) + X(b)) / 2, ys[row] + rh / 2, label, size=12)

    for t in range(TILES):
        bar(prod, fill[t][0], fill[t][1], buf_cls[t % STAGES], "fill %d" % t)
        bar(cons, use[t][0], use[t][1], buf_cls[t % STAGES], "use %d" % t)
        if t in pwait:
            bar(prod, pwait[t][0], pwait[t][1], "fig-soft")
        if t in cwait:
            bar(cons, cwait[t][0], cwait[t][1], "fig-soft")

    # Each completion, joined to the wait it ends: empty[s]'s phase r - 1 to
    # the producer's fill of tile 2 r + s, full[s]'s phase r to the
    # consumer's use of it. A line may cross the other barrier's row.
    links = []
    for s in range(STAGES):
        for k in range(TILES // STAGES):
            t = k * STAGES + s
            b = full_done[(s, k)]
            assert use[t][0] >= b
            links.append(("full[%d]" % s, b, cons))
            t = (k + 1) * STAGES + s
            if t < TILES:
                b = empty_done[(s, k)]
                assert fill[t][0] >= b
                links.append(("empty[%d]" % s, b, prod))
    crossing = {r: [] for r in rows}
    for name, b, warp in links:
        i, j = rows.index(name), rows.index(warp)
        for r in rows[min(i, j) + 1:max(i, j)]:
            crossing[r].append(X(b))
        y1 = ys[name] + (4 if i > j else rh - 4)
        y2 = ys[warp] + (rh - 2 if i > j else 2)
        svg.line(X(b), y1, X(b), y2, width=0.8, dash="2 2")

    # The phases of each barrier: segment k runs until phase k completes.
    phase_cls = ["fig-soft", "fig-e"]
    for name, done in (("full[0]", full_done), ("full[1]", full_done),
                       ("empty[0]", empty_done), ("empty[1]", empty_done)):
        s = int(name[-2])
        times = [done[(s, k)] for k in range(TILES // STAGES)]
        a = 0.0
        for k, b in enumerate(times + [end]):
            if b <= a:
                continue
            xa, xb = X(a), X(b)
            svg.rect(xa, ys[name] + 4, xb - xa, rh - 8, cls=phase_cls[k % 2], stroke=0.8)
            label = "phase %d" % k
            w = len(label) * 11 * CHAR_EM
            if w + 6 > xb - xa:
                label, w = str(k), 11 * CHAR_EM
            # The label goes where no link crosses it: the centre if free,
            # else the middle of the widest free stretch.
            cuts = sorted([xa] + [x for x in crossing[name] if xa < x < xb] + [xb])
            gaps = sorted(zip(cuts, cuts[1:]), key=lambda g: g[1] - g[0])
            ga, gb = gaps[-1]
            if gb - ga >= w + 6:
                svg.mid((ga + gb) / 2, ys[name] + rh / 2, label, size=11)
            a = b

    ky = ys["full[1]"] + rh + 26
    keys = [("fig-a", "buffer 0 (tiles 0, 2, 4, 6)"), ("fig-b", "buffer 1 (tiles 1, 3, 5, 7)"),
            ("fig-soft", "a wait; a phase of parity 0"), ("fig-e", "a phase of parity 1")]
    for i, (cls, t) in enumerate(keys):
        x = 24 + (i % 2) * 300
        y = ky + (i // 2) * 20
        svg.rect(x, y - 12, 14, 14, cls=cls)
        svg.text(x + 22, y, t, anchor="start", size=12)
    svg.text(24, ky + 46, "Tile t is round r = t / 2 of its buffer: the consumer waits for phase r of "
             "full[s] (parity r % 2), and the", anchor="start", size=12)
    svg.text(24, ky + 64, "producer, from round 1 on, for phase r − 1 of empty[s]. A phase completes "
             "when all 32 lanes have arrived.", anchor="start", size=12)
    svg.height = ky + 76
    write("p34_ring_phases.svg", svg)


def p34_cluster():
    """cluster_sum with CLUSTER = 4, TPB = 64: block 0's first warp reads each
    block's partial[0] through cluster.map_shared_rank(partial, lane)."""
    CLUSTER, TPB, WARP = 4, 64, 32
    W, H = 720, 470
    svg = Svg(W, H, (
        "One cluster of Puzzle 34 step 3, four blocks on four SMs, time running down: each "
        "block sums its 64 values into its own partial[0]; after cluster.sync(), lanes 0 to 3 "
        "of block 0's first warp each read one block's partial[0] through map_shared_rank, "
        "the other lanes take 0; the warp adds with shuffles and lane 0 writes the cluster's "
        "sum; a second cluster.sync() keeps every block's shared memory alive until then."))
    # Columns: block 0 wide (it does the gathering), the others narrower.
    widths = [262, 120, 120, 120]
    gap = 16
    xs = []
    x = 42
    for w in widths:
        xs.append(x)
        x += w + gap
    assert x - gap <= W - 8
    top = 20
    for r in range(CLUSTER):
        svg.text(xs[r] + widths[r] / 2, top + 8, "block rank %d" % r, size=13, weight="bold")
    # Row 1: each block's tree sum into partial[0].
    y1 = top + 26
    for r in range(CLUSTER):
        svg.rect(xs[r], y1, widths[r], 40, cls="fig-soft", stroke=1)
        svg.mid(xs[r] + widths[r] / 2, y1 + 13, "sum of its %d values" % TPB if r == 0 else "sum of its %d" % TPB, size=12)
        svg.mid(xs[r] + widths[r] / 2, y1 + 29, "→ partial[0]", size=12)

    def sync(y, label):
        svg.rect(xs[0] - 6, y, xs[-1] + widths[-1] - xs[0] + 12, 24, cls="fig-e", stroke=1.2)
        svg.mid((xs[0] + xs[-1] + widths[-1]) / 2, y + 12, label, size=12)

    def life(r, ya, yb):
        cx = xs[r] + widths[r] / 2
        svg.line(cx, ya, cx, yb, width=0.8, dash="3 3")

    y2 = y1 + 58
    sync(y2, "cluster.sync(): every block's partial[0] written, and visible to the whole cluster")
    # Row 3: the shared memory each lane reads.
    y3 = y2 + 42
    box_x = []
    for r in range(CLUSTER):
        w = 96
        bx = xs[r] + (widths[r] - w) / 2 if r else xs[0] + 8
        box_x.append(bx + w / 2)
        svg.rect(bx, y3, w, 28, cls="fig-b", stroke=1.2)
        svg.mid(bx + w / 2, y3 + 14, "partial[0]", size=12, mono=True)
    svg.text(xs[0] + 8 + 96 + 10, y3 + 19, "in shared memory", anchor="start", size=11)
    # Block 0's first warp: lanes 0-3 big, the rest one cell.
    y4 = y3 + 136
    lw = 34
    lane_x = [xs[0] + 8 + i * (lw + 4) for i in range(CLUSTER)]
    for i in range(CLUSTER):
        svg.rect(lane_x[i], y4, lw, 30, cls="fig-c", stroke=1)
        svg.mid(lane_x[i] + lw / 2, y4 + 15, str(i), size=12)
    rest_x = lane_x[-1] + lw + 4
    rest_w = xs[0] + widths[0] - rest_x
    svg.rect(rest_x, y4, rest_w, 30, cls="fig-soft", stroke=1)
    svg.mid(rest_x + rest_w / 2, y4 + 15, "lanes %d–%d: 0" % (CLUSTER, WARP - 1), size=12)
    svg.text(xs[0], y4 + 48, "block 0, warp 0: lane r reads", anchor="start", size=11)
    svg.text(xs[0], y4 + 64, "cluster.map_shared_rank(partial, r)[0]", anchor="start", size=11, mono=True)
    # Arrows: lane r reads block r's partial[0]. Block 0's own: straight down.
    # The others: down from their box, left along their own level, down to the lane.
    svg.arrow([(lane_x[0] + lw / 2, y3 + 28), (lane_x[0] + lw / 2, y4)], width=1.3)
    for r in range(1, CLUSTER):
        sx = box_x[r]
        level = y3 + 28 + 24 * r
        svg.arrow([(sx, y3 + 28), (sx, level), (lane_x[r] + lw / 2, level), (lane_x[r] + lw / 2, y4)],
                  width=1.3)
        svg.text(sx + 6, level - 5, "rank %d" % r, anchor="start", size=11)
    # Row 5: the shuffles, then the second barrier.
    y5 = y4 + 80
    svg.rect(xs[0], y5, widths[0], 40, cls="fig-soft", stroke=1)
    svg.mid(xs[0] + widths[0] / 2, y5 + 13, "__shfl_down_sync, offsets 16 to 1", size=12)
    svg.mid(xs[0] + widths[0] / 2, y5 + 29, "lane 0 writes out[blockIdx.x / 4]", size=12)
    for r in range(1, CLUSTER):
        life(r, y1 + 40, y2)
        life(r, y2 + 24, y3)
        life(r, y3 + 28 + 24 * r, y5 + 6)
        svg.mid(xs[r] + widths[r] / 2, y5 + 20, "waits", size=12)
    y6 = y5 + 54
    for r in range(1, CLUSTER):
        life(r, y5 + 34, y6)
    sync(y6, "cluster.sync(): no block exits while block 0 may still read its shared memory")
    svg.text(xs[0] - 6, y6 + 50, "CLUSTER = 4 blocks of TPB = 64 threads; out[c] is the sum of "
             "cluster c's 256 values.", anchor="start", size=12)
    svg.height = y6 + 62
    write("p34_cluster.svg", svg)


# ---------------------------------------------------------------------------
# Part IV: a block as warps of lanes, a branch that splits a warp, a shuffle.

def warp_lanes():
    THREADS, WARP = 128, 32
    W, H = 720, 548
    svg = Svg(W, H, (
        "A block of 128 threads is four warps of 32 lanes, warp w holding threads 32 w to "
        "32 w + 31. At if (lane % 2 == 0) warp 0's even lanes run the then-branch while the "
        "odd lanes wait, active mask 0x55555555; then the odd lanes run the else-branch while "
        "the even ones wait, mask 0xAAAAAAAA; after the if all 32 run again, mask 0xffffffff. "
        "In __shfl_down_sync(0xffffffff, v, 1) lane i receives v from lane i + 1, and lane 31, "
        "with no lane 32, keeps its own v."))
    cw = 17
    x0 = 118
    assert x0 + WARP * cw <= W - 50

    def lanes(y, h, cls_of, text_of, size=11):
        for l in range(WARP):
            svg.rect(x0 + l * cw, y, cw, h, cls=cls_of(l), stroke=0.5)
            t = text_of(l)
            if t:
                svg.mid(x0 + (l + 0.5) * cw, y + h / 2, t, size=size)
        svg.rect(x0, y, WARP * cw, h, stroke=1.2)

    # The block.
    svg.text(8, 18, "a block of 128 threads = 4 warps of 32 lanes (threadIdx.x = 32 · warp + lane)",
             anchor="start", size=13, weight="bold")
    y = 30
    for l in range(WARP):
        if l % 4 == 0 or l == WARP - 1:
            svg.mid(x0 + (l + 0.5) * cw, y + 6, str(l), size=11)
    svg.text(x0 - 8, y + 10, "lane", anchor="end", size=11)
    y += 16
    for w in range(THREADS // WARP):
        lanes(y, 18, lambda l: "fig-a" if w == 0 else "fig-soft", lambda l: None)
        svg.text(x0 - 8, y + 13, "warp %d" % w, anchor="end", size=12)
        svg.text(x0 + WARP * cw + 6, y + 13, "%d–%d" % (w * WARP, w * WARP + WARP - 1), anchor="start", size=11)
        y += 22

    # Divergence.
    y += 18
    svg.text(8, y, "warp 0 at  if (lane % 2 == 0) { … } else { … }", anchor="start", size=13, weight="bold")
    y += 14
    steps = [
        ("then-branch", lambda l: l % 2 == 0),
        ("else-branch", lambda l: l % 2 == 1),
        ("after the if", lambda l: True),
    ]
    for name, active in steps:
        mask = sum(1 << l for l in range(WARP) if active(l))
        lanes(y, 18, lambda l: "fig-c" if active(l) else None, lambda l: None if active(l) else "·")
        svg.text(x0 - 8, y + 13, name, anchor="end", size=12)
        y += 20
        lanes(y, 16, lambda l: None, lambda l: "1" if active(l) else "0")
        svg.text(x0 - 8, y + 12, "0x%08x" % mask, anchor="end", size=11, mono=True)
        y += 26
    assert mask == 0xFFFFFFFF
    svg.rect(x0, y - 4, 12, 12, cls="fig-c", stroke=0.5)
    svg.text(x0 + 18, y + 6, "runs", anchor="start", size=11)
    svg.rect(x0 + 70, y - 4, 12, 12, stroke=0.5)
    svg.text(x0 + 88, y + 6, "· waits", anchor="start", size=11)
    svg.text(x0 + 160, y + 6, "active mask: bit l, under lane l, is 1 if lane l runs; its value at left",
             anchor="start", size=11)

    # The shuffle, on lanes 0-7 and 29-31, drawn wider.
    y += 34
    svg.text(8, y, "v = __shfl_down_sync(0xffffffff, v, 1): lane i receives v from lane i + 1",
             anchor="start", size=13, weight="bold")
    y += 16
    shown = list(range(8)) + [None] + [29, 30, 31]
    bw = 46
    sx = x0
    px = {}
    for i, l in enumerate(shown):
        px[l] = sx + i * (bw + 2)
    for l in shown:
        if l is None:
            continue
        svg.mid(px[l] + bw / 2, y + 6, "lane %d" % l, size=11)
    y += 14
    top_y, bot_y = y, y + 70
    svg.text(x0 - 8, top_y + 15, "v before", anchor="end", size=12)
    svg.text(x0 - 8, bot_y + 15, "v after", anchor="end", size=12)
    for l in shown:
        if l is None:
            svg.mid(px[None] + bw / 2, top_y + 11, "…", size=13)
            svg.mid(px[None] + bw / 2, bot_y + 11, "…", size=13)
            continue
        svg.rect(px[l], top_y, bw, 22, cls="fig-soft", stroke=0.8)
        svg.mid(px[l] + bw / 2, top_y + 11, "v%d" % l, size=12)
        src = l + 1 if l + 1 < WARP else l
        svg.rect(px[l], bot_y, bw, 22, cls="fig-a", stroke=0.8)
        svg.mid(px[l] + bw / 2, bot_y + 11, "v%d" % src, size=12)
        if src != l:
            # Lane 8 is not drawn: its value comes in from the gap.
            fx = px[src] + bw / 2 - 4 if src in px else px[None] + bw / 2
            svg.arrow([(fx, top_y + 22), (px[l] + bw / 2 + 4, bot_y)], width=1.2)
        elif src == l:
            svg.arrow([(px[l] + bw / 2, top_y + 22), (px[l] + bw / 2, bot_y)], width=1.2, dash="3 2")
    svg.text(x0, bot_y + 44, "Lane 7 receives v8 from lane 8, not drawn; lane 31 has no lane 32 "
             "and keeps its own v (dashed).", anchor="start", size=12)
    svg.height = bot_y + 56
    write("warp_lanes.svg", svg)


def main():
    os.makedirs(OUT, exist_ok=True)
    p19_warptile()
    p35_mma_lanes()
    p35_swizzle()
    p35_tma_ring()
    p34_ring_phases()
    p34_cluster()
    warp_lanes()


if __name__ == "__main__":
    main()
