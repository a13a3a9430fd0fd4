import { expect } from 'vitest';
import { FilterError } from '../../../src/core/errors/index.js';

/** The FilterError `promise` rejects with (a hook's refusal); fails the test when it resolves or throws anything else. */
export async function rejection(promise: Promise<unknown>): Promise<FilterError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(FilterError);
  return error as FilterError;
}
