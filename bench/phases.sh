#!/usr/bin/env bash
# Where a run's instructions go, phase by phase (issue 38): runs amlint once under
# callgrind on one thread and prints the inclusive instructions of each phase's entry
# point. Phases nest as the pipeline does (parse is inside load, schema inside checks);
# the figure of each is the whole cost of that step, callees included.
#
#   bench/phases.sh [AMLINT] -- ARGS...     e.g.
#   (cd ../shared/corpus/azureml-examples && bench/phases.sh target/release/amlint -- check --no-config --format json --fail-on never cli)
#
# Needs valgrind (callgrind_annotate). Prints figures; asserts nothing.
set -euo pipefail
amlint=$(realpath "${1:?amlint binary}")
shift
[[ "${1:-}" == "--" ]] && shift
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$amlint" "$@" >/dev/null 2>"$out/err" || true
callgrind_annotate --inclusive=yes --threshold=100 "$out/cg" 2>/dev/null | grep -v '=>' >"$out/all"
total=$(grep -o 'Collected : [0-9]*' "$out/err" | grep -o '[0-9]*$')
# phase | the function whose inclusive cost it is (first, outermost match)
phases='startup: rules compiled|amlint::ruleset::compile_each
walk: per-file filter|amlint::config::resolve::ConfigFilter as amlint::discover::Filter>::walked_file
walk: per-directory filter|amlint::config::resolve::ConfigFilter as amlint::discover::Filter>::enter_dir
read|amlint::load::read_text_seen
load: read+parse (checked files)|amlint::load::load_path
parse: YAML|amlint::document::yaml::parse
parse: JSON|amlint::document::json::parse
classify|amlint::kinds::classify
checks (all, per file)|amlint::checks::run_document_checks
  schema|amlint::checks::schema::check
    schema compile (lazy, shared)|amlint::schema::store::compile
  policy rules|amlint::checks::policy::check
  references|amlint::checks::references::check
  data flow|amlint::checks::dataflow::check
suppressions, configuration, baseline|amlint::pipeline::filter_file
report (rendered and written)|amlint::cli::render_findings
project search (rest of the project, partial runs)|amlint::pipeline::files_mentioning
project listing for it|amlint::pipeline::rest_of_project'
printf '%-52s %12s %7s\n' phase instructions share
printf '%-52s %12s %7s\n' total "$total" 100%
while IFS='|' read -r name fn; do
  ir=$(grep -F "$fn " "$out/all" | head -1 | awk '{gsub(",","",$1); print $1}' || true)
  [[ -z "$ir" ]] && ir=0
  printf '%-52s %12s %6.1f%%\n' "$name" "$ir" "$(python3 -c "print($ir*100/$total)")"
done <<<"$phases"
