# A command killed by SIGKILL leaves its staging folder ".<out>.failmap-<pid>-XXXXXX" beside --out. The next
# command writing the same --out removes those whose process is gone (no such pid, and the folder's flock is
# free), and leaves those of a live process, of a process holding the folder's lock (one in another pid
# namespace), of another output, and those without a pid in the name (src/encoding/staging.h).
dead=$(sh -c 'echo $$')  # a process that has exited
sleep 300 & live=$!
trap 'kill $live $holder 2>/dev/null; wait 2>/dev/null' EXIT
for d in ".parts.failmap-$dead-Ab12Cd" ".parts.failmap-$dead-Xy34Zw" ".parts.failmap-$live-Ab12Cd" \
         ".parts.failmap-$dead-Lk56Mn" ".other.failmap-$dead-Ab12Cd" ".parts.failmap-Ab12Cd" ".parts.failmap-$dead-x"; do
  mkdir "$d" && echo partial > "$d/assignments.jsonl"
done
python3 -c 'import fcntl, os, sys, time
fcntl.flock(os.open(sys.argv[1], os.O_RDONLY), fcntl.LOCK_EX)
open("locked", "w").close()
time.sleep(300)' ".parts.failmap-$dead-Lk56Mn" & holder=$!
for _ in $(seq 1 200); do [ -e locked ] && break; sleep 0.05; done
[ -e locked ] || fail "the lock holder did not start"

printf '{"id":"i%d","group":"g%d"}\n' 1 1 2 2 3 3 4 4 > listing.jsonl
expect_status 0 "$FAILMAP" split --input listing.jsonl --group-field group --ratios a=0.5,b=0.5 --out parts
[ -s parts/manifest.json ] || fail "split --out parts wrote no manifest"
left=$(ls -A | grep failmap- | sort | tr '\n' ' ')
want=$(printf '%s\n' ".other.failmap-$dead-Ab12Cd" ".parts.failmap-$dead-Lk56Mn" ".parts.failmap-$dead-x" \
         ".parts.failmap-$live-Ab12Cd" ".parts.failmap-Ab12Cd" | sort | tr '\n' ' ')
[ "$left" = "$want" ] || fail "staging folders left: '$left', expected '$want'"
[ "$(cat ".parts.failmap-$live-Ab12Cd/assignments.jsonl")" = partial ] || fail "a live process's staging folder changed"

# Once the lock holder is gone, its folder is stale too.
kill $holder; wait $holder 2>/dev/null || true  # killed here: its status is SIGTERM's, not under test
rm -r parts
expect_status 0 "$FAILMAP" split --input listing.jsonl --group-field group --ratios a=0.5,b=0.5 --out parts
[ ! -e ".parts.failmap-$dead-Lk56Mn" ] || fail "the staging folder of a dead lock holder was left"
[ -d ".parts.failmap-$live-Ab12Cd" ] || fail "a live process's staging folder was removed"
