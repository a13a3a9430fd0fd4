import v8 from 'node:v8';

/**
 * Turns V8's allocation-site pretenuring off, for the whole process (filter worker threads included).
 *
 * Why: a context plan allocates a few thousand short-lived objects per request (a node and a unit per
 * message, plan entries, score arrays). When a young-generation collection happens in the middle of a
 * plan, all of them are still alive, so V8 learns that those allocation sites "survive" and from then
 * on allocates them directly in the old generation: slower to allocate, and left for the full
 * collector. On the real 663-message warm chat of `bench:inlet` the plan then took about 1.6× as long
 * (parsing the conversation alone 0.5 ms instead of 0.15 ms). Objects that really live long (the
 * caches) are promoted by the ordinary collector after surviving two collections.
 *
 * Called once at the start of `main()` in the server entry (`src/main.ts`, before it imports the runtime and
 * before any request is planned) and by the benches that measure it. Node documents flags set after start-up as
 * unpredictable; this one only steers where V8 allocates, and `bench:inlet` shows it taking effect
 * (`BENCH_V8_DEFAULTS=1` to compare).
 */
export function tuneV8(): void {
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
}
