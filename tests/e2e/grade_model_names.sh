# Model names are compared and shown in NFC, and nothing invisible passes: a
# trailing space, a zero-width space, a no-break space or a leading space is
# refused naming the line and the character (exit 2, nothing graded); "é" as
# one code point and as "e" + U+0301 is one model.
expect_status 0 "$FAILMAP" import "$SRC/cases/FA-98921.json"
python3 - <<'PY'
import json
src = "def solve(batch_sizes, target):\n    return sum(batch_sizes)\n"
bad = ["model-A ", "model-\u200bA", "model\u00a0A", " model-A", "model-\u2028A", "model-\ue000A"]
open("bad.jsonl", "w").write("".join(json.dumps({"case": "FA-98921", "model": m, "sample": 0, "source": src}) + "\n" for m in bad))
good = [{"case": "FA-98921", "model": "mod\u00e8le", "sample": 0, "source": src},
        {"case": "FA-98921", "model": "mode\u0300le", "sample": 1, "source": src + "# 2\n"},
        {"case": "FA-98921", "model": "model A", "sample": 0, "source": src}]
open("good.jsonl", "w").write("".join(json.dumps(g) + "\n" for g in good))
# The NFD spelling of a (case, model, sample) given in NFC is a repeat.
open("repeat.jsonl", "w").write("".join(json.dumps(g) + "\n" for g in [good[0], dict(good[1], sample=0)]))
PY
expect_status 2 "$FAILMAP" grade bad.jsonl --out g
expect_error_mentions "bad.jsonl:1: field 'model': a space at the end of the model name: it would print like the name without it"
expect_error_mentions "bad.jsonl:2: field 'model': U+200B ZERO WIDTH SPACE (an invisible format character) at character 7"
expect_error_mentions "bad.jsonl:3: field 'model': U+00A0 NO-BREAK SPACE (white space other than U+0020 SPACE) at character 6"
expect_error_mentions "bad.jsonl:4: field 'model': a space at the start of the model name"
expect_error_mentions "bad.jsonl:5: field 'model': U+2028 LINE SEPARATOR (a line or paragraph separator) at character 7"
expect_error_mentions "bad.jsonl:6: field 'model': U+E000 (a private-use character) at character 7"
expect_error_mentions "6 problem(s) in bad.jsonl; nothing was graded"
[ ! -e g ] || fail "a refused grading wrote its folder"
expect_status 0 "$FAILMAP" grade good.jsonl --out g --json --no-record
python3 - <<'PY' || fail "NFC: $(cat g/summary.json)"
import json
s = json.load(open("g/summary.json"))
assert list(s["models"]) == ["model A", "mod\u00e8le"], list(s["models"])
assert s["models"]["mod\u00e8le"]["predictions"] == 2
assert [json.loads(l)["model"] for l in open("g/results.jsonl")] == ["mod\u00e8le", "mod\u00e8le", "model A"]
PY
expect_status 2 "$FAILMAP" grade repeat.jsonl --out r
expect_error_mentions "repeat.jsonl:2: field 'sample': case FA-98921, model \"modèle\", sample 0 is given twice (first on line 1)"
