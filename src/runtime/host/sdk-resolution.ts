import { register } from 'node:module';

let registered = false;

/**
 * Make `import … from 'eunoe'` resolve to this package from any folder (see sdk-resolve-hooks.mjs).
 * Idempotent; called by the filter loader in the main thread and by each filter worker.
 */
export function registerSdkResolution(): void {
  if (registered) return;
  registered = true;
  register(new URL('./sdk-resolve-hooks.mjs', import.meta.url));
}
