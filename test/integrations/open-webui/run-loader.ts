import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const LOADER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'owui_loader.py');

// biome-ignore lint/suspicious/noExplicitAny: Open WebUI bodies and events, read field by field in assertions
export type Json = Record<string, any>;

/** One hook call as Open WebUI makes it (see owui_loader.py). */
export interface Step {
  hook: 'inlet' | 'outlet';
  body: Json;
  user: Json | null;
  /** The user's valve form as saved in Open WebUI's UI (null values mean "Default"). */
  user_valves?: Json | null;
  metadata?: Json;
  /** `__model__`: the model record Open WebUI passes (default `{id: body.model, info: {meta: {}}}`). */
  model?: Json;
  emitter?: boolean;
  filter_ids?: string[];
}

/** What the loader reports: the file's frontmatter and schemas, and per step the result or the exception. */
export interface LoaderResult {
  frontmatter: Record<string, string>;
  imports_rewritten: boolean;
  kind: string;
  toggle: boolean;
  valves_schema: Json;
  user_valves_schema: Json | null;
  valves_defaults: Json;
  user_valves_defaults: Json | null;
  /** `user_form` as Open WebUI stores it (validated by UserValves), when the scenario has one. */
  user_form_stored?: Json;
  steps: Array<{
    hook: string;
    ok: boolean;
    skipped?: boolean;
    body?: Json;
    error?: string;
    error_type?: string;
    events: Json[];
    seconds: number;
  }>;
}

/** One `python3 owui_loader.py --serve` for this test worker: a scenario per line in, its result per line out. */
class LoaderProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer = '';
  private stderr = '';
  private waiting?: { resolve: (line: string) => void; reject: (error: Error) => void };
  private exited?: string;

  constructor() {
    this.child = spawn('python3', [LOADER, '--serve']);
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      this.buffer += chunk;
      const end = this.buffer.indexOf('\n');
      if (end < 0 || !this.waiting) return;
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 1);
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting.resolve(line);
    });
    this.child.stderr.on('data', (chunk) => {
      this.stderr = (this.stderr + String(chunk)).slice(-20_000);
    });
    this.child.on('exit', (code, signal) => {
      this.exited = `python3 exited (${signal ?? code})`;
      this.waiting?.reject(new Error(`${this.exited}\n${this.stderr}`));
      this.waiting = undefined;
    });
    this.child.on('error', (error) => this.waiting?.reject(error));
    // The interpreter ends with this worker (its stdin closes); it never keeps the worker alive.
    this.child.unref();
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr])
      (stream as unknown as { unref?: () => void }).unref?.();
  }

  get alive(): boolean {
    return this.exited === undefined;
  }

  /** One scenario; rejects with the interpreter's traceback, or after `timeoutMs` (the interpreter is then ended). */
  run(request: object, timeoutMs: number): Promise<string> {
    if (this.exited) return Promise.reject(new Error(this.exited));
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.child.kill('SIGKILL');
        reject(new Error(`python3 did not answer within ${timeoutMs} ms\n${this.stderr}`));
      }, timeoutMs);
      this.waiting = {
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.child.stdin.write(`${JSON.stringify(request)}\n`);
    });
  }
}

let loader: LoaderProcess | undefined;
/** Scenarios run one after the other in the one interpreter. */
let queue: Promise<unknown> = Promise.resolve();

/**
 * Load `source` (a Function's Python text) in `python3` the way Open WebUI does and run `steps`
 * with the admin valve form `valves` (`pythonPath`: folders holding Open WebUI modules for this run). Needs Python 3 with pydantic 2. The interpreter stays up between
 * calls (as Open WebUI's server does); each call writes the file anew and loads it into a fresh module.
 */
export function runFunction(
  source: string,
  valves: Json,
  steps: Step[],
  options: { id?: string; userForm?: Json; pythonPath?: string[] } = {},
): Promise<LoaderResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'eunoe-owui-'));
  const file = path.join(dir, 'function.py');
  writeFileSync(file, source);
  const scenario = {
    id: options.id ?? 'eunoe',
    valves,
    steps,
    user_form: options.userForm,
    python_path: options.pythonPath,
  };
  const result = queue.then(async () => {
    if (!loader?.alive) loader = new LoaderProcess();
    const answer = JSON.parse(await loader.run({ function: file, scenario }, 60_000)) as {
      result?: LoaderResult;
      error?: string;
    };
    if (answer.error !== undefined) throw new Error(`python3 failed:\n${answer.error}`);
    return answer.result!;
  });
  queue = result.catch(() => undefined);
  return result;
}
