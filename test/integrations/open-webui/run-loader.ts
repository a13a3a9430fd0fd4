import { execFile } from 'node:child_process';
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

/**
 * Load `source` (a Function's Python text) in `python3` the way Open WebUI does and run `steps`
 * with the admin valve form `valves`. Needs Python 3 with pydantic 2.
 */
export function runFunction(
  source: string,
  valves: Json,
  steps: Step[],
  options: { id?: string; userForm?: Json } = {},
): Promise<LoaderResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'eunoe-owui-'));
  const file = path.join(dir, 'function.py');
  const scenario = path.join(dir, 'scenario.json');
  writeFileSync(file, source);
  writeFileSync(scenario, JSON.stringify({ id: options.id ?? 'eunoe', valves, steps, user_form: options.userForm }));
  return new Promise((resolve, reject) => {
    execFile(
      'python3',
      [LOADER, file, scenario],
      { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`python3 failed: ${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as LoaderResult);
      },
    );
  });
}
