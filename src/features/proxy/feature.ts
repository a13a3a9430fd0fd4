/**
 * The proxy feature (the `openai-proxy` manifold). It provides no service and no route: an instance is a pipe file
 * (filters/openai-proxy.ts), served through the host's `/models` and `/chat/completions`, and it reads the accounting
 * feature's reply claims by their key (src/runtime/host/shipped-service-keys.ts).
 */
import type { Feature } from '../../runtime/feature.js';

export function proxyFeature(): Feature {
  return { name: 'proxy' };
}
