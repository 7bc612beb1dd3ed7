#!/usr/bin/env bash
# Compile time and peak memory of the examples and of each test area, one translation unit at a
# time (the build's own compile commands, object written to a scratch folder so the build tree
# is left alone), measured with /usr/bin/time -v. Prints a Markdown table per file and per area.
#
#   bench/compile_times.sh [BUILD_DIR] [REGEX]
#
# BUILD_DIR defaults to build/host (configure it first: cmake --preset host). The commands come
# from BUILD_DIR/compile_commands.json when present, else from `ninja -t compdb`; with neither
# (another generator) each target is rebuilt whole (compile and link) after touching its sources.
# REGEX (grep -E) keeps only the sources whose path relative to the repository matches it,
# e.g. 'examples/' or 'tests/(core|expr)/'. NAX_WHOLE_TARGETS=1 forces the whole-target mode.
# Files run one after another. Other load on the machine inflates wall times more than CPU
# times (user + system), so both are printed, with the load average.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build/host}
filter=${2:-.}
[[ -d $build ]] || { echo "compile_times.sh: no build folder $build (run: cmake --preset host)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "compile_times.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }
python=$(command -v python3 || true)
[[ -n $python ]] || { echo "compile_times.sh: python3 is needed to read the compile commands" >&2; exit 1; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

database="" source_of_commands="cmake --build (whole targets: compile and link)"
if [[ ${NAX_WHOLE_TARGETS:-0} == 1 ]]; then
  :
elif [[ -f $build/compile_commands.json ]]; then
  database=$build/compile_commands.json source_of_commands=$database
elif [[ -f $build/build.ninja ]] && command -v ninja >/dev/null; then
  ninja -C "$build" -t compdb >"$scratch/compdb.json" 2>/dev/null &&
    database=$scratch/compdb.json source_of_commands="ninja -C $build -t compdb"
fi

# One line per unit to measure: area <TAB> file (relative) <TAB> directory <TAB> command.
"$python" - "$root" "$filter" "$scratch" "${database:-}" >"$scratch/units.tsv" <<'PY'
import json, os, re, shlex, sys
root, pattern, scratch, database = sys.argv[1], re.compile(sys.argv[2]), sys.argv[3], sys.argv[4]

def area_of(rel):
    parts = rel.split("/")
    if parts[0] == "examples" and len(parts) == 2:
        return "examples"
    if parts[0] == "tests" and len(parts) == 3 and parts[1] not in ("compile_fail", "install", "support"):
        return "tests/" + parts[1]
    return None

def keep(path):
    rel = os.path.relpath(path, root)
    area = area_of(rel)
    if area is None or not rel.endswith((".cpp", ".cu")) or not pattern.search(rel):
        return None
    return area, rel

if database:
    seen = set()
    for entry in json.load(open(database)):
        path = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
        kept = keep(path)
        if not kept or path in seen:
            continue
        seen.add(path)
        args = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
        out, i = [], 0
        while i < len(args):  # write the object to scratch, no dependency files in the build tree
            a = args[i]
            if a in ("-MT", "-MF", "-MQ"):
                i += 2
                continue
            if a in ("-MD", "-MMD"):
                i += 1
                continue
            if a == "-o":
                out += ["-o", os.path.join(scratch, "unit.o")]
                i += 2
                continue
            out.append(a)
            i += 1
        print("\t".join([kept[0], kept[1], entry["directory"], shlex.join(out)]))
else:
    # No compile database: rebuild whole targets (examples/<name> -> <name>, tests/<area> -> test_<area>).
    for area_dir in ["examples"] + ["tests/" + d for d in sorted(os.listdir(os.path.join(root, "tests")))]:
        full = os.path.join(root, area_dir)
        if not os.path.isdir(full):
            continue
        for name in sorted(os.listdir(full)):
            kept = keep(os.path.join(full, name))
            if not kept:
                continue
            target = os.path.splitext(name)[0] if area_dir == "examples" else "test_" + area_dir.split("/")[1]
            print("\t".join([kept[0], kept[1], "-", "TARGET " + target]))
PY

if [[ ! -s $scratch/units.tsv ]]; then
  echo "compile_times.sh: nothing to measure (filter '$filter')" >&2
  exit 1
fi

echo "compile_times.sh: $(wc -l <"$scratch/units.tsv") units, build $build, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "commands from: $source_of_commands"
echo
echo "| area | file | wall s | cpu s | peak MiB |"
echo "|---|---|---:|---:|---:|"
: >"$scratch/results.tsv"
declare -A done_targets=()
while IFS=$'\t' read -r area rel directory command; do
  if [[ $command == TARGET\ * ]]; then
    target=${command#TARGET }
    [[ -n ${done_targets[$target]:-} ]] && continue
    done_targets[$target]=1
    # touch every source of the target's area so the whole target recompiles
    if [[ $area == examples ]]; then touch "$root/$rel"; else touch "$root/$area"/*.cpp; fi
    rel="$target (target)"
    run=(cmake --build "$build" --target "$target" -j1)
    directory=$root
  else
    run=(bash -c "$command")
  fi
  if ! (cd "$directory" && /usr/bin/time -v -o "$scratch/time.txt" "${run[@]}" >"$scratch/log.txt" 2>&1); then
    echo "| $area | $rel | failed | | |"
    sed 's/^/    /' "$scratch/log.txt" | head -5 >&2
    continue
  fi
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {
           n = split($2, p, ":"); s = 0; for (i = 1; i <= n; ++i) s = s * 60 + p[i]; printf "%.1f", s }' "$scratch/time.txt")
  cpu=$(awk -F': ' '/(User|System) time \(seconds\)/ { s += $2 } END { printf "%.1f", s }' "$scratch/time.txt")
  peak=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$scratch/time.txt")
  echo "| $area | $rel | $wall | $cpu | $peak |"
  printf '%s\t%s\t%s\t%s\n' "$area" "$wall" "$cpu" "$peak" >>"$scratch/results.tsv"
done <"$scratch/units.tsv"

echo
echo "| area | units | total wall s | total cpu s | largest peak MiB |"
echo "|---|---:|---:|---:|---:|"
awk -F'\t' '{ n[$1]++; t[$1] += $2; c[$1] += $3; if ($4 > m[$1]) m[$1] = $4 }
            END { for (a in n) printf "| %s | %d | %.1f | %.1f | %d |\n", a, n[a], t[a], c[a], m[a] }' "$scratch/results.tsv" | sort
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
