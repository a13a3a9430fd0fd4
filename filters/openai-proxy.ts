import { createOpenAIProxy } from 'eunoe/shipped';

/**
 * OpenAI-compatible proxy manifold: lists the upstream's models as `openai-proxy.<model>` and
 * forwards chats (streaming, tools, images…), recording the real usage of every call.
 * The logic lives in `src/features/proxy/`.
 */
export default createOpenAIProxy();
