import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Redis URL found or started by global-setup; '' when none could be had (local runs only). */
    redisUrl: string;
  }
}
