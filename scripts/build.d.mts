/** Build dist/ unless it was built from exactly the current sources (scripts/build.mjs). True when it compiled. */
export function build(options?: { force?: boolean; quiet?: boolean }): Promise<boolean>;
