import { EunoeError } from '../errors/index.js';

/** 500: a pipe threw (with no status of its own) or returned something that is not an answer. */
export class PipeExecutionError extends EunoeError {
  constructor(
    readonly pipeId: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('ERR_PIPE_FAILED', message, 500, options);
  }
}

/** What a pipe threw, as a typed error: a `FilterError`/`EunoeError` keeps its status, anything else is a 500. */
export function asPipeError(pipeId: string, error: unknown): EunoeError {
  if (error instanceof EunoeError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new PipeExecutionError(pipeId, message || `Pipe ${pipeId} failed`, { cause: error });
}
