/**
 * The `data:` lines of an SSE byte stream, in order, as `data: …` strings (comments such as
 * OpenRouter's `: OPENROUTER PROCESSING`, `event:` and blank lines are skipped). Multi-line
 * `data` fields are joined with `\n`, as the SSE spec says. Each piece is scanned once.
 */
export async function* sseDataLines(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let rest = '';
  let data: string[] = [];
  const field = (line: string) => line.slice(line.startsWith('data: ') ? 6 : 5);
  for await (const piece of body) {
    const text = rest + (typeof piece === 'string' ? piece : decoder.decode(piece, { stream: true }));
    let start = 0;
    let newline = text.indexOf('\n', start);
    while (newline !== -1) {
      const end = newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      if (end === start) {
        if (data.length) yield `data: ${data.join('\n')}`;
        data = [];
      } else if (text.startsWith('data:', start)) {
        data.push(field(text.slice(start, end)));
      }
      start = newline + 1;
      newline = text.indexOf('\n', start);
    }
    rest = text.slice(start);
  }
  if (rest.startsWith('data:')) data.push(field(rest.replace(/\r$/, '')));
  if (data.length) yield `data: ${data.join('\n')}`;
}
