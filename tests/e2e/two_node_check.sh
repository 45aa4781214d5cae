#!/usr/bin/env bash
# two_node_check.sh MLHARNESS WORK_DIR: a two-node launch on one machine. The test makes two network
# namespaces joined by a veth pair (10.231.0.1 and .2), each "node" with a hostname of its own (a UTS
# namespace); mpirun starts in node-a with a hostfile of both addresses, Open MPI's TCP transport on
# the veth, and its remote launch agent pointed at a script that enters node-b's namespaces instead of
# ssh. The NCF mini at 2 ranks per node (4 in all, 2 epochs, a checkpoint after each) must then:
#  - record node_count 2, ranks_per_node 2, each rank's host and local rank (0 and 1 on each node);
#  - leave one log, rank 0's, and one record; checkpoints with a state file from every rank;
#  - give the one-node run's result: the same evaluations and, rank for rank, the same checkpoint bytes.
# Needs root (or CAP_NET_ADMIN and CAP_SYS_ADMIN) and iproute2; skipped with exit 77 and the reason where
# namespaces cannot be made.
set -uo pipefail
binary=$(realpath "${1:?the mlharness binary}")
work=$2
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
fail() {
  echo "two_node_check: FAIL: $*" >&2
  exit 1
}
skip() {
  echo "two_node_check: SKIPPED: $*"
  exit 77
}

[ "$(id -u)" = 0 ] || skip "needs root to make network namespaces"
command -v ip >/dev/null || skip "no ip (iproute2)"
command -v unshare >/dev/null || skip "no unshare (util-linux)"
node_a=mlh_node_a_$$ node_b=mlh_node_b_$$
cleanup() { ip netns del "$node_a" 2>/dev/null; ip netns del "$node_b" 2>/dev/null; }
trap cleanup EXIT
ip netns add "$node_a" 2>netns.err || skip "cannot make a network namespace: $(cat netns.err)"
ip netns add "$node_b" || fail "a second namespace"
ip link add mlh_veth_a netns "$node_a" type veth peer name mlh_veth_b netns "$node_b" || fail "the veth pair"
ip -n "$node_a" addr add 10.231.0.1/24 dev mlh_veth_a && ip -n "$node_b" addr add 10.231.0.2/24 dev mlh_veth_b &&
  for link in "$node_a mlh_veth_a" "$node_a lo" "$node_b mlh_veth_b" "$node_b lo"; do
    set -- $link
    ip -n "$1" link set "$2" up || exit 1
  done || fail "addresses and links"

# Open MPI's rsh agent: `agent.sh HOST COMMAND...`, run instead of ssh for the other node.
cat >agent.sh <<EOF
#!/usr/bin/env bash
host=\$1
shift
case \$host in
  10.231.0.1) namespace=$node_a name=node-a ;;
  10.231.0.2) namespace=$node_b name=node-b ;;
  *) echo "agent.sh: unknown host \$host" >&2; exit 1 ;;
esac
echo "agent.sh: \$host" >>"$work/agent.log"
exec ip netns exec "\$namespace" unshare --uts bash -c "hostname \$name && \$*"
EOF
chmod +x agent.sh
printf '# two nodes of two slots, by their veth addresses\n10.231.0.1 slots=2\n10.231.0.2 slots=2\n' >hostfile

run=(--workload ncf --config mini --seed 1 --set max_epochs=2 --set target_hit_rate=0.999 --quiet
  --checkpoint-every 1 --keep-checkpoints 10 --platform cpu --data-dir "$work/data")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun --allow-run-as-root --oversubscribe -np 4 "$binary" "${run[@]}" --out "$work/one" >one.txt 2>&1
status=$?
{ [ "$status" = 0 ] || [ "$status" = 1 ]; } || { cat one.txt; fail "the one-node run exited $status"; }
printf -v two_node '%q ' mpirun --allow-run-as-root --oversubscribe --hostfile "$work/hostfile" -np 4 \
  --mca plm_rsh_agent "$work/agent.sh" --mca btl tcp,self,vader --mca btl_tcp_if_include 10.231.0.0/24 \
  --mca oob_tcp_if_include 10.231.0.0/24 "$binary" "${run[@]}" --out "$work/two"
timeout 600 ip netns exec "$node_a" unshare --uts bash -c "hostname node-a && $two_node" >two.txt 2>&1
status=$?
{ [ "$status" = 0 ] || [ "$status" = 1 ]; } || { cat two.txt; fail "the two-node run exited $status"; }
grep -qx "agent.sh: 10.231.0.2" agent.log || fail "node-b was not launched through the agent"

# One log and one record, rank 0's.
logs=$(find "$work/two" -name 'result_*' -type f)
[ "$(echo "$logs" | grep -c '\.txt$')" = 1 ] && [ "$(echo "$logs" | grep -c '\.json$')" = 1 ] ||
  fail "not one log and one record: $logs"
record=$(echo "$logs" | grep '\.json$')
log=${record%.json}.txt
/usr/bin/python3 - "$record" <<'EOF' || fail "the record's nodes and placement"
import json, sys
record = json.load(open(sys.argv[1]))
placement = [(p.get("rank", 0), p["host"], p.get("local_rank", 0)) for p in record["placement"]]
print("record: node_count", record["node_count"], "ranks_per_node", record["ranks_per_node"], "placement", placement)
assert record["world_size"] == 4 and record["node_count"] == 2 and record["ranks_per_node"] == 2
assert placement == [(0, "node-a", 0), (1, "node-a", 1), (2, "node-b", 0), (3, "node-b", 1)], placement
assert record["launcher"] == "mpirun (Open MPI)"
EOF
grep -q '"key": "mlharness_launch".*"nodes": 2' "$log" || fail "the log's launch line does not name 2 nodes"

# The same evaluations and, rank for rank, the same checkpoints as on one node.
evals() { grep '"key": "eval_accuracy"' "$1" | sed -E 's/.*"value": ([^,]*), .*"epoch_num": ([0-9]+).*/\2 \1/'; }
one_log=$(find "$work/one" -name 'result_*.txt')
[ -n "$(evals "$log")" ] || fail "no evaluation in the two-node log"
diff <(evals "$one_log") <(evals "$log") || fail "the evaluations differ from the one-node run's"
echo "evaluations (epoch, HR@10), as on one node: $(evals "$log" | tr '\n' ' ')"
for epoch in epoch_0001 epoch_0002; do
  one_checkpoint=$(find "$work/one" -type d -name "$epoch") two_checkpoint=$(find "$work/two" -type d -name "$epoch")
  [ -n "$two_checkpoint" ] || fail "no $epoch checkpoint"
  for rank in 0 1 2 3; do
    [ -f "$two_checkpoint/rank_$rank.state" ] || fail "$epoch has no state file of rank $rank"
    cmp -s "$one_checkpoint/rank_$rank.state" "$two_checkpoint/rank_$rank.state" ||
      fail "$epoch/rank_$rank.state differs from the one-node run's"
  done
done
echo "two_node_check: PASS"
