# Run before each shell block of the docs (test/e2e/doc-blocks.ts): stop at the first failure, and
# make curl fail on a 4xx/5xx answer (printing it) while it prints the body as usual.
set -euo pipefail
curl() {
  local out status
  out=$(command curl -w '\n%{http_code}' "$@")
  status=${out##*$'\n'}
  out=${out%$'\n'*}
  printf '%s' "$out"
  if [ "$status" -ge 400 ]; then echo "curl $* answered $status: $out" >&2; return 22; fi
}
# A documented answer (`# {...}` after a command) against the command's actual one.
expect_json() {
  node -e 'const [want, got] = process.argv.slice(1).map((text) => JSON.stringify(JSON.parse(text)));
    if (want !== got) { console.error("documented answer:", want, "\nactual answer:    ", got); process.exit(1); }' "$1" "$2"
}
