/**
 * Child-process entry of `bench:proxy`: the loopback OpenAI-compatible upstream in its own process
 * (`startStreamUpstream`), as a real provider would be. Argv: `<chunks> <delayMs>`. Tells the parent
 * its URL over IPC (`{url}`), stops on the message `stop` or SIGTERM.
 */
import { startStreamUpstream } from './stream-upstream.js';

const [chunks = '500', delayMs = '0'] = process.argv.slice(2);
const upstream = await startStreamUpstream(Number(chunks), Number(delayMs));
const stop = async () => {
  await upstream.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('message', (message) => {
  if (message === 'stop') void stop();
});
process.send?.({ url: upstream.url });
