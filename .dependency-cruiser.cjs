/**
 * The layers of src/, bottom to top: each top folder imports only the folders below it (and itself), and no file
 * imports itself back through others, no folder imports another folder that imports it back (sibling folders of a
 * layer form no cycle either), and no feature imports another. `npm run lint` runs it: any of these fails CI.
 *   core (errors, messages, util, config) ← domain (engine, flags, pricing, usage, llm: libraries, no store)
 *   ← state (SQLite, Redis) ← runtime (filter host, pipes, metrics, store-backed services)
 *   ← features (context, accounting, spend-limit, proxy, dashboard, integrations) ← server (routes, middleware)
 *   ← entry points (src/*.ts, cli, supervisor)
 */
const LAYERS = ['core', 'domain', 'state', 'runtime', 'features', 'server'];
const ENTRY = '^src/(cli/|supervisor/|[^/]+\\.ts$)';
const layer = (name) => `^src/${name}/`;

const upward = LAYERS.map((name, index) => ({
  name: `${name}-imports-upward`,
  comment: `src/${name} may import only ${LAYERS.slice(0, index).join(', ') || 'itself'} (the layers below it)`,
  severity: 'error',
  from: { path: layer(name) },
  to: { path: [...LAYERS.slice(index + 1).map(layer), ENTRY] },
}));

/** Folders `names` (a regex alternative) below `parent` that must not import one another. */
const siblingsApart = (name, comment, parent, names) => ({
  name,
  comment,
  severity: 'error',
  from: { path: `^${parent}(${names})/` },
  to: { path: `^${parent}(${names})/`, pathNot: `^${parent}$1/` },
});

module.exports = {
  forbidden: [
    ...upward,
    siblingsApart(
      'feature-imports-feature',
      'a feature (src/features/<name>/) must not import another feature: what two features share moves down a layer',
      'src/features/',
      '[^/]+',
    ),
    siblingsApart(
      'state-backends-apart',
      'a state backend (src/state/sqlite, src/state/redis) does not import the other: what both use lives in src/state (journal/, …)',
      'src/state/',
      'sqlite|redis',
    ),
    {
      name: 'no-folder-cycle',
      comment:
        'folders must not import each other back (src/runtime/host ↔ src/runtime/pipes): one of the two sits below the other, what both need moves into the lower one or a folder below both',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-circular',
      comment: 'a file must not import itself back through other files',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    // TypeScript 7 (the native compiler) has no JavaScript API for dependency-cruiser to parse with: swc parses the .ts files.
    parser: 'swc',
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.mts', '.js', '.mjs'] },
  },
};
