# Sourced by the bench scripts: sets `corpus` to the azureml-examples checkout
# ($AMLINT_CORPUS, else ../shared/corpus/azureml-examples beside the repository), or
# exits 2 saying how to set it. Needs `repo` (the repository's root).
corpus="${AMLINT_CORPUS:-}"
if [[ -z "$corpus" ]]; then
  for c in "$repo/../shared/corpus/azureml-examples" /work/shared/corpus/azureml-examples; do
    [[ -d "$c/cli" ]] && corpus="$(cd "$c" && pwd)" && break
  done
fi
[[ -d "$corpus/cli" ]] || { echo "corpus not found: set AMLINT_CORPUS" >&2; exit 2; }
