import { writeFileSync } from 'node:fs';
import { loadConfig } from '../core/config.js';
import { listFilterFiles, uploadDirFor } from '../runtime/host/filter-sources.js';
import { loadFilterFile } from '../runtime/host/load-filter-file.js';
import { shippedFilterSource } from '../runtime/host/shipped-filter-source.js';
import { renderFunction, type FunctionFilter } from '../features/integrations/open-webui/render-function.js';
import { VERSION } from '../core/version.js';
import type { CliOutput } from './cli-output.js';

/** A parsed `eunoe function` command line. */
export interface FunctionCommand {
  url?: string;
  toggle: boolean;
  out?: string;
}

/**
 * `eunoe function [--url URL] [--toggle] [--out FILE]`: the Open WebUI Function for the filters the server
 * would load with this environment (FILTERS_DIR, SHIPPED_FILTERS, DATA_DIR), without starting it or
 * opening its store. The same file as `GET /integrations/open-webui/function.py`.
 */
export async function runFunctionCommand(command: FunctionCommand, output: CliOutput): Promise<number> {
  const config = loadConfig(process.env);
  const shipped = shippedFilterSource(config.SHIPPED_FILTERS);
  const { files } = listFilterFiles({
    userDir: config.FILTERS_DIR,
    uploadDir: uploadDirFor({ filtersDir: config.FILTERS_DIR, packageDir: shipped.dir, dataDir: config.DATA_DIR }),
    packageDir: shipped.dir,
    shipped: shipped.files,
  });
  const filters: FunctionFilter[] = [];
  for (const file of files) {
    try {
      const loaded = await loadFilterFile(file);
      if (loaded.kind === 'pipe') continue;
      filters.push({
        id: loaded.id,
        name: loaded.name,
        userValvesSpec: loaded.userValvesSpec as FunctionFilter['userValvesSpec'],
      });
    } catch (error) {
      output.err(`eunoe: skipped ${file}: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
  const url = command.url ?? `http://localhost:${config.PORT}`;
  const text = renderFunction(filters, { url, version: VERSION, toggle: command.toggle });
  if (command.out) {
    writeFileSync(command.out, text);
    output.err(`eunoe: wrote ${command.out} (${filters.length} filters)\n`);
  } else output.out(text);
  return 0;
}
