import type { EngineOptions } from '../domain/engine/index.js';

/** A parsed `eunoe plan` command line. */
export interface PlanCommand {
  command: 'plan' | 'help';
  file?: string;
  out?: string;
  model?: string;
  json: boolean;
  options: Partial<EngineOptions>;
}

const ALGORITHMS = ['greedy', 'recency', 'dependency', 'prefix_cache', 'cache_stable'];
const WEIGHTINGS = ['static', 'keyword', 'smart', 'composite'];

/** Thrown for a bad command line; the message is shown to the user. */
export class UsageError extends Error {}

/** A non-negative number option value, or a UsageError naming the flag. */
function number(flag: string, value: string | undefined): number {
  const parsed = Number(value);
  if (value === undefined || value.trim() === '' || !Number.isFinite(parsed) || parsed < 0)
    throw new UsageError(`${flag} needs a non-negative number, got ${value ?? 'nothing'}`);
  return parsed;
}

/** One of `allowed`, or a UsageError. */
function choice(flag: string, value: string | undefined, allowed: string[]): string {
  if (value === undefined || !allowed.includes(value))
    throw new UsageError(`${flag} must be one of ${allowed.join(', ')}, got ${value ?? 'nothing'}`);
  return value;
}

/** Parses `plan <file> [--max-tokens N] [--target N] [--model M] [--algorithm A] [--weighting W] [--recent N] [--context N] [--summarize] [--full] [--json] [--out F]`. */
export function parseArgs(argv: readonly string[]): PlanCommand {
  const result: PlanCommand = { command: 'help', json: false, options: {} };
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') return result;
  if (command !== 'plan') throw new UsageError(`unknown command ${command}`);
  result.command = 'plan';
  for (let index = 0; index < rest.length; index += 1) {
    const arg = rest[index]!;
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined];
    const value = () => inline ?? rest[++index];
    switch (flag) {
      case '--max-tokens':
        result.options.maxTokens = number(flag, value());
        break;
      case '--target':
        result.options.targetTokens = number(flag, value());
        break;
      case '--recent':
        result.options.recent = number(flag, value());
        break;
      case '--context':
        result.options.contextTurns = number(flag, value());
        break;
      case '--model':
        result.model = value();
        break;
      case '--algorithm':
        result.options.algorithm = choice(flag, value(), ALGORITHMS) as EngineOptions['algorithm'];
        break;
      case '--weighting':
        result.options.weighting = choice(flag, value(), WEIGHTINGS) as EngineOptions['weighting'];
        break;
      case '--out':
        result.out = value();
        break;
      case '--summarize':
        result.options.summarize = true;
        break;
      case '--full':
        result.options.full = true;
        break;
      case '--json':
        result.json = true;
        break;
      default:
        if (flag.startsWith('-')) throw new UsageError(`unknown option ${flag}`);
        if (result.file !== undefined) throw new UsageError(`unexpected argument ${flag}`);
        result.file = flag;
    }
  }
  if (result.file === undefined) throw new UsageError('plan needs a conversation file');
  return result;
}

/** Parses `function [--url URL] [--toggle] [--out FILE]` (the arguments after `function`). */
export function parseFunctionArgs(argv: readonly string[]): { url?: string; toggle: boolean; out?: string } {
  const result: { url?: string; toggle: boolean; out?: string } = { toggle: false };
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index]!;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const value = () => {
      const next = inline ?? argv[++index];
      if (next === undefined || next === '') throw new UsageError(`${flag} needs a value`);
      return next;
    };
    if (flag === '--url') {
      const url = value();
      if (!/^https?:\/\/[^\s"'\\]+$/.test(url)) throw new UsageError(`--url must be an http(s) URL, got ${url}`);
      result.url = url;
    } else if (flag === '--out') result.out = value();
    else if (flag === '--toggle') result.toggle = true;
    else throw new UsageError(`unknown option ${flag}`);
  }
  return result;
}
