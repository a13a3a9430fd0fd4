/** TLS verification failures: the server's certificate is not trusted by the configured CA (or the system's). */
const CERTIFICATE_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
]);

/**
 * What a connection error says when Redis answered but refused us, so retrying cannot help until the configuration
 * changes (a wrong or missing password, an untrusted certificate); undefined for an outage (refused port, timeout).
 */
export function connectionRefusal(error: Error & { code?: string }): string | undefined {
  if (/^(WRONGPASS|NOAUTH)\b|invalid (username-)?password/i.test(error.message))
    return `Redis refused the credentials (${error.message.trim()}): check REDIS_PASSWORD / REDIS_USERNAME or the URL's`;
  if (error.code && CERTIFICATE_CODES.has(error.code))
    return `the Redis server's TLS certificate is not trusted (${error.code}: ${error.message}): set REDIS_TLS_CA_FILE to the CA that signed it`;
  return undefined;
}
