#!/usr/bin/env python3
# Copyright (c) 2026 The asio-wheel authors.
# Distributed under the Boost Software License, Version 1.0. (See the
# accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
"""check_figures.py ROOT RESULTS PAGE...: every figure a page quotes is the benchmark run's.

RESULTS (doc/benchmarks.md) holds the latest run's verdict table, rows of
"| verdict | budget | measured | limit |" as test/bench/run_all.sh writes them. A page quotes
figures of that run after a marker line

    <!-- figures: budget one; budget two; ... -->

naming, in order, the budgets whose measured values the block below it (the lines up to the
next blank line: a table, a paragraph) gives: the block's decimal numbers (0.416, 1.04e+05;
not a version such as "Beast 1.82"), in their order, must be those values, written as the
table writes them or rounded to fewer decimals (0.42 for 0.416). A figure the run does not
have, a block with more or fewer numbers than its marker names, or a marker naming no budget
of the table fails the check, which says where and why.
"""
import re
import sys
from decimal import ROUND_HALF_UP, Decimal

# A figure: a decimal number, not a version of Asio, Beast or Boost.
NUMBER = re.compile(r"(?<![\w.])(?<!Asio )(?<!Beast )(?<!Boost )\d+\.\d+(?:e[+-]?\d+)?(?![\w.])")
MARKER = re.compile(r"^<!-- figures: (.*) -->\s*$")
ROW = re.compile(r"^\| (?:PASS|MISS|-) \| (.+?) \| ([^|]+?) \| [^|]+ \|\s*$")


def same(value, figure):
    """Whether the page's figure is the run's value, as written or rounded to the figure's
    decimals (half up: 0.655 is 0.66)."""
    if value == figure:
        return True
    if "e" in figure or "e" in value:
        return False
    places = Decimal(1).scaleb(-len(figure.split(".")[1]))
    return Decimal(value).quantize(places, rounding=ROUND_HALF_UP) == Decimal(figure)


def measured(results_path):
    values = {}
    with open(results_path, encoding="utf-8") as f:
        for line in f:
            m = ROW.match(line)
            if m:
                values.setdefault(m.group(1), m.group(2))
    return values


def check(root, page, values):
    errors = []
    with open(f"{root}/{page}", encoding="utf-8") as f:
        lines = f.read().split("\n")
    markers = 0
    for i, line in enumerate(lines):
        m = MARKER.match(line)
        if not m:
            continue
        markers += 1
        names = [n.strip() for n in m.group(1).split(";") if n.strip()]
        block = []
        for text in lines[i + 1 :]:
            if not text.strip():
                break
            block.append(text)
        found = NUMBER.findall("\n".join(block))
        where = f"{page}:{i + 1}"
        unknown = [n for n in names if n not in values]
        for n in unknown:
            errors.append(f"{where}: the run has no budget '{n}'")
        if len(found) != len(names):
            errors.append(f"{where}: the block has {len(found)} figures ({', '.join(found)}), "
                          f"the marker names {len(names)}")
            continue
        for n, figure in zip(names, found):
            if n in values and not same(values[n], figure):
                errors.append(f"{where}: '{n}' is {values[n]} in the run, the page says {figure}")
    return markers, errors


def main():
    if len(sys.argv) < 4:
        print(__doc__.split("\n")[0], file=sys.stderr)
        return 2
    root, results, pages = sys.argv[1], sys.argv[2], sys.argv[3:]
    values = measured(f"{root}/{results}")
    if not values:
        print(f"check_figures: {results} has no verdict table")
        return 1
    errors, total = [], 0
    for page in pages:
        markers, page_errors = check(root, page, values)
        total += markers
        errors += page_errors
    for e in errors:
        print(f"check_figures: {e}")
    if errors:
        return 1
    print(f"check_figures: the {total} marked blocks of {len(pages)} pages quote {results}'s run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
