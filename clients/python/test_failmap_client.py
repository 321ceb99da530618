"""Tests of failmap_client.py against a real `failmap serve` on a free loopback port (nothing mocked).

Run by tests/e2e/serve_python_client.sh:  FAILMAP=build/failmap FAILMAP_DB=archive.db
EXPECTED_RESULTS=results.jsonl python3 clients/python/test_failmap_client.py (an archive with the shipped
cases imported; the results.jsonl of `failmap grade --no-record` over the demo predictions). The expected verdicts are those of the
demo predictions (tests/e2e/grade_results.sh) and of FA-98921's seven checks, which expect 3, 2, 1, 0, 3, 2, 3.
"""

import json
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import failmap_client  # noqa: E402

FIX = "def solve(batch_sizes, target):\n    return sum(batch_sizes)\n"
ZERO = "def solve(batch_sizes, target):\n    return 0\n"
DEMO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "predictions", "demo.jsonl")


def start(*options):
    """Starts failmap serve on 127.0.0.1:0; returns (process, url)."""
    p = subprocess.Popen([os.environ["FAILMAP"], "serve", "--listen", "127.0.0.1:0", "--jobs", "2", *options],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = p.stdout.readline()
    m = re.search(r"on (http://127\.0\.0\.1:\d+)/", line)
    if not m:
        p.kill()
        raise RuntimeError("failmap serve did not start: " + line + p.stdout.read())
    return p, m.group(1)


def descendants(pid):
    """Every process below `pid` (its sandbox workers and their namespaces' processes), from /proc."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def stop(p):
    """SIGTERM: the server exits 0, and by then every process it started has ended (a sandbox worker that
    ends by itself ends whole), so none is left to find, not even for a moment."""
    below = descendants(p.pid)
    assert below, "the server runs no sandbox worker"
    p.terminate()
    assert p.wait(timeout=60) == 0
    alive = []
    for q in below:
        try:
            with open(f"/proc/{q}/stat") as f:
                alive.append(f.read().split(" ", 3)[:3])
        except OSError:
            pass
    assert not alive, f"processes of the stopped server still there when it exited (pid, name, state): {alive}"


class ClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.proc, cls.url = start()
        cls.client = failmap_client.Client(cls.url)

    @classmethod
    def tearDownClass(cls):
        stop(cls.proc)

    def test_task_and_listing(self):
        task = self.client.task("FA-98921")
        self.assertEqual(task["task_id"], "FA-98921")
        self.assertIn("def solve(batch_sizes, target)", task["signature"])
        self.assertNotIn("repaired_source", task)
        cases = self.client.cases()
        self.assertIn("FA-98921", [c["id"] for c in cases])
        shipped = os.path.join(os.path.dirname(DEMO), "..", "..", "..", "cases")
        self.assertEqual(len(cases), len([f for f in os.listdir(shipped) if f.endswith(".json")]))
        self.assertEqual(self.client.case("FA-98921")["id"], "FA-98921")
        self.assertTrue(any(m["id"] == "gradient-accumulation-weighting" for m in self.client.mechanisms()))
        with self.assertRaises(failmap_client.FailmapError) as e:
            self.client.task("FA-00000")
        self.assertEqual(e.exception.status, 404)

    def test_grade_demo_matches_the_grade_command(self):
        preds = [json.loads(line) for line in open(DEMO)]
        results = self.client.grade(preds)
        self.assertEqual([r["verdict"] for r in results], ["resolved", "partial", "partial", "unresolved", "resolved", "error"])
        # Byte for byte what `failmap grade --no-record` writes.
        with open(DEMO, "rb") as f:
            served = self.client.grade_jsonl(f.read())
        with open(os.environ["EXPECTED_RESULTS"], "rb") as f:
            self.assertEqual(served, f.read())
        self.assertEqual([r["reward"] for r in results], [json.loads(l)["reward"] for l in served.splitlines()])

    def test_trl_reward_function(self):
        reward = failmap_client.reward_function(self.client)
        prompts = ["p"] * 4
        completions = [
            "The fix:\n```python\n" + FIX + "```\n",
            [{"role": "assistant", "content": "```python\n" + ZERO + "```"}],  # conversational
            "I cannot do this.",
            FIX,
        ]
        rewards = reward(prompts, completions, task_id=["FA-98921"] * 4, other_column=[1, 2, 3, 4])
        # return 0 passes one check of seven (the one expecting 0); prose alone does not compile.
        self.assertEqual(rewards, [1.0, 1 / 7, 0.0, 1.0])
        binary = failmap_client.reward_function(self.client, reward="binary")
        self.assertEqual(binary(prompts, completions, task_id=["FA-98921"] * 4), [1.0, 0.0, 0.0, 1.0])
        with self.assertRaises(ValueError):
            reward(prompts, completions, task_id=["FA-98921"])

    def test_verl_compute_score(self):
        os.environ["FAILMAP_URL"] = self.url
        failmap_client._default_client = None
        self.assertEqual(failmap_client.compute_score("failmap", "```python\n" + FIX + "```", "FA-98921", {"split": "train"}), 1.0)
        self.assertEqual(failmap_client.compute_score("failmap", ZERO, "FA-98921"), 1 / 7)

    def test_refusals_raise_with_the_servers_words(self):
        with self.assertRaises(failmap_client.FailmapError) as e:
            self.client.grade([{"case": "FA-98921", "model": "m", "source": FIX, "smaple": 1}])
        self.assertEqual(e.exception.status, 422)
        self.assertIn("request:1: field 'smaple'", e.exception.problems[0])


class TokenTest(unittest.TestCase):
    def test_token(self):
        path = os.path.abspath("client-test.token")
        with open(path, "w") as f:
            f.write("s3cret-token-of-32-characters-xx\n")
        p, url = start("--token-file", path)
        try:
            self.assertEqual(failmap_client.Client(url, "s3cret-token-of-32-characters-xx").grade(
                [{"case": "FA-98921", "model": "m", "source": FIX}])[0]["verdict"], "resolved")
            with self.assertRaises(failmap_client.FailmapError) as e:
                failmap_client.Client(url, "wrong-token-of-32-characters-xxx").task("FA-98921")
            self.assertEqual(e.exception.status, 401)
        finally:
            stop(p)


if __name__ == "__main__":
    unittest.main()
