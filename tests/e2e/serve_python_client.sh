# The Python client (clients/python/failmap_client.py) against real `failmap serve` processes on free loopback
# ports: tasks, listings, grading (byte for byte grade's results), the TRL reward function, verl's
# compute_score, refusals and the token (clients/python/test_failmap_client.py).
source "$SRC/tests/harness/serve.sh"
expect_status 0 "$FAILMAP" import "$SRC/cases/"
expect_status 0 "$FAILMAP" grade "$SRC/tests/data/predictions/demo.jsonl" --out demo --no-record
EXPECTED_RESULTS="$PWD/demo/results.jsonl" PYTHONDONTWRITEBYTECODE=1 \
  python3 "$SRC/clients/python/test_failmap_client.py" -v > unittest.txt 2>&1 ||
  fail "the client's tests: $(cat unittest.txt)"
grep -q '^Ran 6 tests' unittest.txt || fail "$(tail -5 unittest.txt)"

