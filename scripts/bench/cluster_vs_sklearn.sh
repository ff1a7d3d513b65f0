#!/usr/bin/env bash
# Side-by-side: helix's clustering and scikit-learn's DBSCAN(metric='cosine')
# and KMeans on identical inputs (planted clusters, 384 dimensions).
# Prints times, time ratios (sklearn / helix: above 1 means helix is faster)
# and the ARI between the two labelings. Both k-means keep the best of NINIT
# k-means++ restarts (default 3, all timed): equal work on both sides.
# Needs Debian's python3-sklearn (apt-get install python3-sklearn).
# Usage: scripts/bench/cluster_vs_sklearn.sh [n ...]   (default 2000 10000 20000)
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
$PY -c 'import sklearn' 2>/dev/null || { echo "install python3-sklearn (apt-get install python3-sklearn)" >&2; exit 2; }
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(2000 10000 20000)
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
go build -o "$dir/clusterbench" ./scripts/bench/clusterbench
D=384 K=20 MS=5 NINIT=${NINIT:-3}
cat >"$dir/sk.py" <<'PY'
import sys, time, numpy as np
from sklearn.cluster import DBSCAN, KMeans
from sklearn.preprocessing import normalize
path, d, algo, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
X = normalize(np.fromfile(path, dtype=np.float32).reshape(-1, d))
t = time.perf_counter()
if algo == "dbscan":
    labels = DBSCAN(eps=float(sys.argv[5]), min_samples=int(sys.argv[6]), metric="cosine").fit_predict(X)
else:
    labels = KMeans(n_clusters=int(sys.argv[5]), n_init=int(sys.argv[6]), random_state=0).fit_predict(X)
print("%.3f" % (time.perf_counter() - t))
np.savetxt(out, labels, fmt="%d")
PY
ari() { $PY -c 'import sys, numpy as np; from sklearn.metrics import adjusted_rand_score as a; print("%.4f" % a(np.loadtxt(sys.argv[1]), np.loadtxt(sys.argv[2])))' "$1" "$2"; }
echo "k-means restarts on both sides: $NINIT; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-7s %-7s %10s %10s %8s %12s %10s\n' n algo helix_s sklearn_s ratio ari_vs_sk ari_truth
for n in "${sizes[@]}"; do
  f="$dir/x$n.f32"
  "$dir/clusterbench" gen -n "$n" -d $D -k $K -seed 1 -out "$f"
  # eps from helix's k-distance elbow, then both libraries cluster with that eps.
  eps=$("$dir/clusterbench" run -in "$f" -d $D -algo dbscan -min-samples $MS -out "$dir/auto.txt" 2>&1 >/dev/null | awk '/elbow eps/ {print $3}')
  ht=$("$dir/clusterbench" run -in "$f" -d $D -algo dbscan -eps "$eps" -min-samples $MS -out "$dir/h.txt")
  st=$($PY "$dir/sk.py" "$f" $D dbscan "$dir/s.txt" "$eps" $MS)
  printf '%-7s %-7s %10s %10s %8.2f %12s %10s   (eps %s)\n' "$n" dbscan "$ht" "$st" "$(echo "$st / $ht" | bc -l)" "$(ari "$dir/h.txt" "$dir/s.txt")" "$(ari "$dir/h.txt" "$f.truth")" "$eps"
  # k-means has no noise label: its input has the same clusters and no random points.
  f="$dir/k$n.f32"
  "$dir/clusterbench" gen -n "$n" -d $D -k $K -seed 1 -noise 0 -out "$f"
  ht=$("$dir/clusterbench" run -in "$f" -d $D -algo kmeans -k $K -n-init $NINIT -out "$dir/h.txt")
  st=$($PY "$dir/sk.py" "$f" $D kmeans "$dir/s.txt" $K $NINIT)
  printf '%-7s %-7s %10s %10s %8.2f %12s %10s\n' "$n" kmeans "$ht" "$st" "$(echo "$st / $ht" | bc -l)" "$(ari "$dir/h.txt" "$dir/s.txt")" "$(ari "$dir/h.txt" "$f.truth")"
done
