import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { planContext } from '../../src/domain/engine/index.js';
import { assistant, chat, system, toolCalls, toolResult, user } from './fixtures/conversations.js';

const BIN = fileURLToPath(new URL('../../bin/eunoe.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'eunoe-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Runs the real launcher (bin/eunoe.mjs, which starts the CLI under tsx) from a foreign working
 * directory. Each run costs two Node starts plus tsx, so the launcher is run once per way out (exit 0
 * with its output and the file written, exit 2 with the message on stderr); the other cases (JSON,
 * help, each usage error) call the same CLI in this process.
 */
function run(args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs the CLI in this process: the same code the launcher starts, with its output captured. */
function runInProcess(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = runCli(args, { out: (text) => (stdout += text), err: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

/** Writes a JSON file in the temp dir and returns its path. */
function file(name: string, data: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(data));
  return path;
}

const messages = [
  system('Be brief.'),
  ...chat(10, 20),
  user('What about toolbox?'),
  toolCalls(['c1', 'toolbox']),
  toolResult('c1', 'done'),
  assistant('All done.'),
  user('thanks'),
];

describe('eunoe plan', () => {
  it.each([
    ['an array of messages', messages, run],
    ['an object with messages', { model: 'gpt-4o', messages }, runInProcess],
  ])('reads %s, prints a table and writes the messages it would send', (_name, data, cli) => {
    const input = file('conversation.json', data);
    const out = join(dir, 'result.json');
    const { code, stdout } = cli([
      'plan',
      input,
      '--max-tokens',
      '200',
      '--model',
      'gpt-4o',
      '--algorithm',
      'greedy',
      '--weighting',
      'keyword',
      '--recent',
      '2',
      '--out',
      out,
    ]);
    expect(code).toBe(0);
    const expected = planContext({
      messages,
      model: 'gpt-4o',
      options: { maxTokens: 200, algorithm: 'greedy', weighting: 'keyword', recent: 2 },
    });
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(expected.messages);
    const rows = stdout.split('\n').filter((line) => /^\d+\s/.test(line));
    expect(rows.length).toBe(messages.length);
    rows.forEach((row, index) => {
      const entry = expected.plan.entries[index]!;
      expect(row).toMatch(
        new RegExp(
          `^${index}\\s+${entry.role}\\s+${entry.disposition}\\s+${entry.weight.toFixed(3)}\\s+${entry.tokens}\\b`,
        ),
      );
    });
    expect(stdout).toContain('Be brief.');
    expect(stdout).toContain('[tool calls: toolbox]');
    expect(stdout).toContain(`tokens ${expected.plan.tokensBefore} -> ${expected.plan.tokensAfter} (limit 200)`);
  });

  it('--json prints the plan', () => {
    const { code, stdout } = runInProcess(['plan', file('c.json', messages), '--json', '--max-tokens=150']);
    expect(code).toBe(0);
    const plan = JSON.parse(stdout) as { entries: unknown[]; budget: { limitTokens: number } };
    expect(plan.entries.length).toBe(messages.length);
    expect(plan.budget.limitTokens).toBe(150);
  });

  it('exits 2 with the message on stderr through the launcher', () => {
    const { code, stderr } = run(['frobnicate']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/unknown command/);
  });

  it.each([
    ['a missing file', ['plan', join(dir, 'nope.json')], /cannot read/],
    ['a bad number', ['plan', 'x.json', '--max-tokens', 'many'], /--max-tokens needs a non-negative number/],
    ['a bad algorithm', ['plan', 'x.json', '--algorithm', 'magic'], /--algorithm must be one of/],
    ['no file', ['plan'], /needs a conversation file/],
    ['an unknown command', ['frobnicate'], /unknown command/],
    ['a file without messages', ['plan', file('bad.json', { hello: 1 })], /array of messages/],
  ])('exits 2 on %s', (_name, args, message) => {
    const { code, stderr } = runInProcess(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it('help exits 0 with usage', () => {
    const { code, stdout } = runInProcess(['--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/usage: eunoe plan/);
  });
});
