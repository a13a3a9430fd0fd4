import type { IncomingHttpHeaders } from 'node:http';
import type { PipelineUser } from '../host/types.js';

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text?.trim() || undefined;
};

/**
 * Who is calling, in this order: the `user` object Open WebUI adds to a pipe's body
 * (`{id, email, name, role}`); the `X-OpenWebUI-User-Id` header (with `-Name`, `-Email`,
 * `-Role`: Open WebUI's forwarded user headers, which any gateway may set too); the OpenAI
 * `user` string (the id). Null when none is given.
 */
export function pipeUser(body: Record<string, unknown>, headers: IncomingHttpHeaders): PipelineUser | null {
  const user = body.user;
  if (typeof user === 'object' && user !== null && !Array.isArray(user)) return user as PipelineUser;
  const id = header(headers, 'x-openwebui-user-id');
  if (id) {
    const found: PipelineUser = { id };
    for (const field of ['name', 'email', 'role'] as const) {
      const value = header(headers, `x-openwebui-user-${field}`);
      if (value) found[field] = value;
    }
    return found;
  }
  if (typeof user === 'string' && user.trim() !== '') return { id: user.trim() };
  return null;
}
