import { createOpenAIProxy } from 'eunoe';

/**
 * OpenAI-compatible proxy manifold: lists the upstream's models as `openai-proxy.<model>` and
 * forwards chats (streaming, tools, images…), recording the real usage of every call.
 * Logic in src/features/proxy/.
 */
export default createOpenAIProxy();
