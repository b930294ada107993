#!/usr/bin/env python3
# Copyright (c) 2026 The asio-wheel authors.
# Distributed under the Boost Software License, Version 1.0. (See the
# accompanying file LICENSE or https://www.boost.org/LICENSE_1_0.txt)
"""check_figures.py ROOT RESULTS PAGE...: every figure a page quotes is the benchmark run's.

RESULTS (doc/benchmarks/results.json) is the latest run's results file, as
test/bench/run_all.sh writes it: one record a line, its budgets records of "kind":"budget"
with their measured value, limit and verdict (doc/benchmarks/mechanisms.json holds the
mechanisms' with : without ratios as records of the same form). A page quotes figures of
that run after a marker line

    <!-- figures: budget one; budget two; ... -->

naming, in order, the budgets whose measured values the block below it (the lines up to the
next blank line: a table, a paragraph) gives: the block's decimal numbers (0.416, 1.04e+05;
not a version such as "Beast 1.82"), in their order, must be those values as the verdict
table writes them (three significant digits) or rounded to fewer decimals (0.42 for 0.416).
A page that holds the run itself (doc/benchmarks.md, between the markers run_all.sh writes
it between) must give every budget of the results file in its verdict table, with the
file's verdict, value and limit, and no other measured row. A figure the run does not have,
a block with more or fewer numbers than its marker names, a marker naming no budget of the
run, or a verdict table that is not the file's fails the check, which says where and why.
A marked table with a "verdict" column (design.md's mechanisms) says "kept" on a row only
where every budget its figures quote passed, and "removed" only where every one missed.
"""
import json
import re
import sys
from decimal import ROUND_HALF_UP, Decimal

# A figure: a decimal number, not a version of Asio, Beast or Boost.
NUMBER = re.compile(r"(?<![\w.])(?<!Asio )(?<!Beast )(?<!Boost )\d+\.\d+(?:e[+-]?\d+)?(?![\w.])")
MARKER = re.compile(r"^<!-- figures: (.*) -->\s*$")
RUN_BEGIN = "<!-- The latest run: written by test/bench/run_all.sh, do not edit. -->"
RUN_END = "<!-- End of the latest run. -->"
# A verdict row: | verdict | budget | measured | limit |
ROW = re.compile(r"^\| (PASS|MISS|n/a|-) \| (.+?) \| ([^|]+?) \| ([^|]+?) \|\s*$")


def same(value, figure):
    """Whether the page's figure is the run's value, as written or rounded to the figure's
    decimals (half up: 0.655 is 0.66)."""
    if value == figure:
        return True
    if "e" in figure or "e" in value:
        return False
    places = Decimal(1).scaleb(-len(figure.split(".")[1]))
    return Decimal(value).quantize(places, rounding=ROUND_HALF_UP) == Decimal(figure)


def budgets(results_path):
    """The run's budget records, in the file's order: (verdict, budget, measured, limit), the
    numbers as the verdict table writes them."""
    rows = []
    with open(results_path, encoding="utf-8") as f:
        for line in f:
            line = line.strip().rstrip(",")
            if '"kind":"budget"' not in line:
                continue
            r = json.loads(line)
            if r.get("smoke"):
                continue
            rows.append((r["verdict"], r["budget"], "%.3g" % r["measured"], "%.3g" % r["limit"]))
    return rows


def check_table(page, lines, rows):
    """The verdict table between the run's markers is the results file's."""
    if RUN_BEGIN not in lines:
        return []
    if RUN_END not in lines:
        return [f"{page}: '{RUN_BEGIN}' without '{RUN_END}'"]
    run = lines[lines.index(RUN_BEGIN) + 1 : lines.index(RUN_END)]
    table = [m.groups() for m in map(ROW.match, run) if m and m.group(3) != "-"]
    errors = []
    for row in rows:
        if row not in table:
            errors.append(f"{page}: the results file has '| {' | '.join(row)} |', "
                          "the page's verdict table does not")
    for row in table:
        if row not in rows:
            errors.append(f"{page}: the verdict table has '| {' | '.join(row)} |', "
                          "the results file does not")
    return errors


def check_verdicts(where, block, names, verdicts):
    """In a marked table with a "verdict" column, each row's word agrees with the verdicts of
    the budgets its figures quote: "kept" all PASS, "removed" all MISS."""
    cells = [[c.strip() for c in text.strip().strip("|").split("|")] for text in block]
    if not cells or "verdict" not in cells[0]:
        return []
    column, errors, named = cells[0].index("verdict"), [], iter(names)
    for text, row in zip(block[2:], cells[2:]):
        quoted = [next(named) for _ in NUMBER.findall(text)]
        word = re.match(r"[a-z]*", row[column] if column < len(row) else "").group()
        expected = {"kept": "PASS", "removed": "MISS"}.get(word)
        if not expected:
            continue
        for n in quoted:
            if verdicts.get(n) != expected:
                errors.append(f"{where}: the row of '{n}' says '{word}', "
                              f"the run's verdict is {verdicts.get(n)}")
    return errors


def check(root, page, rows, values):
    with open(f"{root}/{page}", encoding="utf-8") as f:
        lines = f.read().split("\n")
    errors = check_table(page, lines, rows)
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
        errors += check_verdicts(where, block, names, {r[1]: r[0] for r in rows})
    return markers, errors


def main():
    if len(sys.argv) < 4:
        print(__doc__.split("\n")[0], file=sys.stderr)
        return 2
    root, results, pages = sys.argv[1], sys.argv[2], sys.argv[3:]
    rows = budgets(f"{root}/{results}")
    if not rows:
        print(f"check_figures: {results} has no budget of a full run")
        return 1
    values = {}
    for _, budget, value, _ in rows:
        values.setdefault(budget, value)
    errors, total = [], 0
    for page in pages:
        markers, page_errors = check(root, page, rows, values)
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
