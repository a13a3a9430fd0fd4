import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import busboy from 'busboy';
import { Router, type Request } from 'express';
import { z } from 'zod';
import { NotFoundError, PayloadTooLargeError, ValidationError } from '../../core/errors/index.js';
import type { ModuleRegistry } from '../../runtime/host/module-registry.js';
import { safeFilterFileName } from '../../runtime/host/filter-file-name.js';
import { downloadFilter, rawUrl, refuseNonPublic } from '../../runtime/host/download-filter.js';
import { writeFileAtomic } from '../../core/util/atomic-write.js';
import { errorMessage } from '../../core/util/error-message.js';

export interface ManagementDeps {
  registry: ModuleRegistry;
  /** Unused: files are written to the registry's upload folder (`registry.uploadDir`). */
  filtersDir?: string;
  uploadLimit: number;
  addTimeoutMs: number;
  /** ADD_URL_ALLOW_PRIVATE: `POST /pipelines/add` may fetch loopback, private and link-local addresses. */
  addAllowPrivate?: boolean;
}

/** Read the multipart field `file` (name + bytes), capped at `limit` bytes. */
function readUpload(request: Request, limit: number): Promise<{ name: string; data: Buffer }> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: request.headers, preservePath: true, limits: { fileSize: limit, files: 1 } });
    } catch (error) {
      reject(new ValidationError(`Expected multipart/form-data with a "file" field (${errorMessage(error)})`));
      return;
    }
    let found: Promise<{ name: string; data: Buffer }> | undefined;
    parser.on('file', (field, stream, info) => {
      if (field !== 'file') {
        stream.resume();
        return;
      }
      found = new Promise((done, fail) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('limit', () => fail(new PayloadTooLargeError(`Filter file too large (limit ${limit} bytes)`)));
        stream.on('end', () => done({ name: info.filename ?? '', data: Buffer.concat(chunks) }));
      });
      found.catch(() => undefined); // handled at 'close'; never an unhandled rejection meanwhile
    });
    parser.on('error', (error) => reject(new ValidationError(`Malformed multipart body: ${errorMessage(error)}`)));
    // A client that drops mid-upload must not leave the handler (and its buffered chunks) pending.
    request.on('close', () => {
      if (!request.complete) reject(new ValidationError('Upload aborted by the client'));
    });
    parser.on('close', () => {
      if (!found) reject(new ValidationError('Missing multipart field "file"'));
      else found.then(resolve, reject);
    });
    request.pipe(parser);
  });
}

/**
 * Save a filter file in the upload folder (never the package's shipped files: a file with a shipped filter's
 * name replaces that filter by id) and load it. A file that fails to load is rolled back (the previous
 * version restored, or the new file removed) and the answer is a 400 naming the error, so a
 * rejected upload never changes what runs, now or after a restart. A downloaded file's load error is not quoted
 * (`quote: false`): it can quote the file, and the URL may have reached something that is not a filter; the
 * server's log has it.
 */
async function install(deps: ManagementDeps, name: string, source: string | Buffer, verb: string, quote = true) {
  const file = path.join(deps.registry.uploadDir, safeFilterFileName(name));
  if (deps.registry.origin(file) === 'package')
    throw new ValidationError(
      `Filter ${path.basename(file)} cannot be written: that folder holds Eunoe's shipped filters`,
    );
  const previous = existsSync(file) ? readFileSync(file) : undefined;
  writeFileAtomic(file, source, undefined, 0o700);
  await deps.registry.reloadFile(file);
  const failure = deps.registry.failureOf(file);
  if (failure) {
    if (previous) writeFileAtomic(file, previous);
    else rmSync(file, { force: true });
    await deps.registry.reloadFile(file);
    const where = failure.line ? ` (line ${failure.line})` : '';
    const why = quote ? `: ${failure.error}` : ' (the error is in the server log: it can quote the downloaded file)';
    throw new ValidationError(
      `Filter ${path.basename(file)} was rejected: it failed to load${where}${why}. Nothing was changed.`,
    );
  }
  return { status: true, detail: `Pipeline ${verb} successfully to ${path.basename(file)}` };
}

/** `POST /pipelines/add`, `/pipelines/upload`, `DELETE /pipelines/delete`, `POST /pipelines/reload`. */
export function managementRouter(deps: ManagementDeps): Router {
  const router = Router();
  router.post('/pipelines/upload', async (request, response) => {
    const upload = await readUpload(request, deps.uploadLimit);
    response.json(await install(deps, upload.name, upload.data, 'uploaded'));
  });
  router.post('/pipelines/add', async (request, response) => {
    const parsed = z.object({ url: z.string().min(1) }).safeParse(request.body);
    if (!parsed.success) throw new ValidationError('Body must be {"url": "https://…/filter.ts"}');
    let url: URL;
    try {
      url = rawUrl(new URL(parsed.data.url));
    } catch {
      throw new ValidationError(`Not a URL: ${parsed.data.url}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ValidationError('URL must be http(s)');
    let name: string;
    try {
      name = decodeURIComponent(url.pathname.split('/').pop() ?? '');
    } catch {
      throw new ValidationError(`Invalid file name in URL: ${url.pathname}`);
    }
    safeFilterFileName(name);
    const source = await downloadFilter({
      url,
      timeoutMs: deps.addTimeoutMs,
      maxBytes: deps.uploadLimit,
      refuse: deps.addAllowPrivate ? undefined : refuseNonPublic,
    });
    response.json(await install(deps, name, source, 'added', false));
  });
  router.delete('/pipelines/delete', async (request, response) => {
    const parsed = z.object({ id: z.string().min(1) }).safeParse(request.body);
    if (!parsed.success) throw new ValidationError('Body must be {"id": "<filter id>"}');
    const id = parsed.data.id;
    const file = deps.registry.fileOf(id);
    if (!file || !existsSync(file)) throw new NotFoundError(`Pipeline ${id} not found`);
    // Shipped files are Eunoe's, in every layout: 404 like a file that is not in the user's folders.
    if (deps.registry.origin(file) === 'package')
      throw new NotFoundError(
        `Pipeline ${id} not found among your filters: it is shipped with Eunoe and cannot be deleted through the API (disable it with SHIPPED_FILTERS, or upload a file of the same name to replace it)`,
      );
    rmSync(file);
    await deps.registry.reloadFile(file);
    response.json({ status: true, detail: `Pipeline ${id} deleted successfully` });
  });
  router.post('/pipelines/reload', async (_request, response) => {
    await deps.registry.loadAll();
    const failed = deps.registry.failures().length;
    response.json({ message: 'Pipelines reloaded successfully.', loaded: deps.registry.list().length, failed });
  });
  return router;
}
