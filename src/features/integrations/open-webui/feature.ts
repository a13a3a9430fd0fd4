/**
 * The Open WebUI integration (the generated Function). It provides no service; its routes
 * (`GET /integrations/open-webui/function.py`, `POST /integrations/open-webui/inlet|outlet`) are mounted by the
 * server (src/server/routes/open-webui.ts), beside the Pipelines hook routes they share the hook path with.
 */
import type { Feature } from '../../../runtime/feature.js';

export function openWebuiFeature(): Feature {
  return { name: 'integrations/open-webui' };
}
