import type { ChatMessage } from './chat-message.js';
import {
  acknowledgements,
  openerReplies,
  openers,
  smallTalkAssistant,
  smallTalkUser,
  systemPrompt,
  topics,
  type Topic,
} from './corpus/index.js';
import { createRng, type Rng } from './rng.js';

/** A message a question needs, and the text that message must contain for it to count as evidence. */
export interface EvidenceRef {
  index: number;
  contains: string;
}

/**
 * What a question needs: one fact (asked with some shared words, or as a pure paraphrase),
 * a date plus an event, two facts from different sessions, or an assistant's answer.
 */
export type QuestionKind = 'single' | 'paraphrase' | 'temporal' | 'multi-session' | 'assistant';

/** A question asked after `messages.slice(0, askAt)`; its evidence lies before askAt. */
export interface BenchQuestion {
  kind: QuestionKind;
  text: string;
  evidence: EvidenceRef[];
  askAt: number;
}

/** A generated multi-session conversation with its planted questions. */
export interface BenchConversation {
  seed: number;
  messages: ChatMessage[];
  questions: BenchQuestion[];
}

/** Knobs of the generator; defaults give about 350 messages and 14 planted questions. */
export interface GeneratorOptions {
  seed: number;
  sessions?: number;
  minExchanges?: number;
  maxExchanges?: number;
  singleFacts?: number;
  events?: number;
  pairs?: number;
  advice?: number;
  /** Minimum messages between the last evidence and the question. */
  minGap?: number;
  /** Questions are asked no earlier than this fraction of the conversation. */
  earliestQuestion?: number;
  /** Probability that a single-fact question is asked as a pure paraphrase. */
  paraphraseRate?: number;
}

interface Plant {
  kind: QuestionKind;
  topic: Topic;
  question: string;
  /** Statements in order, each with the session it goes into and the text proving it. */
  statements: Array<{ session: number; text: string; contains: string; reply?: string }>;
  /** Set for events: the evidence also includes the session's dated opener. */
  needsDate: boolean;
}

interface Session {
  date: string;
  topics: Topic[];
  plants: Array<{ plant: Plant; statement: number }>;
}

const weekdays = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const months = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

function formatDate(date: Date): string {
  return `${weekdays[date.getUTCDay()]}, ${date.getUTCDate()} ${months[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
}

function sessionDates(rng: Rng, count: number): string[] {
  let day = Date.UTC(2025, 0, 1) + rng.int(0, 200) * 86_400_000;
  const dates: string[] = [];
  for (let index = 0; index < count; index++) {
    dates.push(formatDate(new Date(day)));
    day += rng.int(1, 9) * 86_400_000;
  }
  return dates;
}

function choosePlants(rng: Rng, options: Required<GeneratorOptions>): Plant[] {
  const { sessions } = options;
  const plants: Plant[] = [];
  const singles = rng.shuffle(topics.flatMap((topic) => topic.facts.map((make) => ({ topic, make }))));
  for (const { topic, make } of singles.slice(0, options.singleFacts)) {
    const fact = make(rng);
    const paraphrased = rng.chance(options.paraphraseRate);
    plants.push({
      kind: paraphrased ? 'paraphrase' : 'single',
      topic,
      question: paraphrased ? fact.paraphrase : fact.question,
      needsDate: false,
      statements: [{ session: rng.int(0, sessions - 1), text: fact.statement, contains: fact.answer }],
    });
  }
  const events = rng.shuffle(topics.flatMap((topic) => topic.events.map((make) => ({ topic, make }))));
  for (const { topic, make } of events.slice(0, options.events)) {
    const event = make(rng);
    plants.push({
      kind: 'temporal',
      topic,
      question: event.question,
      needsDate: true,
      statements: [{ session: rng.int(0, sessions - 1), text: event.statement, contains: event.marker }],
    });
  }
  const pairs = rng.shuffle(topics.flatMap((topic) => topic.pairs.map((make) => ({ topic, make }))));
  for (const { topic, make } of pairs.slice(0, options.pairs)) {
    const pair = make(rng);
    const first = rng.int(0, sessions - 2);
    const second = rng.int(first + 1, sessions - 1);
    plants.push({
      kind: 'multi-session',
      topic,
      question: pair.question,
      needsDate: false,
      statements: [
        { session: first, text: pair.first, contains: pair.firstAnswer },
        { session: second, text: pair.second, contains: pair.secondAnswer },
      ],
    });
  }
  const advice = rng.shuffle(topics.flatMap((topic) => topic.advice.map((make) => ({ topic, make }))));
  for (const { topic, make } of advice.slice(0, options.advice)) {
    const tip = make(rng);
    plants.push({
      kind: 'assistant',
      topic,
      question: tip.question,
      needsDate: false,
      statements: [{ session: rng.int(0, sessions - 1), text: tip.ask, contains: tip.answer, reply: tip.reply }],
    });
  }
  return plants;
}

function planSessions(rng: Rng, options: Required<GeneratorOptions>, plants: Plant[]): Session[] {
  const dates = sessionDates(rng, options.sessions);
  const sessions: Session[] = dates.map((date) => ({
    date,
    topics: rng.shuffle(topics).slice(0, rng.int(2, 3)),
    plants: [],
  }));
  for (const plant of plants) {
    plant.statements.forEach((statement, index) => {
      const session = sessions[statement.session] as Session;
      session.plants.push({ plant, statement: index });
      // Distractors on the same topic surround the planted fact.
      if (!session.topics.includes(plant.topic)) session.topics.push(plant.topic);
    });
  }
  return sessions;
}

function assistantProse(rng: Rng, topic: Topic, sentences: number): string {
  return rng.shuffle(topic.replies).slice(0, sentences).join(' ');
}

/** A topical exchange that plants nothing: one or two questions, answered first, then general advice. */
function chatterExchange(rng: Rng, topic: Topic): [string, string] {
  const picked = rng.shuffle(topic.chatter).slice(0, rng.chance(0.25) ? 2 : 1);
  const ask = picked.map((entry) => entry.ask(rng)).join(' ');
  const answer = [...picked.map((entry) => entry.answer), assistantProse(rng, topic, rng.int(3, 6))].join(' ');
  return [ask, answer];
}

/** Generates one conversation; the same options always give the same conversation. */
export function generateConversation(input: GeneratorOptions): BenchConversation {
  const options: Required<GeneratorOptions> = {
    sessions: 14,
    minExchanges: 8,
    maxExchanges: 13,
    singleFacts: 6,
    events: 3,
    pairs: 3,
    advice: 2,
    minGap: 6,
    earliestQuestion: 0.4,
    paraphraseRate: 0.3,
    ...input,
  };
  const rng = createRng(options.seed);
  const plants = choosePlants(rng, options);
  const sessions = planSessions(rng, options, plants);
  const messages: ChatMessage[] = [{ role: 'system', content: systemPrompt }];
  const evidence = new Map<Plant, EvidenceRef[]>();
  const addEvidence = (plant: Plant, ref: EvidenceRef): void => {
    evidence.set(plant, [...(evidence.get(plant) ?? []), ref]);
  };

  for (const session of sessions) {
    const openerIndex = messages.length;
    messages.push({ role: 'user', content: rng.pick(openers).replace('{date}', session.date) });
    messages.push({ role: 'assistant', content: rng.pick(openerReplies) });
    const exchanges = Math.max(rng.int(options.minExchanges, options.maxExchanges), session.plants.length + 1);
    const slots = new Map<number, (typeof session.plants)[number]>();
    const positions = rng.shuffle(Array.from({ length: exchanges }, (_, index) => index));
    session.plants.forEach((plant, index) => slots.set(positions[index] as number, plant));
    for (let exchange = 0; exchange < exchanges; exchange++) {
      const planted = slots.get(exchange);
      if (planted) {
        const statement = planted.plant.statements[planted.statement]!;
        if (planted.plant.needsDate) addEvidence(planted.plant, { index: openerIndex, contains: session.date });
        messages.push({ role: 'user', content: statement.text });
        if (statement.reply !== undefined) {
          addEvidence(planted.plant, { index: messages.length, contains: statement.contains });
          messages.push({
            role: 'assistant',
            content: `${statement.reply} ${assistantProse(rng, planted.plant.topic, rng.int(1, 3))}`,
          });
        } else {
          addEvidence(planted.plant, { index: messages.length - 1, contains: statement.contains });
          messages.push({
            role: 'assistant',
            content: `${rng.pick(acknowledgements)} ${assistantProse(rng, planted.plant.topic, rng.int(3, 6))}`,
          });
        }
      } else if (rng.chance(0.22)) {
        messages.push({ role: 'user', content: rng.pick(smallTalkUser) });
        messages.push({ role: 'assistant', content: rng.pick(smallTalkAssistant) });
      } else {
        const [ask, answer] = chatterExchange(rng, rng.pick(session.topics));
        messages.push({ role: 'user', content: ask });
        messages.push({ role: 'assistant', content: answer });
      }
    }
  }

  const boundaries = messages
    .map((_, index) => index)
    .filter((index) => index > 1 && messages[index - 1]?.role === 'assistant');
  const questions: BenchQuestion[] = [];
  for (const plant of plants) {
    const refs = (evidence.get(plant) ?? []).sort((a, b) => a.index - b.index);
    const last = refs[refs.length - 1]?.index ?? 0;
    const earliest = Math.max(last + options.minGap, Math.floor(messages.length * options.earliestQuestion));
    const candidates = boundaries.filter((index) => index >= earliest);
    if (candidates.length === 0) continue;
    questions.push({ kind: plant.kind, text: plant.question, evidence: refs, askAt: rng.pick(candidates) });
  }
  return { seed: options.seed, messages, questions };
}

/** The request for a question: the history before it plus the question as the last user message. */
export function questionRequest(conversation: BenchConversation, question: BenchQuestion): ChatMessage[] {
  return [...conversation.messages.slice(0, question.askAt), { role: 'user', content: question.text }];
}
