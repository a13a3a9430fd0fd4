/** `SseFrames` lives in core/messages: a pipe's chunk type (host/pipe-definition.ts) names it, below this folder. */
export { SseFrames } from '../../core/messages/sse-frames.js';
