#!/usr/bin/env bash
# Captures what a new user sees in a terminal of a given size, with tmux (capture-pane -p): the live view of an
# offline eval-trigger first run (fresh cache: the offline model loads), the last screen when it ends, and the first
# screen of the same report (skillbench report, piped through head). The screens in docs/reports.md come from:
#
#   npm run build && scripts/tmux-screens.sh 80 24 && scripts/tmux-screens.sh 120 40
#
# Output: $OUT (default /tmp/skillbench-screens)/<cols>x<rows>-{live,last,first}.txt. Needs tmux (apt-get install tmux).
set -euo pipefail
cols=${1:-80}
rows=${2:-24}
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/skillbench-screens}
work=$(mktemp -d)
session="skillbench-screens-$$"
socket="skillbench-screens-$$"
mkdir -p "$out"
cleanup() { tmux -L "$socket" kill-server 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

t() { tmux -L "$socket" "$@"; }
t new-session -d -s "$session" -x "$cols" -y "$rows" "bash --norc --noprofile"
sleep 0.3
t send-keys -t "$session" "export PS1='\$ '; cd '$root'; clear" Enter
sleep 0.3
t clear-history -t "$session"
name="$out/${cols}x${rows}"

# The live view: poll until the lane says the offline model is loading (or the run is over).
t send-keys -t "$session" "node bin/skillbench.js eval-trigger --cache-dir $work/cache -o $work/results.json" Enter
for _ in $(seq 1 400); do
  sleep 0.1
  t capture-pane -p -t "$session" > "$name-live.txt"
  grep -q 'loading the offline model' "$name-live.txt" && break
  grep -q 'wrote ' "$name-live.txt" && break
done
for _ in $(seq 1 600); do
  sleep 0.1
  [ -f "$work/results.json" ] && t capture-pane -p -t "$session" | grep -q '^\$ *$' && break
done
t capture-pane -p -t "$session" > "$name-last.txt"

# The first screen of the same report.
t send-keys -t "$session" "clear; COLUMNS=$cols node bin/skillbench.js report $work/results.json | head -n $((rows - 2))" Enter
sleep 3
t capture-pane -p -t "$session" > "$name-first.txt"
echo "tmux-screens: wrote $name-live.txt $name-last.txt $name-first.txt"
