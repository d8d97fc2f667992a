"""Here or there: where a kernel's warps stalled, from Nsight Compute's
source page exported as CSV (`sgemm_profile.sh` with SASS=DIR writes one).
For each kernel in the file: the share of all warp samples each stall reason
took ("selected" is a warp issuing), and the opcodes that took most of it.
    python3 .ci/gpu/experiments/sass_stalls.py DIR/sass.csv
"""
import collections
import csv
import re
import sys


def kernels(rows):
    """(name, header, instruction rows) for each kernel in the export."""
    found = []
    for row in rows:
        if row and row[0] == "Kernel Name":
            found.append([row[1], None, []])
        elif row and row[0] == "Address" and found:
            found[-1][1] = row
        elif row and found and found[-1][1]:
            found[-1][2].append(row)
    return found


def opcode(source):
    """FFMA from '@!P0 FFMA.FTZ R1, ...'."""
    return re.sub(r"^@!?U?P\w+\s+", "", source.strip()).split(" ")[0].split(".")[0] or "?"


def main(path):
    for name, header, rows in kernels(list(csv.reader(open(path)))):
        column = {title: i for i, title in enumerate(header)}
        reasons = [t for t in header if t.startswith("stall_") and "Not Issued" not in t]
        total, by_opcode = collections.Counter(), collections.defaultdict(collections.Counter)
        for row in rows:
            op = opcode(row[column["Source"]])
            for reason in reasons:
                cell = row[column[reason]].replace(",", "")
                count = int(cell) if cell.isdigit() else 0
                total[reason] += count
                by_opcode[reason][op] += count
        samples = sum(total.values())
        print(f"{name[:100]}: {samples:,} samples, {len(rows):,} instructions")
        for reason, count in total.most_common():
            if count * 1000 < samples:
                break
            ops = ", ".join(f"{op} {100 * c / count:.0f} %" for op, c in by_opcode[reason].most_common(3))
            print(f"  {reason[6:]:18} {100 * count / samples:5.1f} %   ({ops})")


if __name__ == "__main__":
    main(sys.argv[1])
