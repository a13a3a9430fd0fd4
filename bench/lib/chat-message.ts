/** The OpenAI-format chat message the benchmarks generate and select from. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}
