#!/usr/bin/env bash
# Side by side on real labelled corpora no one here wrote, each from a Debian
# package, balanced-ish and never seen by the code:
#   fortunes  Debian's fortunes (package fortunes): one text per fortune, its
#             file the label (science food computers love sports politics
#             literature medicine: 2,000+ texts);
#   wordnet   WordNet 3.0 noun glosses (package wordnet-base): "lemma: gloss",
#             its lexicographer file the label (noun.animal, .artifact, .body,
#             .food, .location, .person, .plant, .substance), 300 of each
#             (every n-th synset, deterministic).
# For each corpus, two comparisons:
#   in-process  helix's pipeline alone (scripts/bench/textbench: TF-IDF → LSA →
#               spherical k-means with the TRUE k) against scikit-learn's
#               TfidfVectorizer(sublinear_tf=True, stop_words='english') →
#               TruncatedSVD(100) → KMeans with the true k, same restarts;
#   default     `helix synthesize` with no --algorithm (what a new user gets: k
#               unknown, chosen by silhouette; whole process, PostgreSQL read
#               included) against `python3 sk.py` with scikit-learn's LSA
#               recipe TfidfVectorizer → TruncatedSVD(100) → Normalizer →
#               KMeans with the TRUE k (interpreter start, imports, read, fit),
#               and, for reference, helix --algorithm dbscan (the default
#               before issue 33, eps from the k-distance elbow).
# Each line prints ARI against the labels, the share of texts in the largest
# cluster and the seconds taken. The load average is printed first: on a busy
# machine the times are noisy.
# Needs: apt-get install fortunes fortunes-min wordnet-base python3-sklearn;
# a PostgreSQL (HELIX_TEST_DATABASE_URL, default the local server).
# Usage: scripts/bench/text_vs_sklearn.sh [fortunes|wordnet ...]   (default: both)
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
$PY -c 'import sklearn' 2>/dev/null || { echo "install python3-sklearn (apt-get install python3-sklearn)" >&2; exit 2; }
[ -f /usr/share/games/fortunes/science ] || { echo "install fortunes (apt-get install fortunes fortunes-min)" >&2; exit 2; }
[ -f /usr/share/wordnet/data.noun ] || { echo "install wordnet-base (apt-get install wordnet-base)" >&2; exit 2; }
corpora=("$@"); [ ${#corpora[@]} -gt 0 ] || corpora=(fortunes wordnet)
NINIT=${NINIT:-5} COMPONENTS=100 RUNS=${RUNS:-3}
server=${HELIX_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
name=helix_bench_text_$$
dir=$(mktemp -d)
trap 'for c in "${corpora[@]}"; do psql -q "$server" -c "DROP DATABASE IF EXISTS ${name}_$c WITH (FORCE)" >/dev/null 2>&1; done; rm -rf "$dir"' EXIT
CGO_ENABLED=0 go build -o "$dir/helix" ./cmd/helix
go build -o "$dir/textbench" ./scripts/bench/textbench
U=5f0c7e52-0000-4000-8000-000000000018

# corpus NAME OUT: writes OUT/texts.jsonl ({"text","category"}), OUT/memories.jsonl
# (one user's memories, no embeddings) and OUT/truth.tsv (memory id, category).
corpus() {
  $PY - "$1" "$2" "$U" <<'PY'
import json, sys, uuid, datetime
kind, out, user = sys.argv[1:4]
items = []
if kind == "fortunes":
    for c in "science food computers love sports politics literature medicine".split():
        for f in open(f"/usr/share/games/fortunes/{c}", encoding="utf-8", errors="replace").read().split("\n%\n"):
            f = f.strip().strip("%").strip()
            if f:
                items.append((f, c))
elif kind == "wordnet":
    lex = {"05": "animal", "06": "artifact", "08": "body", "13": "food", "15": "location",
           "18": "person", "20": "plant", "27": "substance"}
    by = {c: [] for c in lex.values()}
    for l in open("/usr/share/wordnet/data.noun", encoding="latin-1"):
        if l.startswith("  ") or "|" not in l:
            continue
        f = l.split()
        if f[1] in lex:
            lemma = f[4].replace("_", " ")
            by[lex[f[1]]].append(lemma + ": " + l.split("|", 1)[1].strip())
    for c, texts in by.items():
        step = len(texts) // 300
        items += [(t, c) for t in texts[::step][:300]]
else:
    sys.exit(f"unknown corpus {kind}: use fortunes or wordnet")
t0 = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)
with open(out + "/texts.jsonl", "w") as tx, open(out + "/memories.jsonl", "w") as mem, open(out + "/truth.tsv", "w") as tr:
    for i, (text, c) in enumerate(items):
        mid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{kind}/{c}/{i}"))
        tx.write(json.dumps({"text": text, "category": c}) + "\n")
        mem.write(json.dumps({"id": mid, "user_id": user, "type": "semantic", "content": text,
                              "created_at": (t0 + datetime.timedelta(hours=i)).isoformat()}) + "\n")
        tr.write(f"{mid}\t{c}\n")
PY
}

cat >"$dir/sk.py" <<'PY'
import sys, time, json
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.decomposition import TruncatedSVD
from sklearn.preprocessing import Normalizer
from sklearn.cluster import KMeans
path, k, comps, ninit, out, norm = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6] == "1"
texts = [json.loads(l)["text"] for l in open(path)]
t = time.perf_counter()
X = TfidfVectorizer(sublinear_tf=True, stop_words="english").fit_transform(texts)
Z = TruncatedSVD(n_components=comps, random_state=0).fit_transform(X)
if norm:
    Z = Normalizer(copy=False).fit_transform(Z)
labels = KMeans(n_clusters=k, n_init=ninit, random_state=0).fit_predict(Z)
fit = time.perf_counter() - t
open(out, "w").write("\n".join(map(str, labels)) + "\n")
print("%.3f" % fit)
PY
# score TRUTH LABELS: ARI and the largest cluster's share of the texts.
score() { $PY - "$@" <<'PY'
import sys, json, collections
from sklearn.metrics import adjusted_rand_score
truth = [json.loads(l)["category"] for l in open(sys.argv[1])]
pred = [l.strip() for l in open(sys.argv[2]) if l.strip()]
big = max(collections.Counter(p for p in pred if p != "noise").values(), default=0)
print("%.4f %.3f" % (adjusted_rand_score(truth, pred), big / len(pred)))
PY
}
# synlabels SYN.JSON TRUTH TEXTS OUT: helix's clusters as one label per text (noise: its own label).
synlabels() { $PY - "$@" <<'PY'
import sys, json
rep = json.load(open(sys.argv[1]))
truth = [l.rstrip("\n").split("\t")[0] for l in open(sys.argv[2])]
label = {m: "noise" for m in truth}
pats = [p for p in rep["users"][0]["patterns"] if p["pattern_type"] == "semantic_cluster"]
for i, p in enumerate(pats):
    for m in p["memory_ids"]:
        label[m] = str(i)
open(sys.argv[4], "w").write("\n".join(label[m] for m in truth) + "\n")
ev = pats[0]["evidence"] if pats else {}
print(f"{len(pats)} clusters, algorithm {ev.get('algorithm')} {json.dumps(ev.get('params'))}", file=sys.stderr)
PY
}
now() { date +%s.%N; }

echo "load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs; LSA $COMPONENTS components; k-means++ restarts $NINIT for sklearn and textbench"
for c in "${corpora[@]}"; do
  mkdir -p "$dir/$c"; d=$dir/$c
  corpus "$c" "$d"
  n=$(wc -l <"$d/texts.jsonl"); k=$($PY -c "import json,sys; print(len({json.loads(l)['category'] for l in open(sys.argv[1])}))" "$d/texts.jsonl")
  echo
  echo "== $c: $n texts, $k labels"
  printf '%-3s %-44s %8s %8s %8s\n' run method ARI largest seconds
  for r in $(seq "$RUNS"); do
    ht=$("$dir/textbench" -in "$d/texts.jsonl" -out "$d/h.txt" -k "$k" -components $COMPONENTS -n-init "$NINIT" -seed "$r")
    printf '%-3s %-44s %8s %8s %8.3f\n' "$r" "in-process helix textbench, true k" $(score "$d/texts.jsonl" "$d/h.txt") "$ht"
    st=$($PY "$d/../sk.py" "$d/texts.jsonl" "$k" $COMPONENTS "$NINIT" "$d/s.txt" 0)
    printf '%-3s %-44s %8s %8s %8.3f\n' "$r" "in-process sklearn TF-IDF→SVD→KMeans, true k" $(score "$d/texts.jsonl" "$d/s.txt") "$st"
  done
  # The production path: the texts as one user's memories without embeddings.
  db=${name}_$c
  psql -q "$server" -c "CREATE DATABASE $db" >/dev/null
  export HELIX_DATABASE_URL=$(echo "$server" | sed -E "s#/[^/?]*(\?|$)#/$db\1#")
  "$dir/helix" migrate up >/dev/null
  "$dir/helix" import memories "$d/memories.jsonl" >/dev/null 2>&1
  for r in $(seq "$RUNS"); do
    t0=$(now); "$dir/helix" synthesize --user-id $U --min-confidence 0 --dry-run -o json >"$d/syn.json" 2>/dev/null; t1=$(now)
    info=$(synlabels "$d/syn.json" "$d/truth.tsv" "$d/texts.jsonl" "$d/hd.txt" 2>&1)
    printf '%-3s %-44s %8s %8s %8.3f  %s\n' "$r" "helix synthesize (default)" $(score "$d/texts.jsonl" "$d/hd.txt") "$(echo "$t1 - $t0" | bc)" "$info"
    t0=$(now); $PY "$dir/sk.py" "$d/texts.jsonl" "$k" $COMPONENTS "$NINIT" "$d/sn.txt" 1 >/dev/null; t1=$(now)
    printf '%-3s %-44s %8s %8s %8.3f\n' "$r" "python3 sklearn …→Normalizer→KMeans, true k" $(score "$d/texts.jsonl" "$d/sn.txt") "$(echo "$t1 - $t0" | bc)"
  done
  t0=$(now); "$dir/helix" synthesize --user-id $U --algorithm dbscan --min-confidence 0 --dry-run -o json >"$d/syn.json" 2>/dev/null; t1=$(now)
  info=$(synlabels "$d/syn.json" "$d/truth.tsv" "$d/texts.jsonl" "$d/hb.txt" 2>&1)
  printf '%-3s %-44s %8s %8s %8.3f  %s\n' "-" "helix synthesize --algorithm dbscan" $(score "$d/texts.jsonl" "$d/hb.txt") "$(echo "$t1 - $t0" | bc)" "$info"
done
