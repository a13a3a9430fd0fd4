/**
 * `npm run check:deploy`: what can be checked of the container without a Docker daemon.
 *
 * 1. Copies what the Dockerfile's runtime stage COPYs into a clean folder and runs
 *    `npm ci --omit=dev` there (the deps stage): no devDependencies, tsx and esbuild present; then the
 *    runtime stage's `RUN node …` steps (the build of dist/).
 * 2. Writes a filter into a folder outside that copy (a mounted-style FILTERS_DIR without a
 *    package.json) that imports the SDK by package name.
 * 3. Runs the Dockerfile's CMD with the Dockerfile's ENV (paths pointed at temp folders), as the
 *    unprivileged user `nobody` when run as root (the app copy stays root-owned, so read-only for it),
 *    with PRICING_FETCH=false (no internet at start).
 * 4. Checks /healthz and /readyz without a key, the shipped filters and the mounted one in
 *    /pipelines, an inlet through the mounted filter, /metrics with the key; then SIGTERM: exit 0.
 *
 * Exits 1 with the reason on the first failed check. Not checked here: the image build itself,
 * the HEALTHCHECK and VOLUME instructions, compose networking, Open WebUI in a container.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import { freePort } from '../bench/lib/free-port.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const KEY = 'check-deploy-key-0123456789';
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

function step(message: string): void {
  process.stdout.write(`== ${message}\n`);
}

function fail(message: string): never {
  process.stderr.write(`check:deploy FAILED: ${message}\n`);
  process.exit(1);
}

function check(condition: unknown, message: string): void {
  if (!condition) fail(message);
  process.stdout.write(`   ok: ${message}\n`);
}

/** The runtime stage of the Dockerfile: its COPY sources (not --from), ENV, `RUN node …` steps and CMD. */
function readDockerfile(): { copies: string[]; env: Record<string, string>; runs: string[][]; cmd: string[] } {
  const text = readFileSync(path.join(repo, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, ' ');
  const stage = text.slice(text.lastIndexOf('\nFROM '));
  const copies: string[] = [];
  const runs: string[][] = [];
  const env: Record<string, string> = {};
  let cmd: string[] | undefined;
  for (const line of stage.split('\n').map((entry) => entry.trim())) {
    if (line.startsWith('COPY ') && !line.includes('--from')) copies.push(...line.split(/\s+/).slice(1, -1));
    if (line.startsWith('RUN node ')) runs.push(line.slice(4).split(/\s+/));
    if (line.startsWith('ENV ')) for (const match of line.slice(4).matchAll(/(\w+)=(\S+)/g)) env[match[1]!] = match[2]!;
    if (line.startsWith('CMD ')) cmd = JSON.parse(line.slice(4)) as string[];
  }
  if (!cmd) fail('the Dockerfile has no CMD in its last stage');
  return { copies, env, runs, cmd };
}

async function until<T>(probe: () => Promise<T | undefined>, seconds: number, what: string): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) fail(`${what} within ${seconds} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const userFilter = `import { baseValves, defineFilter, z } from 'eunoe';
export default defineFilter({
  name: 'Mounted',
  valves: baseValves.extend({ pipelines: z.array(z.string()).default(['*']) }),
  inlet: ({ body }) => ({ ...body, mounted: true }),
});
`;

async function main(): Promise<void> {
  const dockerfile = readDockerfile();
  const work = mkdtempSync(path.join(os.tmpdir(), 'eunoe-deploy-'));
  chmodSync(work, 0o755); // mkdtemp makes it 0700: the unprivileged user must reach the app, as /app in the image
  const keep = process.argv.includes('--keep');
  const app = path.join(work, 'app');
  const filters = path.join(work, 'mounted-filters');
  const data = path.join(work, 'data');
  let child: ReturnType<typeof spawn> | undefined;
  process.on('exit', () => {
    child?.kill('SIGKILL');
    if (!keep) rmSync(work, { recursive: true, force: true });
  });

  step(`copy what the Dockerfile copies (${dockerfile.copies.join(', ')}) into ${app}`);
  mkdirSync(app, { recursive: true });
  for (const entry of dockerfile.copies) cpSync(path.join(repo, entry), path.join(app, entry), { recursive: true });
  check(!existsSync(path.join(app, 'dist')), 'the copy has no dist/ before the build step');
  check(!existsSync(path.join(app, 'node_modules')), 'the copy has no node_modules before npm ci');

  step('npm ci --omit=dev (the deps stage)');
  const ci = spawnSync('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: app,
    stdio: 'inherit',
  });
  check(ci.status === 0, 'npm ci --omit=dev succeeded');
  check(existsSync(path.join(app, 'node_modules/tsx')), 'tsx (runtime dependency) is installed');
  check(
    existsSync(path.join(app, 'node_modules/esbuild')),
    'esbuild (runtime dependency, the build step) is installed',
  );
  for (const [command, ...args] of dockerfile.runs) {
    step(`RUN ${[command, ...args].join(' ')} (the runtime stage)`);
    const run = spawnSync(command === 'node' ? process.execPath : command!, args, { cwd: app, stdio: 'inherit' });
    check(run.status === 0, `${[command, ...args].join(' ')} succeeded`);
  }
  check(existsSync(path.join(app, 'dist/main.js')), 'the build step made dist/main.js');
  for (const dev of ['vitest', 'typescript', '@biomejs/biome', 'supertest'])
    check(!existsSync(path.join(app, 'node_modules', dev)), `devDependency ${dev} is not installed`);

  step(`a mounted-style filters folder outside the app, without package.json: ${filters}`);
  mkdirSync(filters);
  mkdirSync(data);
  writeFileSync(path.join(filters, 'mounted.ts'), userFilter);
  if (asRoot) {
    // As in the image: the server's user owns only the data directory and the filters folder.
    for (const dir of [filters, data, path.join(filters, 'mounted.ts')]) chownSync(dir, NOBODY, NOBODY);
  }

  const port = await freePort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: data,
    ...dockerfile.env,
    DATA_DIR: data,
    VALVES_DIR: path.join(data, 'valves'),
    PRICING_DIR: path.join(data, 'pricing'),
    FILTERS_DIR: filters,
    HOST: '127.0.0.1',
    PORT: String(port),
    PIPELINES_API_KEY: KEY,
    PRICING_FETCH: 'false',
  };
  const [command, ...args] = dockerfile.cmd;
  step(`start the Dockerfile's CMD (${dockerfile.cmd.join(' ')}) in the copy${asRoot ? ' as nobody' : ''}`);
  let output = '';
  child = spawn(command === 'node' ? process.execPath : command!, args, {
    cwd: app,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child?.on('exit', (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  const auth = { Authorization: `Bearer ${KEY}` };

  await until(
    async () => (child?.exitCode === null ? ((await fetch(`${base}/healthz`)).ok ? true : undefined) : fail(output)),
    90,
    `GET /healthz answered 200 (output so far:\n${output})`,
  );
  check(true, 'GET /healthz answers 200 without a key');
  check((await fetch(`${base}/readyz`)).status === 200, 'GET /readyz answers 200 without a key');
  check((await fetch(`${base}/pipelines`)).status === 401, 'GET /pipelines needs the key');
  const list = (await (await fetch(`${base}/pipelines`, { headers: auth })).json()) as {
    data: Array<{ id: string; status: string; origin: string }>;
  };
  const byId = new Map(list.data.map((entry) => [entry.id, entry]));
  check(
    byId.get('mounted')?.status === 'loaded' && byId.get('mounted')?.origin === 'user',
    'the mounted filter (import from "eunoe") is loaded, origin user',
  );
  for (const id of ['context', 'accounting', 'spend-limit', 'system-prefix', 'turn-limit'])
    check(byId.get(id)?.status === 'loaded' && byId.get(id)?.origin === 'package', `shipped filter ${id} is loaded`);
  const inlet = await fetch(`${base}/mounted/filter/inlet`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, user: { id: 'u' } }),
  });
  check(inlet.ok && ((await inlet.json()) as { mounted?: boolean }).mounted === true, 'the mounted filter runs');
  const metrics = await fetch(`${base}/metrics`, { headers: auth });
  check(metrics.ok && (await metrics.text()).includes('eunoe_http_requests_total'), 'GET /metrics answers');
  check(existsSync(path.join(data, 'eunoe.db')), 'the SQLite state is in the data directory');

  step('SIGTERM: drain and exit 0');
  child.kill('SIGTERM');
  const code = await Promise.race([
    exited,
    new Promise<string>((resolve) => setTimeout(() => resolve('timeout'), 20_000)),
  ]);
  check(code === 0, `the server exited 0 after SIGTERM (got ${code})`);
  child = undefined;
  step('check:deploy passed');
}

main().catch((error: unknown) => fail((error as Error)?.stack ?? String(error)));
