/**
 * The pipe types. They are defined beside the filter types in host/pipe-definition.ts: the host loads pipe files as
 * it loads filter files, and this folder (which runs pipes) sits above the host.
 */
export type {
  AnyPipeDefinition,
  ManifoldModel,
  PipeArgs,
  PipeChunk,
  PipeDefinition,
  PipeResult,
} from '../host/pipe-definition.js';
