/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/**
 * Parse Prometheus' text format (0.0.4) strictly: every non-comment line must be a sample, every
 * `# TYPE` must name a known type, every sample's value must be a number (or ±Inf, NaN).
 * Throws on the first line that is not valid, so a test fails on broken output.
 */
export function parsePrometheusText(text: string): { samples: Sample[]; types: Record<string, string> } {
  const samples: Sample[] = [];
  const types: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (line.startsWith('# TYPE') && !type) throw new Error(`bad TYPE line: ${line}`);
      if (type) types[type[1]!] = type[2]!;
      continue;
    }
    const match = LINE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    const rest = (match[2] ?? '').replace(LABEL, (_all, key: string, value: string) => {
      labels[key] = value.replace(/\\(.)/g, (_escape, char: string) => (char === 'n' ? '\n' : char));
      return '';
    });
    if (rest.replace(/,/g, '').trim() !== '') throw new Error(`bad labels: ${line}`);
    const raw = match[3]!;
    // Prometheus reads values with Go's ParseFloat: NaN in any case (prom-client prints `Nan`), ±Inf.
    const value = /^[+-]?inf$/i.test(raw) ? (raw.startsWith('-') ? -Infinity : Infinity) : Number(raw);
    if (Number.isNaN(value) && !/^nan$/i.test(raw)) throw new Error(`bad value: ${line}`);
    samples.push({ name: match[1]!, labels, value });
  }
  return { samples, types };
}

/** The value of the one sample named `name` whose labels include `labels` (0 when there is none). */
export function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}
