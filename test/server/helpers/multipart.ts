import { randomBytes } from 'node:crypto';

/**
 * A raw multipart/form-data body with one file part. Built by hand because form-data
 * clients strip directories from file names, and the tests need to send hostile names verbatim.
 */
export function multipartFile(
  filename: string,
  content: string | Buffer,
  field = 'file',
): { body: Buffer; contentType: string } {
  const boundary = `----eunoe${randomBytes(8).toString('hex')}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const tail = `\r\n--${boundary}--\r\n`;
  return {
    body: Buffer.concat([
      Buffer.from(head),
      Buffer.isBuffer(content) ? content : Buffer.from(content),
      Buffer.from(tail),
    ]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}
