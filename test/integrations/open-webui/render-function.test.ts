import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { valvesSpec } from '../../../src/runtime/host/valves-spec.js';
import { secret } from '../../../src/runtime/host/secret-valves.js';
import {
  functionFields,
  renderFunction,
  type FunctionFilter,
} from '../../../src/features/integrations/open-webui/render-function.js';
import { runFunction } from './run-loader.js';

const filter = (id: string, shape: z.ZodRawShape, name = id): FunctionFilter => ({
  id,
  name,
  userValvesSpec: valvesSpec(z.object(shape)) as FunctionFilter['userValvesSpec'],
});

/** Every kind of field a filter's user valves may have (each with a default, as the SDK requires). */
const everyKind = filter('kinds', {
  text: z.string().default('hello').describe('Some text'),
  ratio: z.number().min(0.5).max(2).default(1),
  count: z.number().int().min(1).default(3),
  on: z.boolean().default(false),
  mode: z.enum(['fast', 'careful']).default('fast'),
  names: z.array(z.string()).default(['a']),
  sizes: z.array(z.number()).default([1, 2]),
  maybe: z.number().int().min(0).nullable().default(null),
  maybe_text: z.string().nullable().default(null),
  token: secret(z.string().default('')),
  fixed: z.literal('k').default('k'),
  limits: z.record(z.string(), z.number()).default({ user: 1 }),
  nested: z.object({ depth: z.number() }).default({ depth: 2 }),
  either: z.union([z.string(), z.number()]).default(1),
  later: z.number().optional(),
});

const render = (filters: FunctionFilter[], toggle = false) =>
  renderFunction(filters, { url: 'http://eunoe:9099', version: '1.2.3', toggle });

describe('renderFunction', () => {
  it('maps every kind of user valve to a pydantic field that loads, renders in Open WebUI and keeps its default', async () => {
    const result = await runFunction(render([everyKind]), {}, [], {
      userForm: { kinds_ratio: '1.5', kinds_count: '4', kinds_mode: 'careful', kinds_maybe: null },
    });
    const properties = result.user_valves_schema!.properties;
    expect(Object.keys(properties)).toEqual([
      'kinds_text',
      'kinds_ratio',
      'kinds_count',
      'kinds_on',
      'kinds_mode',
      'kinds_names',
      'kinds_sizes',
      'kinds_maybe',
      'kinds_maybe_text',
      'kinds_token',
      'kinds_fixed',
      'kinds_limits',
      'kinds_nested',
      'kinds_either',
      'kinds_later',
    ]);
    expect(properties.kinds_text).toMatchObject({ type: 'string', default: 'hello', description: 'Some text' });
    expect(properties.kinds_text.title).toBe('kinds · Text');
    expect(properties.kinds_ratio).toMatchObject({ type: 'number', minimum: 0.5, maximum: 2 });
    expect(properties.kinds_count).toMatchObject({ type: 'integer', minimum: 1 });
    expect(properties.kinds_on).toMatchObject({ type: 'boolean', default: false });
    // An enum is a select in Open WebUI's form only when `enum` sits on the property itself.
    expect(properties.kinds_mode).toMatchObject({ enum: ['fast', 'careful'], type: 'string' });
    expect(properties.kinds_names).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(properties.kinds_maybe.anyOf).toEqual([{ type: 'integer', minimum: 0 }, { type: 'null' }]);
    expect(properties.kinds_token).toMatchObject({ type: 'string', input: { type: 'password' } });
    expect(properties.kinds_fixed.enum ?? [properties.kinds_fixed.const]).toEqual(['k']);
    expect(properties.kinds_limits).toMatchObject({ type: 'string', default: '{"user":1}' });
    expect(properties.kinds_nested).toMatchObject({ type: 'string', default: '{"depth":2}' });
    expect(result.user_valves_defaults).toMatchObject({
      kinds_text: 'hello',
      kinds_sizes: [1, 2],
      kinds_maybe: null,
      kinds_either: 1,
      kinds_later: null,
    });
    // Typed in Open WebUI's text inputs, numbers arrive as strings and are coerced; Default (null) is not stored.
    expect(result.user_form_stored).toEqual({ kinds_ratio: 1.5, kinds_count: 4, kinds_mode: 'careful' });
  });

  it('is byte-for-byte the same for the same filters in any order, and changes when a filter is added or removed', () => {
    const context = filter('context', { max_tokens: z.number().int().nullable().default(null) }, 'Context');
    const prefix = filter('system-prefix', { prefix: z.string().default('') }, 'Prefix');
    const one = render([context, prefix]);
    expect(render([prefix, context])).toBe(one);
    const fewer = render([context]);
    expect(fewer).not.toBe(one);
    expect(fewer).not.toContain('system_prefix_prefix');
    expect(one).toContain('"system_prefix_prefix": ("system-prefix", "prefix")');
    const more = render([context, prefix, filter('extra', { level: z.number().default(1) })]);
    expect(more).toContain('extra_level: float = Field(default=1');
    expect(more).toMatch(/^description: Runs Eunoe's filters \(context, extra, system-prefix\)/m);
    expect(render([context, prefix], true)).toContain('self.toggle = True');
    expect(one).not.toContain('self.toggle');
  });

  it('keeps field names unique across filters and clear of pydantic and Python reserved names', () => {
    const fields = functionFields([
      filter('a-b', { c: z.string().default('') }),
      filter('a', { b_c: z.string().default('') }),
      filter('model', { config: z.string().default('') }),
      filter('9lives', { 'odd-name': z.string().default('') }),
    ]);
    const names = fields.map((field) => field.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toContain('f_model_config');
    expect(names).toContain('f_9lives_odd_name');
    expect(fields.find((field) => field.name === 'f_9lives_odd_name')).toMatchObject({
      filter: '9lives',
      field: 'odd-name',
    });
  });

  it("defuses Open WebUI's import rewriting in texts that come from filters, and the text still reads the same", async () => {
    const tricky = filter(
      'tricky',
      { note: z.string().default('copied from config').describe('Read from utils, from apps and from main') },
      'Tricky',
    );
    const source = render([tricky]);
    expect(source).not.toMatch(/from (utils|apps|main|config)/);
    const result = await runFunction(source, {}, []);
    expect(result.imports_rewritten).toBe(false);
    expect(result.user_valves_schema!.properties.tricky_note).toMatchObject({
      default: 'copied from config',
      description: 'Read from utils, from apps and from main',
    });
  });

  it('renders a file with no user valves at all', async () => {
    const result = await runFunction(render([filter('plain', {})]), {}, []);
    expect(result.kind).toBe('filter');
    expect(result.user_valves_schema!.properties).toEqual({});
  });
});
