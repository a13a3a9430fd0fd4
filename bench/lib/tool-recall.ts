/**
 * Evidence recall on seeded coding/tool-use conversations: runs selection methods on every planted question at
 * several budgets, and checks that each kept set keeps tool pairs whole (a `tool_calls` message iff all its results).
 */
import { mean } from './metrics.js';
import { percent } from './table.js';
import { MessageTokenCounter, PRIMING_TOKENS } from './token-count.js';
import {
  generateToolConversation,
  toolQuestionRequest,
  TOOL_QUESTION_KINDS,
  type ToolChatMessage,
  type ToolQuestionKind,
} from './tool-chat-generator.js';

/** A selection method: gets the request's messages and the prompt budget, returns the kept indexes. */
export interface ToolRecallMethod {
  name: string;
  /** Gets a fresh copy of the request (so `(messages: unknown[], budget) => …` fits too) and returns kept indexes. */
  select: (messages: ToolChatMessage[], budget: number) => number[];
}

export interface ToolRecallOptions {
  /** Seeded conversations 1..n (default 10). */
  conversations?: number;
  /** Prompt budgets in tokens (default 1k/2k/4k/8k). */
  budgets?: number[];
}

/** A markdown-ready table. */
export interface TableRows {
  header: string[];
  rows: string[][];
}

/** Mean evidence recall per budget (`header`/`rows`), per question kind, and validity per method. */
export interface ToolRecallResult extends TableRows {
  perKind: TableRows;
  /** Per method: share of kept sets with whole tool pairs, share within the budget, and the worst budget use. */
  validity: TableRows;
  /** One line: conversations, questions by kind, history size at question time. */
  summary: string;
}

/** True when every assistant `tool_calls` message is kept exactly when all of its tool results are (and vice versa). */
export function toolPairsWhole(messages: readonly ToolChatMessage[], kept: ReadonlySet<number>): boolean {
  const resultIndex = new Map<string, number>();
  messages.forEach((message, index) => {
    if (message.role === 'tool') resultIndex.set(message.tool_call_id, index);
  });
  const claimed = new Set<number>();
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    if (message.role !== 'assistant' || !message.tool_calls?.length) continue;
    const members = [index, ...message.tool_calls.map((call) => resultIndex.get(call.id) ?? -1)];
    if (members.includes(-1)) return false;
    members.forEach((member) => claimed.add(member));
    const keptCount = members.filter((member) => kept.has(member)).length;
    if (keptCount !== 0 && keptCount !== members.length) return false;
  }
  // A kept tool result whose call is not in the request at all is an orphan.
  return [...kept].every((index) => messages[index]?.role !== 'tool' || claimed.has(index));
}

interface Sample {
  method: string;
  budget: number;
  kind: ToolQuestionKind;
  recall: number;
  whole: boolean;
  used: number;
}

const budgetLabel = (budget: number): string => (budget % 1000 === 0 ? `${budget / 1000}k` : String(budget));

/** Runs every method on every planted question of `conversations` seeded tool chats at every budget. */
export function toolRecallRows(
  methods: readonly ToolRecallMethod[],
  options: ToolRecallOptions = {},
): ToolRecallResult {
  const conversations = options.conversations ?? 10;
  const budgets = options.budgets ?? [1000, 2000, 4000, 8000];
  const counter = new MessageTokenCounter();
  const samples: Sample[] = [];
  const history: number[] = [];
  const lengths: number[] = [];
  const kinds = new Map<ToolQuestionKind, number>();
  for (let seed = 1; seed <= conversations; seed++) {
    const conversation = generateToolConversation({ seed });
    for (const question of conversation.questions) {
      const messages = toolQuestionRequest(conversation, question);
      const tokens = counter.messages(messages);
      history.push(counter.prompt(messages));
      lengths.push(messages.length);
      kinds.set(question.kind, (kinds.get(question.kind) ?? 0) + 1);
      for (const budget of budgets) {
        for (const method of methods) {
          const kept = new Set(method.select([...messages], budget));
          const used = [...kept].reduce((sum, index) => sum + (tokens[index] ?? 0), PRIMING_TOKENS);
          const recall = question.evidence.filter((index) => kept.has(index)).length / question.evidence.length;
          samples.push({
            method: method.name,
            budget,
            kind: question.kind,
            recall,
            whole: toolPairsWhole(messages, kept),
            used: used / budget,
          });
        }
      }
    }
  }
  const pick = (method: string, filter: (sample: Sample) => boolean = () => true): Sample[] =>
    samples.filter((sample) => sample.method === method && filter(sample));
  const recallOf = (list: readonly Sample[]): string => percent(mean(list.map((sample) => sample.recall)));
  return {
    header: ['method', ...budgets.map(budgetLabel)],
    rows: methods.map(({ name }) => [
      name,
      ...budgets.map((budget) => recallOf(pick(name, (s) => s.budget === budget))),
    ]),
    perKind: {
      header: ['method', ...TOOL_QUESTION_KINDS],
      rows: methods.map(({ name }) => [
        name,
        ...TOOL_QUESTION_KINDS.map((kind) => recallOf(pick(name, (s) => s.kind === kind))),
      ]),
    },
    validity: {
      header: ['method', 'tool pairs whole', 'within budget', 'max budget use'],
      rows: methods.map(({ name }) => {
        const all = pick(name);
        return [
          name,
          percent(mean(all.map((s) => (s.whole ? 1 : 0)))),
          percent(mean(all.map((s) => (s.used <= 1 ? 1 : 0)))),
          `${Math.max(...all.map((s) => s.used)).toFixed(2)}×`,
        ];
      }),
    },
    summary:
      `${conversations} tool conversations, ${lengths.length} questions (${TOOL_QUESTION_KINDS.map((kind) => `${kind}: ${kinds.get(kind) ?? 0}`).join(', ')}); ` +
      `request at question time: ${Math.round(mean(lengths))} messages, ${Math.round(mean(history))} tokens on average ` +
      `(min ${Math.min(...history)}, max ${Math.max(...history)}).`,
  };
}
