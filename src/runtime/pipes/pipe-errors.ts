import { EunoeError, PipeExecutionError } from '../../core/errors/index.js';

/** What a pipe threw, as a typed error: a `FilterError`/`EunoeError` keeps its status, anything else is a 500. */
export function asPipeError(pipeId: string, error: unknown): EunoeError {
  if (error instanceof EunoeError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new PipeExecutionError(pipeId, message || `Pipe ${pipeId} failed`, { cause: error });
}
