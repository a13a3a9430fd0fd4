import { countMessageTokens, loadEncoder, REPLY_PRIMING_TOKENS } from '../../../src/domain/engine/index.js';
import type { ChatMessage } from '../../../src/core/messages/chat-message.js';

/** A chat message as Open WebUI sends it: the shared `ChatMessage` with text (or null) content. */
export type Message = ChatMessage & { content: string | null };

export const SYSTEM: Message = { role: 'system', content: 'You are a helpful assistant.' };

/**
 * Every ordinary message is a label plus this filler, so all of them weigh the same under
 * keyword scoring (same words, same length) and cost the same tokens: the control's selection
 * is then plain recency, and any message a flag keeps stands out.
 */
const FILLER =
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua '
    .repeat(3)
    .trim();
/** Words only topic messages (and topic questions) share: they make those messages relevant. */
const TOPIC = 'kubernetes ingress';

/** `u03`, `a11`: two digits, so every label costs the same tokens. */
export const label = (kind: 'u' | 'a', turn: number) => `${kind}${String(turn).padStart(2, '0')}`;

/** The text of turn `turn`'s user or assistant message; `topic` swaps two filler words for the topic words. */
export function fillerText(kind: 'u' | 'a', turn: number, topic = false): string {
  const body = topic ? `${TOPIC} ${FILLER.split(' ').slice(2).join(' ')}` : FILLER;
  return `${label(kind, turn)}: ${body}`;
}

/** The label a sent message starts with (`u03`), or its whole content when it has none. */
export function labelOf(message: Message): string {
  const content =
    typeof message.content === 'string'
      ? message.content
      : JSON.stringify(message.content ?? message.tool_calls ?? null);
  return /^[ua]\d{2}(?=:)/.exec(content)?.[0] ?? content;
}

/** Labels of the chat messages sent (system prompt left out). */
export function labels(messages: Message[]): string[] {
  return messages.filter((message) => message.role !== 'system').map(labelOf);
}

/** Prompt tokens of a message list, counted like the engine does for gpt-4o. */
export function promptTokens(messages: Message[]): number {
  const encoder = loadEncoder('o200k_base');
  return messages.reduce((sum, message) => sum + countMessageTokens(message, encoder), REPLY_PRIMING_TOKENS);
}

/** What the inlet is called with: the chat's whole history as typed, and its chat id. */
export type SendHistory = (messages: Message[], chatId: string) => Promise<Message[]>;

/** Options of one simulated turn. */
export interface TurnOptions {
  /** Text typed before the user's message, e.g. `!pin ` (the flag block as the user writes it). */
  prefix?: string;
  /** The user's message is about the topic (relevant to the topic messages). */
  topic?: boolean;
  /** The assistant's reply is about the topic. */
  topicReply?: boolean;
  /** Replace the user's whole text (the prefix is still put in front). */
  text?: string;
}

/**
 * One Open WebUI chat: every turn appends the user's message (flag block included, as typed)
 * to the history, resends the whole history to the inlet with the chat's id, then appends the
 * assistant's reply. `sent` is what the model would have seen on each turn.
 */
export class SimulatedChat {
  readonly history: Message[];
  readonly sent: Message[][] = [];

  constructor(
    private readonly send: SendHistory,
    readonly chatId: string,
    start: Message[] = [SYSTEM],
  ) {
    this.history = [...start];
  }

  /** The number of the next turn (1-based; turns already in `start` do not count). */
  get nextTurn(): number {
    return this.sent.length + 1;
  }

  /** Play one turn and return what was sent to the model. */
  async turn(options: TurnOptions = {}): Promise<Message[]> {
    const turn = this.nextTurn;
    this.history.push({
      role: 'user',
      content: `${options.prefix ?? ''}${options.text ?? fillerText('u', turn, options.topic)}`,
    });
    const sent = await this.send(this.history, this.chatId);
    this.sent.push(sent);
    this.history.push({ role: 'assistant', content: fillerText('a', turn, options.topicReply) });
    return sent;
  }

  /** Play `count` turns with the same options; returns what was sent on each. */
  async turns(count: number, options: TurnOptions = {}): Promise<Message[][]> {
    const all: Message[][] = [];
    for (let index = 0; index < count; index++) all.push(await this.turn(options));
    return all;
  }
}
