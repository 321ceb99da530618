"""A client of `failmap serve` (schema/SERVE.md), Python standard library only.

    from failmap_client import Client
    client = Client("http://127.0.0.1:8080", token=None)
    results = client.grade([{"case": "FA-98921", "model": "m", "sample": 0, "source": "def solve(...): ..."}])
    results[0]["verdict"], results[0]["reward"]

Two adapters for reinforcement-learning trainers:

- ``reward_function(client)`` returns a function of the signature TRL's ``GRPOTrainer`` calls a reward
  function with, ``(prompts, completions, **kwargs) -> list[float]``: the task id of each sample comes from
  the dataset column ``task_id`` (passed through as a keyword argument, one value per sample), the
  completion is graded as a raw answer (its code taken by failmap's rule, schema/GRADING.md "Completions").
- ``compute_score(data_source, solution_str, ground_truth, extra_info=None)`` has the shape of the function
  verl calls for a custom reward: ``ground_truth`` is the task id; the server is the one named by
  ``$FAILMAP_URL`` (and ``$FAILMAP_TOKEN``).

A 429 or 503 with Retry-After is retried (at most ``retries`` times, sleeping what the server asks); other
errors raise ``FailmapError`` with the server's message.
"""

import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request

__all__ = ["Client", "FailmapError", "reward_function", "compute_score"]


class FailmapError(Exception):
    """A request the server refused: ``status`` (HTTP), ``message`` and ``problems`` (its lines)."""

    def __init__(self, status, message, problems=()):
        super().__init__(f"HTTP {status}: {message}" + "".join("\n  " + p for p in problems))
        self.status = status
        self.message = message
        self.problems = list(problems)


class Client:
    """One failmap server. ``url`` like "http://127.0.0.1:8080"; ``token`` the bearer token, if it needs one."""

    def __init__(self, url, token=None, timeout=600.0, retries=20):
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.retries = retries

    def _request(self, method, path, body=None, content_type=None):
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        if content_type:
            headers["Content-Type"] = content_type
        for attempt in range(self.retries + 1):
            req = urllib.request.Request(self.url + path, data=body, method=method, headers=headers)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as r:
                    return r.read()
            except urllib.error.HTTPError as e:
                payload = e.read()
                if e.code in (429, 503) and attempt < self.retries:
                    time.sleep(float(e.headers.get("Retry-After") or 1))
                    continue
                try:
                    err = json.loads(payload)["error"]
                    raise FailmapError(e.code, err.get("error", ""), err.get("problems", [])) from None
                except (ValueError, KeyError, TypeError):
                    raise FailmapError(e.code, payload.decode("utf-8", "replace")) from None
        raise AssertionError("unreachable")

    def _get(self, path):
        return json.loads(self._request("GET", path))

    def health(self):
        """GET /healthz."""
        return self._get("/healthz")

    def task(self, task_id):
        """The open-tier task record of a case (GET /v1/tasks/{id}): its prompt, signature, checks, …"""
        return self._get("/v1/tasks/" + urllib.request.quote(task_id, safe=""))

    def case(self, case_id):
        """The case file of a case (GET /v1/cases/{id})."""
        return self._get("/v1/cases/" + urllib.request.quote(case_id, safe=""))

    def cases(self, mechanism=None):
        """Every case of the archive's listing, following the pages of GET /v1/cases."""
        out, after = [], None
        while True:
            query = {"limit": "1000"}
            if mechanism:
                query["mechanism"] = mechanism
            if after:
                query["after"] = after
            page = self._get("/v1/cases?" + urllib.parse.urlencode(query))
            out.extend(page["cases"])
            after = page["next"]
            if after is None:
                return out

    def mechanisms(self):
        """GET /v1/mechanisms."""
        return self._get("/v1/mechanisms")["mechanisms"]

    def grade(self, predictions, reward="graded"):
        """Grades a batch (a list of prediction dicts: case, model, sample, source or completion); returns one
        results dict per prediction, in order, each with its verdict, checks and reward."""
        body = json.dumps(list(predictions), ensure_ascii=False).encode("utf-8")
        raw = self._request("POST", "/v1/grade?reward=" + reward, body, "application/json")
        return json.loads(raw)

    def grade_jsonl(self, data, reward="graded"):
        """Posts the bytes of a predictions file as JSON Lines; returns the results lines' bytes, exactly what
        `failmap grade --no-record` writes to results.jsonl for it."""
        return self._request("POST", "/v1/grade?reward=" + reward, data, "application/jsonl")

    def rewards(self, task_ids, completions, model="policy", reward="graded", batch=64):
        """One reward per (task id, raw completion), graded in batches of ``batch``."""
        out = []
        for start in range(0, len(completions), batch):
            chunk = [
                {"case": t, "model": model, "sample": start + i, "completion": c}
                for i, (t, c) in enumerate(zip(task_ids[start:start + batch], completions[start:start + batch]))
            ]
            out.extend(r["reward"] for r in self.grade(chunk, reward=reward))
        return out


def _text(completion):
    """A completion as TRL passes it: a string, or (conversational) a list of messages."""
    if isinstance(completion, str):
        return completion
    return "".join(m.get("content", "") for m in completion if m.get("role", "assistant") == "assistant")


def reward_function(client, reward="graded", task_column="task_id"):
    """A reward function for TRL's GRPOTrainer: ``f(prompts, completions, **kwargs) -> list[float]``, the task
    id of each sample taken from the dataset column ``task_column`` (TRL passes the dataset's other columns as
    keyword arguments, one list entry per sample)."""

    def failmap_reward(prompts, completions, **kwargs):
        task_ids = kwargs[task_column]
        if len(task_ids) != len(completions):
            raise ValueError(f"{len(completions)} completions but {len(task_ids)} values of '{task_column}'")
        return client.rewards(list(task_ids), [_text(c) for c in completions], reward=reward)

    failmap_reward.__name__ = "failmap_reward"
    return failmap_reward


_default_client = None


def compute_score(data_source, solution_str, ground_truth, extra_info=None):
    """The shape of verl's custom reward function: the reward of ``solution_str`` (a raw completion) for the
    task whose id is ``ground_truth``, graded by the server at $FAILMAP_URL (token: $FAILMAP_TOKEN).
    ``data_source`` and ``extra_info`` are not used."""
    global _default_client
    if _default_client is None:
        _default_client = Client(os.environ.get("FAILMAP_URL", "http://127.0.0.1:8080"), os.environ.get("FAILMAP_TOKEN"))
    return _default_client.rewards([ground_truth], [solution_str])[0]

