import { cooking } from './cooking.js';
import { health } from './health.js';
import { hobbies } from './hobbies.js';
import { home } from './home.js';
import { money } from './money.js';
import { pets } from './pets.js';
import type { Topic } from './topic.js';
import { travel } from './travel.js';
import { work } from './work.js';

export type { PlantedAdvice, PlantedEvent, PlantedFact, PlantedPair, Topic } from './topic.js';
export { openerReplies, openers, smallTalkAssistant, smallTalkUser } from './small-talk.js';

/** Every topic the generator draws from. */
export const topics: readonly Topic[] = [pets, home, work, travel, health, cooking, money, hobbies];

/** Acknowledgements an assistant opens its reply to a planted statement with. */
export const acknowledgements: readonly string[] = [
  "That's great news, thanks for telling me.",
  "Noted — I'll keep that in mind.",
  'Good to know!',
  'Oh, nice.',
  'Thanks for the update.',
  'Sounds like a good decision.',
];

/** The system prompt every generated conversation starts with. */
export const systemPrompt =
  'You are a friendly personal assistant. The user chats with you over many sessions about their life, work and plans. ' +
  'Answer concisely, use what the user told you earlier when it is relevant, and ask before making assumptions.';
