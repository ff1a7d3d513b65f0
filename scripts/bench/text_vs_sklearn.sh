#!/usr/bin/env bash
# Side by side on a real labelled corpus no one here wrote: Debian's fortunes,
# each fortune file a category. helix's text-only clustering against
# scikit-learn's TfidfVectorizer(sublinear_tf=True, stop_words='english') →
# TruncatedSVD(100) → KMeans, same texts, same k (the number of categories),
# same number of k-means++ restarts. Prints the ARI of each against the
# categories and the time of each, twice:
#   in-process  the pipeline alone (helix: scripts/bench/textbench; sklearn:
#               fit_transform + fit_predict), input already in memory;
#   whole       helix synthesize --algorithm kmeans --dry-run over the texts
#               loaded as one user's memories without embeddings (k chosen by
#               silhouette, as in production; reading PostgreSQL included)
#               against `python3 sk.py` (interpreter start, imports, read, fit).
# Needs: apt-get install fortunes fortunes-min python3-sklearn; a PostgreSQL
# (HELIX_TEST_DATABASE_URL, default the local server).
# Usage: scripts/bench/text_vs_sklearn.sh [category ...]
#   (default: science food computers love sports politics literature medicine)
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
FORTUNES=/usr/share/games/fortunes
$PY -c 'import sklearn' 2>/dev/null || { echo "install python3-sklearn (apt-get install python3-sklearn)" >&2; exit 2; }
[ -f $FORTUNES/science ] || { echo "install fortunes (apt-get install fortunes fortunes-min)" >&2; exit 2; }
cats=("$@"); [ ${#cats[@]} -gt 0 ] || cats=(science food computers love sports politics literature medicine)
NINIT=${NINIT:-5} COMPONENTS=100 RUNS=${RUNS:-3}
server=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
name=helix_bench_text_$$
dburl=$(echo "$server" | sed -E "s#/[^/?]*(\?|$)#/$name\1#")
dir=$(mktemp -d)
trap 'psql -q "$server" -c "DROP DATABASE IF EXISTS $name WITH (FORCE)" >/dev/null 2>&1; rm -rf "$dir"' EXIT
CGO_ENABLED=0 go build -o "$dir/helix" ./cmd/helix
go build -o "$dir/textbench" ./scripts/bench/textbench
U=5f0c7e52-0000-4000-8000-000000000018

# One fortune per record (files are separated by lines of "%"), its file's name the category.
$PY - "$dir" "$U" $FORTUNES "${cats[@]}" <<'PY'
import json, sys, uuid, datetime
out, user, root, cats = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
t0 = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)
with open(out + "/texts.jsonl", "w") as tx, open(out + "/memories.jsonl", "w") as mem, open(out + "/truth.tsv", "w") as tr:
    i = 0
    for c in cats:
        for f in open(f"{root}/{c}", encoding="utf-8", errors="replace").read().split("\n%\n"):
            f = f.strip().strip("%").strip()
            if not f:
                continue
            mid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"fortune/{c}/{i}"))
            tx.write(json.dumps({"text": f, "category": c}) + "\n")
            mem.write(json.dumps({"id": mid, "user_id": user, "type": "semantic", "content": f,
                                  "created_at": (t0 + datetime.timedelta(hours=i)).isoformat()}) + "\n")
            tr.write(f"{mid}\t{c}\n")
            i += 1
PY
n=$(wc -l <"$dir/texts.jsonl")
k=${#cats[@]}

cat >"$dir/sk.py" <<'PY'
import sys, time, json
t_start = time.perf_counter()
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.decomposition import TruncatedSVD
from sklearn.cluster import KMeans
path, k, comps, ninit, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
texts = [json.loads(l)["text"] for l in open(path)]
t = time.perf_counter()
X = TfidfVectorizer(sublinear_tf=True, stop_words="english").fit_transform(texts)
Z = TruncatedSVD(n_components=comps, random_state=0).fit_transform(X)
labels = KMeans(n_clusters=k, n_init=ninit, random_state=0).fit_predict(Z)
fit = time.perf_counter() - t
open(out, "w").write("\n".join(map(str, labels)) + "\n")
print("%.3f" % fit)
PY
ari() { $PY - "$@" <<'PY'
import sys, json
from sklearn.metrics import adjusted_rand_score
truth = [json.loads(l)["category"] for l in open(sys.argv[1])]
pred = [l.strip() for l in open(sys.argv[2]) if l.strip()]
print("%.4f" % adjusted_rand_score(truth, pred))
PY
}
now() { date +%s.%N; }

echo "fortunes: $n texts in $k categories (${cats[*]}); LSA $COMPONENTS components; k-means++ restarts $NINIT on both sides"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
printf '%-3s %-11s %12s %12s %10s %10s\n' run measure helix_s sklearn_s helix_ari sklearn_ari
for r in $(seq "$RUNS"); do
  t0=$(now); ht=$("$dir/textbench" -in "$dir/texts.jsonl" -out "$dir/h.txt" -k "$k" -components $COMPONENTS -n-init "$NINIT" -seed "$r"); t1=$(now)
  hw=$(echo "$t1 - $t0" | bc)
  t0=$(now); st=$($PY "$dir/sk.py" "$dir/texts.jsonl" "$k" $COMPONENTS "$NINIT" "$dir/s.txt"); t1=$(now)
  sw=$(echo "$t1 - $t0" | bc)
  printf '%-3s %-11s %12.3f %12.3f %10s %10s\n' "$r" in-process "$ht" "$st" "$(ari "$dir/texts.jsonl" "$dir/h.txt")" "$(ari "$dir/texts.jsonl" "$dir/s.txt")"
  printf '%-3s %-11s %12.3f %12.3f %10s %10s\n' "$r" whole "$hw" "$sw" "" ""
done

# The production path: the texts as one user's memories without embeddings.
psql -q "$server" -c "CREATE DATABASE $name" >/dev/null
export HELIX_DATABASE_URL=$dburl
"$dir/helix" migrate up >/dev/null
"$dir/helix" import memories "$dir/memories.jsonl" >/dev/null 2>&1
t0=$(now)
"$dir/helix" synthesize --user-id $U --algorithm kmeans --min-confidence 0 --dry-run -o json >"$dir/syn.json" 2>/dev/null
t1=$(now)
$PY - "$dir/syn.json" "$dir/truth.tsv" "$(echo "$t1 - $t0" | bc)" <<'PY'
import sys, json
from sklearn.metrics import adjusted_rand_score
rep = json.load(open(sys.argv[1]))
truth = dict(l.rstrip("\n").split("\t") for l in open(sys.argv[2]))
label = {m: "noise" for m in truth}
pats = [p for p in rep["users"][0]["patterns"] if p["pattern_type"] == "semantic_cluster"]
for i, p in enumerate(pats):
    for m in p["memory_ids"]:
        label[m] = i
ids = sorted(truth)
ari = adjusted_rand_score([truth[m] for m in ids], [str(label[m]) for m in ids])
sp = pats[0]["evidence"]["space"] if pats else {}
print(f"helix synthesize (whole process, DB read included, k by silhouette = {rep['users'][0]['patterns'] and pats[0]['evidence']['params']['k']}): "
      f"{float(sys.argv[3]):.3f}s, {len(pats)} semantic clusters, ARI {ari:.4f}, space {sp.get('space')} "
      f"({sp.get('components')} components, vocabulary {sp.get('vocabulary')}, explained variance {sp.get('explained_variance')})")
PY
