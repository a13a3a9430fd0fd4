import { register } from 'node:module';
import { RUNNING_COMPILED } from '../../core/util/running-compiled.js';

let registered: Promise<void> | undefined;

/**
 * Make filter files importable in this thread: `import … from 'eunoe'` (and `'eunoe/shipped'`) resolves to this
 * package from any folder (see sdk-resolve-hooks.mjs), and `.ts` filters compile (tsx). Compiled, the SDK is imported
 * first, so the modules the host and its filters share load without the hooks in front of them; `eunoe/shipped` is
 * not (it loads the features: only the filters that import it pay for them). Idempotent; called before a filter file
 * is imported (main thread, each filter worker, the CLI).
 */
export function registerSdkResolution(): Promise<void> {
  registered ??= (async () => {
    // Compiled, nothing compiles TypeScript until a filter file is imported: tsx is registered here.
    if (RUNNING_COMPILED) {
      // The package's entry, by URL: the same module a filter's `import 'eunoe'` resolves to.
      await import(new URL('../../sdk.js', import.meta.url).href);
      const { register: registerTypeScript } = await import('tsx/esm/api');
      registerTypeScript();
    }
    register(new URL('./sdk-resolve-hooks.mjs', import.meta.url));
  })();
  return registered;
}
