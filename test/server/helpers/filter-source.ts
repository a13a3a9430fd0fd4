import { SDK_SPECIFIER } from '../../helpers/create-test-runtime.js';

/** The import line every generated filter starts with (the SDK of this checkout, by absolute path). */
export const sdkImport = `import { defineFilter, baseValves, z, FilterError } from ${JSON.stringify(SDK_SPECIFIER)};\n`;

/** A filter file: the SDK import, then `body` (which must `export default defineFilter({...})`). */
export function filterSource(body: string): string {
  return `${sdkImport}${body}\n`;
}

/** A filter whose inlet and outlet return the body they were given (a no-op). */
export function noopFilter(options: { name?: string; pipelines?: string[]; priority?: number } = {}): string {
  const valves =
    options.pipelines || options.priority !== undefined
      ? `valves: baseValves.extend({
    pipelines: z.array(z.string()).default(${JSON.stringify(options.pipelines ?? ['*'])}),
    priority: z.number().int().default(${options.priority ?? 0}),
  }),`
      : '';
  return filterSource(`export default defineFilter({
  name: ${JSON.stringify(options.name ?? 'No-op')},
  ${valves}
  inlet: ({ body }) => body,
  outlet: ({ body }) => body,
});`);
}

/** A filter that adds `marker` to the body in both hooks (shows whether it ran). */
export function markerFilter(options: { name?: string; pipelines?: string[]; marker?: string } = {}): string {
  return filterSource(`export default defineFilter({
  name: ${JSON.stringify(options.name ?? 'Marker')},
  valves: baseValves.extend({
    pipelines: z.array(z.string()).default(${JSON.stringify(options.pipelines ?? ['*'])}),
  }),
  inlet: ({ body, hook }) => ({ ...body, marker: ${JSON.stringify(options.marker ?? 'seen')}, hook }),
  outlet: ({ body, hook }) => ({ ...body, marker: ${JSON.stringify(options.marker ?? 'seen')}, hook }),
});`);
}

/**
 * A filter that appends one JSON line per lifecycle event (`startup`, `shutdown`,
 * `valves`) to `logFile`, tagged with `tag`.
 */
export function lifecycleFilter(
  logFile: string,
  tag: string,
  options: { priority?: number; startupThrows?: boolean; shutdownThrows?: boolean } = {},
): string {
  return `import { appendFileSync } from 'node:fs';
${sdkImport}
const log = (event, extra = {}) => appendFileSync(${JSON.stringify(logFile)}, JSON.stringify({ tag: ${JSON.stringify(tag)}, event, ...extra }) + '\\n');
let started = false;
export default defineFilter({
  name: ${JSON.stringify(tag)},
  valves: baseValves.extend({
    priority: z.number().int().default(${options.priority ?? 0}),
    level: z.number().int().default(1),
  }),
  async onStartup({ valves }) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    ${options.startupThrows ? "throw new Error('startup exploded');" : ''}
    started = true;
    log('startup', { level: valves.level });
  },
  async onShutdown() {
    log('shutdown');
    ${options.shutdownThrows ? "throw new Error('shutdown exploded');" : ''}
  },
  async onValvesUpdated({ valves }) {
    log('valves', { level: valves.level });
  },
  inlet: ({ body }) => ({ ...body, started }),
});
`;
}
