#!/usr/bin/env bash
# workload_names_check.sh SOURCE_DIR MLHARNESS: a workload is one folder. Every workload that
# `mlharness list --json` registers declares its end-to-end runs (e2e.cmake) and its launch checks
# (checks.json, read by launch/workload_checks.py) in its own folder, and no file outside the places
# that may name workloads names one. Those places: workloads/, configs/, reference/,
# compliance/rcp/, docs (*.md), the tests about one workload alone (a path that names that workload
# and no other workload inside), and the files listed in workload_names_allowed.txt beside this
# script, each with the reason it names workloads. Fails naming each file and the names it holds.
set -uo pipefail
source_dir=$1 mlharness=$2
cd "$source_dir" || exit 2
fail() { echo "workload_names_check: $*" >&2; failed=1; }
failed=0

mapfile -t names < <("$mlharness" list --json | python3 -c 'import json, sys; print("\n".join(w["name"] for w in json.load(sys.stdin)))')
((${#names[@]})) || { echo "workload_names_check: mlharness list --json gave no workloads" >&2; exit 1; }

# Each workload's folder: the one whose checks.json says its name.
for name in "${names[@]}"; do
  folder=$(grep -l "\"workload\": \"$name\"" workloads/*/checks.json 2>/dev/null | head -1)
  if [[ -z "$folder" ]]; then
    fail "$name: no workloads/<folder>/checks.json says \"workload\": \"$name\""
    continue
  fi
  folder=$(dirname "$folder")
  [[ -f "$folder/e2e.cmake" ]] || fail "$name: no $folder/e2e.cmake (its end-to-end runs)"
  python3 launch/workload_checks.py reference "$name" >/dev/null 2>&1 || fail "$name: $folder/checks.json has no reference entry"
done

allowed=$(dirname "${BASH_SOURCE[0]}")/workload_names_allowed.txt
[[ -f "$allowed" ]] || { echo "workload_names_check: no $allowed" >&2; exit 1; }
# The allowed list: a shell pattern and its reason on each line; # starts a comment.
mapfile -t patterns < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$allowed" | awk '{print $1}')

grep_names=()
for name in "${names[@]}"; do grep_names+=(-e "$name"); done
while IFS= read -r file; do
  case "$file" in
    workloads/* | configs/* | reference/* | compliance/rcp/* | *.md) continue ;;
  esac
  held=$(grep -ow "${grep_names[@]}" "$file" | sort -u | tr '\n' ' ')
  # A test about one workload alone: its path names it, and it names no other.
  if [[ $file == tests/* ]]; then
    alone=""
    for name in "${names[@]}"; do
      [[ $file =~ (^|[/_])${name}([/_.]|$) ]] && alone=$name
    done
    [[ -n "$alone" && "$held" == "$alone " ]] && continue
  fi
  listed=0
  for pattern in "${patterns[@]}"; do
    # shellcheck disable=SC2053
    [[ $file == $pattern ]] && { listed=1; break; }
  done
  ((listed)) || fail "$file names ${held% } outside the workloads' folders; move the fact there, or list the file with its reason in $allowed"
done < <(git ls-files 2>/dev/null | xargs grep -lw "${grep_names[@]}" 2>/dev/null || true)

# Every allowed pattern still matches a file (a stale entry hides the next one).
for pattern in "${patterns[@]}"; do
  matched=0
  while IFS= read -r file; do
    # shellcheck disable=SC2053
    [[ $file == $pattern ]] && { matched=1; break; }
  done < <(git ls-files)
  ((matched)) || fail "$allowed: '$pattern' matches no file: remove it"
done
((failed == 0)) && echo "PASS: ${#names[@]} workloads (${names[*]}), each in its folder"
exit $failed
