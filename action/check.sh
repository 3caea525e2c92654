#!/usr/bin/env bash
# The check step of action.yml (also run locally by tests/package/action.test.ts): turn the
# action's inputs (INPUT_* variables) into one b2-mcp-conform check, write SARIF, Markdown, JSON
# and JUnit reports into REPORT_DIR, print GitHub annotations, append the Markdown to the job
# summary, and record the exit code for the verdict step instead of failing at once (the SARIF
# upload and the summary must still happen).
set -uo pipefail

checker="${ACTION_PATH:?}/dist/bin/b2-mcp-conform.js"
reports="${REPORT_DIR:?}"
mkdir -p "$reports"

args=(check --profile "${INPUT_PROFILE:-default}" --fail-on "${INPUT_FAIL_ON:-error}")
[[ -n "${INPUT_SERVER:-}" ]] && args+=(--server "$INPUT_SERVER")
[[ -n "${INPUT_URL:-}" ]] && args+=(--url "$INPUT_URL")
[[ -n "${INPUT_FIXTURES:-}" ]] && args+=(--fixtures "$INPUT_FIXTURES")
[[ -n "${INPUT_CONTRACT:-}" ]] && args+=(--contract "$INPUT_CONTRACT")
[[ -n "${INPUT_PACK:-}" ]] && args+=(--pack "$INPUT_PACK")
[[ -n "${INPUT_SCENARIOS:-}" ]] && args+=(--scenarios "$INPUT_SCENARIOS")
case "${INPUT_PROBES:-auto}" in
  true) args+=(--probes) ;;
  false) args+=(--no-probes) ;;
  auto) ;;
  *) echo "::error title=b2-mcp-conform::input probes must be auto, true or false" >&2; exit 2 ;;
esac
case "${INPUT_LINT:-false}" in
  false) ;;
  true) args+=(--lint) ;;
  *) args+=(--lint "$INPUT_LINT") ;;
esac
# One NAME or NAME=VALUE per line; a NAME alone is copied from the step's environment, which is
# where secrets belong (values given here would appear in the workflow file).
while IFS= read -r line; do
  line="${line#"${line%%[![:space:]]*}"}"
  line="${line%"${line##*[![:space:]]}"}"
  [[ -n "$line" && "$line" != \#* ]] && args+=(--env "$line")
done <<< "${INPUT_ENV:-}"

args+=(
  --format github
  --format "sarif=$reports/b2-mcp-conform.sarif"
  --format "markdown=$reports/b2-mcp-conform.md"
  --format "json=$reports/b2-mcp-conform.json"
  --format "junit=$reports/b2-mcp-conform.xml"
)

node "$checker" "${args[@]}"
code=$?

if [[ -f "$reports/b2-mcp-conform.md" && -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
  cat "$reports/b2-mcp-conform.md" >> "$GITHUB_STEP_SUMMARY"
fi
if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
  {
    echo "exit-code=$code"
    echo "report-dir=$reports"
    [[ -f "$reports/b2-mcp-conform.sarif" ]] && echo "sarif-file=$reports/b2-mcp-conform.sarif"
    [[ -f "$reports/b2-mcp-conform.json" ]] && echo "report-file=$reports/b2-mcp-conform.json"
  } >> "$GITHUB_OUTPUT"
fi
exit 0
