/** One input message as the engine sees it. */
export interface ChatNode {
  index: number;
  id: string;
  role: string;
  /** The input object, passed through untouched. */
  message: unknown;
  /** system/developer messages: always kept, outside selection. */
  isSystem: boolean;
  /** Text used for scoring (text parts, tool call names and arguments). */
  text: string;
  /** Assistant: ids of its tool calls. */
  toolCallIds: string[];
  /** Tool result: the call it answers. */
  toolCallId?: string;
}

/** An atomic selection unit: one message, or an assistant tool call with all its results. */
export interface Unit {
  /** Position among units (chronological). */
  position: number;
  /** Input indexes, ascending. */
  members: number[];
  /** Role of the first member. */
  role: string;
}

/** The parsed conversation. */
export interface Conversation {
  nodes: ChatNode[];
  /** Chat units in order (system messages and orphans excluded). */
  units: Unit[];
  /** Unit position of each input index; -1 for system messages and orphans. */
  unitOf: Int32Array;
  /** Input index → reason, for messages that cannot be sent validly. */
  orphans: Map<number, string>;
  /** Index of the last user message, -1 if none. */
  lastUserIndex: number;
}
