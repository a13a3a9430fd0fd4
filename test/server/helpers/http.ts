import { expect } from 'vitest';
import type { Response } from 'supertest';

/** Assert an error answer: the status, JSON content type, and `{"detail": "<non-empty string>"}`. */
export function expectJsonError(response: Response, status: number, detail?: RegExp | string): void {
  expect({ status: response.status, text: response.text }).toMatchObject({ status });
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(typeof response.body.detail).toBe('string');
  expect(response.body.detail.length).toBeGreaterThan(0);
  expect(response.text.trimStart().startsWith('{')).toBe(true);
  if (typeof detail === 'string') expect(response.body.detail).toBe(detail);
  else if (detail) expect(response.body.detail).toMatch(detail);
}

/** Both prefixes every route is served under. */
export const PREFIXES = ['', '/v1'] as const;

/** `POST {server}/{id}/filter/inlet` over real HTTP: `body` over an empty chat for model `m`, user `u`. */
export function postInlet(
  server: { url: string },
  key: string,
  id: string,
  body: Record<string, unknown>,
): Promise<globalThis.Response> {
  return fetch(`${server.url}/${id}/filter/inlet`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ body: { model: 'm', messages: [], ...body }, user: { id: 'u' } }),
  });
}
