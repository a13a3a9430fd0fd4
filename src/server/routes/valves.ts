import { Router, type Request } from 'express';
import { NotFoundError, StateUnavailableError, ValidationError } from '../../core/errors/index.js';
import type { ActiveModule, ModuleRegistry } from '../../runtime/host/module-registry.js';
import type { ValvesRepository } from '../../runtime/host/valves-repository.js';
import { mergeSavedValves, mergeValvesUpdate } from '../../runtime/host/coerce-valves.js';
import { keepMaskedSecrets, maskSecrets } from '../../runtime/host/secret-valves.js';
import { knownQuery } from '../../runtime/http/known-query.js';
import { errorMessage } from '../../core/util/error-message.js';

/** The filter named in the path, or 404 in the Python server's words. */
export function filterOr404(registry: ModuleRegistry, id: string): ActiveModule {
  const filter = registry.get(id);
  if (!filter) throw new NotFoundError(`Pipeline ${id} not found`);
  return filter;
}

function userIdOf(request: Request): string {
  const userId = request.query.user_id;
  if (typeof userId !== 'string' || userId.trim() === '')
    throw new ValidationError('user_id query parameter is required');
  return userId.trim();
}

function userValvesOr404(filter: ActiveModule) {
  if (!filter.userValvesSchema || !filter.userValvesSpec)
    throw new NotFoundError(`User valves for ${filter.id} not found`);
  return { schema: filter.userValvesSchema, spec: filter.userValvesSpec };
}

/**
 * Admin valves (`GET /{id}/valves`, `/valves/spec`, `POST /valves/update`) and per-user
 * valves (`/{id}/valves/user[/spec|/update]?user_id=`). Updates coerce Open WebUI's form
 * strings like pydantic, validate with zod and answer 400 per field (Python answers 500). An update
 * is merged over the current values: an omitted field keeps its value, `null` resets it to the default.
 */
export function valvesRouter({ registry, valves }: { registry: ModuleRegistry; valves: ValvesRepository }): Router {
  const router = Router();
  router.get('/:id/valves', (request, response) => {
    const filter = filterOr404(registry, request.params.id);
    response.json(maskSecrets(filter.valves, filter.valvesSpec));
  });
  router.get('/:id/valves/spec', (request, response) => {
    response.json(filterOr404(registry, request.params.id).valvesSpec);
  });
  router.post('/:id/valves/update', async (request, response) => {
    const filter = filterOr404(registry, request.params.id);
    const input = keepMaskedSecrets(request.body, filter.valvesSpec, filter.valves);
    const values = mergeValvesUpdate(filter.valvesSchema, filter.valvesSpec, input, filter.valves);
    await valves.saveAdmin(filter.id, values);
    await registry.applyValves(filter.id, values as ActiveModule['valves']);
    request.log.info({ filter: filter.id }, 'valves updated');
    response.json(maskSecrets(values, filter.valvesSpec));
  });
  // The user routes read `user_id` and nothing else from the query.
  router.use('/:id/valves/user', knownQuery('user_id'));
  router.get('/:id/valves/user/spec', (request, response) => {
    response.json(userValvesOr404(filterOr404(registry, request.params.id)).spec);
  });
  router.get('/:id/valves/user', async (request, response) => {
    const filter = filterOr404(registry, request.params.id);
    const { schema, spec } = userValvesOr404(filter);
    const saved = await valves.loadUser(filter.id, userIdOf(request));
    response.json(maskSecrets(mergeSavedValves(schema, saved).values, spec));
  });
  router.post('/:id/valves/user/update', async (request, response) => {
    const filter = filterOr404(registry, request.params.id);
    const { schema, spec } = userValvesOr404(filter);
    const userId = userIdOf(request);
    // The user's values now: an update changes the fields it sends and keeps the others.
    const current = mergeSavedValves(schema, await valves.loadUser(filter.id, userId)).values;
    const input = keepMaskedSecrets(request.body, spec, current);
    const values = mergeValvesUpdate(schema, spec, input, current);
    try {
      await valves.saveUser(filter.id, userId, values);
    } catch (error) {
      throw new StateUnavailableError(
        `User valves could not be saved: the state store is unavailable (${errorMessage(error)})`,
      );
    }
    response.json(maskSecrets(values, spec));
  });
  return router;
}
