import path from 'node:path';
import { ConfigError } from '../../core/errors/index.js';
import { packageRoot, SHIPPED_FILTER_FILES } from './isolation/shipped-filters.js';
import { fileStem } from './load-filter-file.js';

/**
 * The package's `filters/` folder and the shipped files SHIPPED_FILTERS enables (`all`, `none`, or a
 * comma list of ids such as `context,accounting`). Throws ConfigError naming an unknown id.
 */
export function shippedFilterSource(setting: string, root = packageRoot): { dir: string; files: string[] } {
  const dir = path.join(root, 'filters');
  const value = setting.trim().toLowerCase();
  if (value === 'all') return { dir, files: [...SHIPPED_FILTER_FILES] };
  if (value === 'none') return { dir, files: [] };
  const byId = new Map(SHIPPED_FILTER_FILES.map((name) => [fileStem(name), name]));
  const files = value
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean)
    .map((id) => {
      const name = byId.get(id);
      if (!name)
        throw new ConfigError(
          `Invalid environment: SHIPPED_FILTERS: unknown filter "${id}" (known: ${[...byId.keys()].join(', ')}; or all, none)`,
        );
      return name;
    });
  return { dir, files };
}
