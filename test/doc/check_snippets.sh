#!/bin/sh
#
# test/doc/check_snippets.sh ROOT DOC...
#
# Keeps the C++ in the documents from rotting: every fenced ```cpp block of each
# DOC must come from a file that the test command compiles and runs. The line
# just before its fence names that file and a region in it,
#
#   <!-- snippet: example/timeouts/idle_refresh.cpp session -->
#
# and the block must be, byte for byte, the lines of the file between its two
# lines "//! [session]" (Doxygen's snippet markers; they may be indented, and
# are left out). A block without that line, a file or region that does not
# exist, and a block that differs from its region each fail, naming the
# document's line (a diff shows how a block differs). Paths are relative to
# ROOT. POSIX sh and awk; CTest runs it (test/CMakeLists.txt, doc_snippets).
#
set -eu

[ $# -ge 2 ] || { echo "usage: $0 ROOT DOC..." >&2; exit 2; }
root=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

failures=0
blocks=0
for doc in "$@"; do
  [ -f "$root/$doc" ] || { echo "$doc: no such document" >&2; failures=$((failures + 1)); continue; }
  rm -f "$tmp"/block.* "$tmp/index"
  : > "$tmp/index"
  # Each ```cpp block to block.N; index: N, the fence's line, FILE REGION or "-".
  awk -v dir="$tmp" '
    inblock && /^```[ \t]*$/ { inblock = 0; close(out); next }
    inblock { print > out; next }
    /^```cpp[ \t]*$/ {
      n++
      out = dir "/block." n
      printf "" > out
      print n, NR, (marker_line == NR - 1 ? marker : "-") > (dir "/index")
      inblock = 1
      next
    }
    /^<!-- snippet: [^ ]+ [^ ]+ -->[ \t]*$/ { marker = $3 " " $4; marker_line = NR }
    END { if (inblock) print "unclosed" > (dir "/index") }
  ' "$root/$doc"
  while read -r n line file region; do
    if [ "$n" = unclosed ]; then
      echo "$doc: a \`\`\`cpp block is not closed" >&2
      failures=$((failures + 1))
      continue
    fi
    blocks=$((blocks + 1))
    if [ "$file" = - ]; then
      echo "$doc:$line: a \`\`\`cpp block without a \"<!-- snippet: FILE REGION -->\" line before it" >&2
      failures=$((failures + 1))
      continue
    fi
    if [ ! -f "$root/$file" ]; then
      echo "$doc:$line: the snippet's file $file does not exist" >&2
      failures=$((failures + 1))
      continue
    fi
    if ! awk -v marker="//! [$region]" '
      { line = $0; sub(/^[ \t]+/, "", line); sub(/[ \t]+$/, "", line) }
      line == marker { if (++found == 2) exit; next }
      found == 1 { print }
      END { exit found == 2 ? 0 : 1 }
    ' "$root/$file" > "$tmp/region"; then
      echo "$doc:$line: $file has no region \"$region\" (two lines \"//! [$region]\")" >&2
      failures=$((failures + 1))
      continue
    fi
    if ! cmp -s "$tmp/block.$n" "$tmp/region"; then
      echo "$doc:$line: the block differs from $file, region \"$region\" (- the document, + the file):" >&2
      diff -u "$tmp/block.$n" "$tmp/region" | tail -n +3 >&2 || true
      failures=$((failures + 1))
    fi
  done < "$tmp/index"
done
if [ "$failures" -ne 0 ]; then
  echo "check_snippets: $failures of the documents' C++ blocks are not their compiled files' regions" >&2
  exit 1
fi
echo "check_snippets: $blocks C++ blocks, each its compiled file's region"
