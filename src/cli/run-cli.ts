import { readFileSync, writeFileSync } from 'node:fs';
import { planContext } from '../domain/engine/index.js';
import { isRecord } from '../core/messages/chat-message.js';
import { formatPlanTable } from './format-plan-table.js';
import { parseArgs, parseFunctionArgs, UsageError } from './parse-args.js';
import { runFunctionCommand } from './function-command.js';
import type { CliOutput } from './cli-output.js';

export type { CliOutput } from './cli-output.js';
import { errorMessage } from '../core/util/error-message.js';

const USAGE = `usage: eunoe plan <conversation.json> [--max-tokens N] [--target N] [--model M]
         [--algorithm greedy|recency|dependency|prefix_cache|cache_stable] [--weighting static|keyword|smart|composite]
         [--recent N] [--context N] [--summarize] [--full] [--json] [--out result.json]
       eunoe function [--url http://eunoe:9099] [--toggle] [--out eunoe_function.py]
plan: the file holds a JSON array of OpenAI-format messages, or an object with "messages".
function: the Open WebUI Filter Function for the filters this environment loads (--url: Eunoe's address as
Open WebUI reaches it; --toggle: run only in chats where the user switched it on).`;

/** Messages from a parsed file: an array, or `{ messages: [...] }`. */
function messagesOf(data: unknown): unknown[] {
  if (Array.isArray(data)) return data;
  const messages = isRecord(data) ? data.messages : undefined;
  if (Array.isArray(messages)) return messages;
  throw new UsageError('the file must hold a JSON array of messages or an object with "messages"');
}

/** Runs the CLI; returns the exit code (0 ok, 2 usage or input error); `function` answers asynchronously. */
export function runCli(argv: readonly string[], output: CliOutput): number | Promise<number> {
  if (argv[0] === 'function') {
    const usage = (error: unknown) => {
      if (!(error instanceof UsageError)) throw error;
      output.err(`eunoe: ${error.message}\n${USAGE}\n`);
      return 2;
    };
    try {
      return runFunctionCommand(parseFunctionArgs(argv.slice(1)), output).catch(usage);
    } catch (error) {
      return usage(error);
    }
  }
  try {
    const command = parseArgs(argv);
    if (command.command === 'help') {
      output.out(`${USAGE}\n`);
      return 0;
    }
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(command.file!, 'utf8'));
    } catch (error) {
      throw new UsageError(`cannot read ${command.file}: ${errorMessage(error)}`);
    }
    const messages = messagesOf(data);
    const result = planContext({ messages, model: command.model, options: command.options });
    output.out(command.json ? `${JSON.stringify(result.plan, null, 2)}\n` : formatPlanTable(result, messages));
    if (command.out) writeFileSync(command.out, `${JSON.stringify(result.messages, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.err(`eunoe: ${error.message}\n${USAGE}\n`);
    return 2;
  }
}
