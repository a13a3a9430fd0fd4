import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import * as sdk from 'eunoe';
import * as shipped from 'eunoe/shipped';
import { repoRoot } from '../helpers/create-test-runtime.js';

/** The most project files the `eunoe` entry may reach at run time (issue #35: a filter's start stays small). */
const MAX_SDK_FILES = 40;

/** The files under src/ an entry reaches at run time: its import graph bundled (type-only imports drop out). */
async function projectFilesReached(entry: string): Promise<string[]> {
  const result = await build({
    entryPoints: [path.join(repoRoot, entry)],
    absWorkingDir: repoRoot,
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
  });
  return Object.keys(result.metafile.inputs)
    .filter((file) => file.startsWith('src/'))
    .sort();
}

describe('the SDK entries', () => {
  it(`\`eunoe\` reaches at most ${MAX_SDK_FILES} project files at run time, none of a feature`, async () => {
    const files = await projectFilesReached('src/sdk.ts');
    expect(files.length, files.join('\n')).toBeLessThanOrEqual(MAX_SDK_FILES);
    expect(files.filter((file) => file.startsWith('src/features/'))).toEqual([]);
    expect(files.filter((file) => file.startsWith('src/domain/engine/'))).toEqual([]);
  });

  it('`eunoe` exports what a filter or pipe author needs', () => {
    expect(Object.keys(sdk).sort()).toEqual(
      [
        'FilterError',
        'SECRET_MASK',
        'appendToReply',
        'baseValves',
        'chatMessageSchema',
        'contextStatsService',
        'defineFilter',
        'definePipe',
        'modelSwitchesService',
        'provided',
        'replyClaimsService',
        'secret',
        'serviceKey',
        'spendCapsService',
        'z',
      ].sort(),
    );
    // The shipped keys are the ones the features provide under (same names, so `provided` finds their services).
    expect(
      [sdk.contextStatsService, sdk.replyClaimsService, sdk.spendCapsService, sdk.modelSwitchesService].map(
        (key) => key.name,
      ),
    ).toEqual(['context.stats', 'accounting.reply-claims', 'spend-limit.caps', 'spend-limit.model-switches']);
  });

  it('`eunoe/shipped` exports the shipped features, built on the same SDK', () => {
    expect(Object.keys(shipped).sort()).toEqual(
      [
        'contextUserValves',
        'contextValves',
        'createAccountingFilter',
        'createContextFilter',
        'createContextHooks',
        'createOpenAIProxy',
        'createSpendLimitFilter',
        'warmContext',
      ].sort(),
    );
    expect(shipped.createOpenAIProxy().kind).toBe('pipe');
    // The valves of a shipped filter are the SDK's zod: a filter extending them with `z` from `eunoe` mixes no copies.
    expect(shipped.contextValves).toBeInstanceOf(sdk.z.ZodObject);
    expect(shipped.createSpendLimitFilter().valves).toBeInstanceOf(sdk.z.ZodObject);
  });
});
