import { SDK_SPECIFIER } from '../../helpers/create-test-runtime.js';

/** A pipe file: the SDK import (this checkout's, by absolute path), then `body`. */
export function pipeSource(body: string): string {
  return `import { definePipe, defineFilter, baseValves, z, FilterError } from ${JSON.stringify(SDK_SPECIFIER)};\n${body}\n`;
}

/** A promise with its resolver, shared with pipe files through `globalThis[name]`. */
export function globalLatch<T = unknown>(name: string): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  const latch = { promise, resolve };
  (globalThis as Record<string, unknown>)[name] = latch;
  return latch;
}
