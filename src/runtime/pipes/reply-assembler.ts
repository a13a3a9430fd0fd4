import { completion, type WireObject } from './completion-chunks.js';

const isRecord = (value: unknown): value is WireObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

interface ToolCallParts {
  id?: string;
  type?: string;
  name: string;
  arguments: string;
}

/**
 * Builds the whole reply from the chunks of a stream: content, reasoning, tool calls (joined
 * by index), the finish reason, the last `usage` seen (OpenAI sends it in a last chunk with no
 * choices; OpenRouter adds `cost`) and the first upstream id. Used for `stream: false`, for
 * outlet filters and for accounting.
 */
export class ReplyAssembler {
  content = '';
  reasoning = '';
  finishReason: string | null = null;
  usage?: WireObject;
  /** The id of the first chunk (an upstream's generation id when a proxy passes chunks through). */
  id?: string;
  /** An `error` object a chunk carried (a provider error mid-stream). */
  error?: WireObject;
  private readonly toolCalls = new Map<number, ToolCallParts>();

  /** Read one event's JSON (non-JSON and control events such as `{event: …}` are skipped). */
  observe(json: WireObject | undefined): void {
    if (!json) return;
    if (this.id === undefined && typeof json.id === 'string') this.id = json.id;
    if (isRecord(json.usage)) this.usage = json.usage;
    if (isRecord(json.error)) this.error = json.error;
    const choice = Array.isArray(json.choices) ? json.choices[0] : undefined;
    if (!isRecord(choice)) return;
    if (typeof choice.finish_reason === 'string') this.finishReason = choice.finish_reason;
    const delta = isRecord(choice.delta) ? choice.delta : isRecord(choice.message) ? choice.message : undefined;
    if (!delta) return;
    if (typeof delta.content === 'string') this.content += delta.content;
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === 'string') this.reasoning += reasoning;
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) this.addToolCall(call);
  }

  private addToolCall(call: unknown): void {
    if (!isRecord(call)) return;
    const index = typeof call.index === 'number' ? call.index : this.toolCalls.size;
    const parts = this.toolCalls.get(index) ?? { name: '', arguments: '' };
    if (typeof call.id === 'string') parts.id = call.id;
    if (typeof call.type === 'string') parts.type = call.type;
    const fn = isRecord(call.function) ? call.function : {};
    if (typeof fn.name === 'string') parts.name += fn.name;
    if (typeof fn.arguments === 'string') parts.arguments += fn.arguments;
    this.toolCalls.set(index, parts);
  }

  /** The assistant message so far: `content`, plus `reasoning_content` and `tool_calls` when any. */
  message(): WireObject {
    const message: WireObject = { content: this.content };
    if (this.reasoning) message.reasoning_content = this.reasoning;
    if (this.toolCalls.size) {
      message.tool_calls = [...this.toolCalls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([, call]) => ({
          id: call.id,
          type: call.type ?? 'function',
          function: { name: call.name, arguments: call.arguments },
        }));
    }
    return message;
  }

  /** The reply as one `chat.completion` (for `stream: false`). */
  completion(model: string): WireObject {
    return completion(model, this.message(), this.finishReason ?? 'stop', this.usage, this.id);
  }
}
