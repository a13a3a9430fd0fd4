import { Router } from 'express';
import { NotFoundError } from '../../core/errors/index.js';
import type { PricingService } from '../../runtime/pricing/pricing-service.js';
import { knownQuery } from '../../runtime/http/known-query.js';

/**
 * `GET /pricing/status` (source snapshot|last-good|live|custom, loadedAt, age, model count,
 * last refresh error) and `GET /pricing/<model>` (resolved price and the id it resolved to;
 * ids with slashes, dots and colons; `?base_model_id=` for workspace models). Unknown → 404.
 */
export function pricingRouter({ pricing }: { pricing: Pick<PricingService, 'status' | 'resolve'> }): Router {
  const router = Router();
  router.get('/pricing/status', knownQuery(), (_request, response) => {
    response.json(pricing.status());
  });
  router.get('/pricing/*model', knownQuery('base_model_id'), (request, response) => {
    const segments = (request.params as { model?: string[] | string }).model ?? [];
    const model = Array.isArray(segments) ? segments.join('/') : segments;
    const baseModelId = typeof request.query.base_model_id === 'string' ? request.query.base_model_id : undefined;
    const price = pricing.resolve(model, { baseModelId });
    if (!price) throw new NotFoundError(`Unknown model: ${model}`);
    response.json({ model, resolvedId: price.id, unit: 'USD per token (request/image/webSearch: per unit)', ...price });
  });
  return router;
}
