const TOPICS = ['the garden shed', 'the bus timetable', 'a violin lesson', 'the bakery queue', 'a chess opening'];

/**
 * A chat of `exchanges` short exchanges about everyday things; the user's message of exchange `n` is `facts[n]` when
 * given (a fact a later question asks about), else small talk. Message `2n` is exchange `n`'s user message.
 */
export function everydayChat(
  exchanges: number,
  facts: Readonly<Record<number, string>>,
): Array<{ role: string; content: string }> {
  const messages: Array<{ role: string; content: string }> = [];
  for (let turn = 0; turn < exchanges; turn++) {
    const topic = TOPICS[turn % TOPICS.length]!;
    messages.push({
      role: 'user',
      content:
        facts[turn] ?? `Turn ${turn}: a few more thoughts about ${topic}, nothing urgent, just thinking aloud today.`,
    });
    messages.push({ role: 'assistant', content: `Noted about ${topic} (turn ${turn}); happy to keep talking.` });
  }
  return messages;
}
