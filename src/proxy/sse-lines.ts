/**
 * The `data:` lines of an SSE byte stream, in order, as `data: …` strings (comments such as
 * OpenRouter's `: OPENROUTER PROCESSING`, `event:` and blank lines are skipped). Multi-line
 * `data` fields are joined with `\n`, as the SSE spec says.
 */
export async function* sseDataLines(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  for await (const piece of body) {
    buffer += typeof piece === 'string' ? piece : decoder.decode(piece, { stream: true });
    let newline = buffer.search(/\r?\n/);
    while (newline !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(buffer[newline] === '\r' ? newline + 2 : newline + 1);
      if (line === '') {
        if (data.length) yield `data: ${data.join('\n')}`;
        data = [];
      } else if (line.startsWith('data:')) {
        data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
      }
      newline = buffer.search(/\r?\n/);
    }
  }
  if (buffer.startsWith('data:')) data.push(buffer.slice(buffer.startsWith('data: ') ? 6 : 5));
  if (data.length) yield `data: ${data.join('\n')}`;
}
